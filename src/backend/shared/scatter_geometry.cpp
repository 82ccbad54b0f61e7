#include "backend/shared/scatter_geometry.h"

#include "backend/shared/kernel_checks.h"

#include <string>

namespace kiln::backend
{
namespace
{

using namespace kernel_checks;
using nvinfer1::ScatterMode;

constexpr char const* kKernel = "scatter";

void checkTypes(ConstTensorView const& data, ConstTensorView const& indices, ConstTensorView const& updates,
    TensorView const& output, network::ScatterParams const& params)
{
    expectShape(output.shape, data.shape, kKernel, "output");
    if (output.type != data.type || updates.type != data.type)
    {
        fail(kKernel,
            "data, updates and output must have one type; they are " + dataTypeName(data.type) + ", "
                + dataTypeName(updates.type) + " and " + dataTypeName(output.type));
    }
    byteSizeOf(data.type, kKernel);
    if (!isIndexType(indices.type))
    {
        fail(kKernel, "indices must be INT32 or INT64, not " + dataTypeName(indices.type));
    }
    auto const reduction = static_cast<int32_t>(params.reduction);
    if (reduction < 0 || reduction >= nvinfer1::EnumMax<ScatterReduction>())
    {
        fail(kKernel, "reduction " + std::to_string(reduction) + " is not a ScatterReduction");
    }
    if (params.reduction != ScatterReduction::kNONE && !network::ScatterParams::isReducibleType(data.type))
    {
        fail(kKernel,
            std::string("reduction ") + network::scatterReductionName(params.reduction) + " cannot combine "
                + dataTypeName(data.type) + " elements");
    }
    if (data.rank() < 1)
    {
        fail(kKernel, "data must have rank 1 or more, not 0");
    }
}

ScatterGeometry elementGeometry(Shape const& data, Shape const& indices, Shape const& updates, int32_t axis)
{
    ScatterGeometry geometry;
    geometry.axis = normalizeAxis(axis, static_cast<int64_t>(data.size()), kKernel);
    expectShape(updates, indices, kKernel, "updates (which must have the indices' shape)");
    bool fits = indices.size() == data.size();
    for (size_t d = 0; fits && d < data.size(); ++d)
    {
        fits = d == static_cast<size_t>(geometry.axis) || indices[d] <= data[d];
    }
    if (!fits)
    {
        fail(kKernel,
            "kELEMENT indices " + shapeText(indices) + " must have the rank of the data " + shapeText(data)
                + " and fit in it off axis " + std::to_string(geometry.axis));
    }
    return geometry;
}

ScatterGeometry ndGeometry(Shape const& data, Shape const& indices, Shape const& updates)
{
    if (indices.empty() || indices.back() < 1 || indices.back() > static_cast<int64_t>(data.size()))
    {
        fail(kKernel,
            "kND indices " + shapeText(indices) + " must end in a dim of 1 to " + std::to_string(data.size())
                + " coordinates into the data " + shapeText(data));
    }
    ScatterGeometry geometry;
    geometry.coordinateCount = indices.back();
    auto const firstSliceDim = data.begin() + geometry.coordinateCount;
    Shape expected(indices.begin(), indices.end() - 1);
    expected.insert(expected.end(), firstSliceDim, data.end());
    expectShape(updates, expected, kKernel, "updates");
    geometry.slice = volume(Shape(firstSliceDim, data.end()));
    return geometry;
}

} // namespace

ScatterGeometry scatterGeometry(ConstTensorView const& data, ConstTensorView const& indices,
    ConstTensorView const& updates, TensorView const& output, network::ScatterParams const& params)
{
    checkTypes(data, indices, updates, output, params);
    switch (params.mode)
    {
    case ScatterMode::kELEMENT: return elementGeometry(data.shape, indices.shape, updates.shape, params.axis);
    case ScatterMode::kND: return ndGeometry(data.shape, indices.shape, updates.shape);
    }
    fail(kKernel, "mode " + std::to_string(static_cast<int32_t>(params.mode)) + " is not a ScatterMode");
}

} // namespace kiln::backend
