#include "backend/cpu/kernels/tensor/scatter.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"
#include "backend/shared/scatter_combine.h"
#include "backend/shared/scatter_geometry.h"

#include <cstring>
#include <vector>

namespace kiln::cpu
{
namespace
{

using namespace tensor_detail;
using backend::ScatterGeometry;
using nvinfer1::ScatterMode;

constexpr char const* kKernel = "scatter";

//! Index `position` mapped into [0, extent) (negatives count from the end); throws when it is out of range.
int64_t resolveIndex(ConstTensorView const& indices, int64_t position, int64_t extent, size_t axis)
{
    int64_t const raw = readInteger(indices.data, indices.type, position);
    int64_t const index = raw < 0 ? raw + extent : raw;
    if (index < 0 || index >= extent)
    {
        fail(kKernel,
            "index " + std::to_string(raw) + " (indices element " + std::to_string(position)
                + ") is out of range for axis " + std::to_string(axis) + " of extent " + std::to_string(extent));
    }
    return index;
}

//! kELEMENT: the output element each update lands on, in the updates' order.
std::vector<int64_t> elementTargets(Shape const& data, ConstTensorView const& indices, size_t axis)
{
    Shape const strides = contiguousStrides(data);
    Shape offAxis = strides; // the data offset of an update's coordinates, but for the axis the index decides
    offAxis[axis] = 0;
    std::vector<int64_t> targets;
    targets.reserve(static_cast<size_t>(indices.count()));
    forEachIndex<1>(indices.shape, {offAxis}, [&](std::array<int64_t, 1> const& offset) {
        auto const position = static_cast<int64_t>(targets.size());
        targets.push_back(offset[0] + resolveIndex(indices, position, data[axis], axis) * strides[axis]);
    });
    return targets;
}

//! kND: the output element each update lands on: tuple t's slice start, plus the update's place in the slice.
std::vector<int64_t> ndTargets(Shape const& data, ConstTensorView const& indices, ScatterGeometry const& geometry)
{
    Shape const strides = contiguousStrides(data);
    auto const k = static_cast<size_t>(geometry.coordinateCount);
    int64_t const tuples = indices.count() / geometry.coordinateCount;
    std::vector<int64_t> targets;
    targets.reserve(static_cast<size_t>(tuples * geometry.slice));
    for (int64_t t = 0; t < tuples; ++t)
    {
        int64_t start = 0;
        for (size_t c = 0; c < k; ++c)
        {
            start += resolveIndex(indices, t * geometry.coordinateCount + static_cast<int64_t>(c), data[c], c)
                * strides[c];
        }
        for (int64_t s = 0; s < geometry.slice; ++s)
        {
            targets.push_back(start + s);
        }
    }
    return targets;
}

void replace(ConstTensorView const& updates, TensorView const& output, std::vector<int64_t> const& targets)
{
    size_t const bytes = elementSize(output.type);
    auto const* source = static_cast<uint8_t const*>(updates.data);
    auto* destination = static_cast<uint8_t*>(output.data);
    for (size_t u = 0; u < targets.size(); ++u)
    {
        std::memcpy(destination + targets[u] * static_cast<int64_t>(bytes), source + u * bytes, bytes);
    }
}

void combine(ConstTensorView const& updates, TensorView const& output, std::vector<int64_t> const& targets,
    ScatterReduction reduction)
{
    bool const floating = isFloatType(output.type);
    for (size_t u = 0; u < targets.size(); ++u)
    {
        auto const update = static_cast<int64_t>(u);
        int64_t const target = targets[u];
        if (floating)
        {
            float const element = readFloat(output.data, output.type, target);
            float const value = readFloat(updates.data, updates.type, update);
            writeFloat(output.data, output.type, target, scatter_detail::combineFloats(reduction, element, value));
        }
        else
        {
            int64_t const element = loadInt(output.data, output.type, target);
            int64_t const value = loadInt(updates.data, updates.type, update);
            storeInt(output.data, output.type, target, scatter_detail::combineIntegers(reduction, element, value));
        }
    }
}

} // namespace

void scatter(ConstTensorView const& data, ConstTensorView const& indices, ConstTensorView const& updates,
    TensorView const& output, network::ScatterParams const& params)
{
    ScatterGeometry const geometry = backend::scatterGeometry(data, indices, updates, output, params);
    // Every index is resolved (and checked) before the output is touched.
    std::vector<int64_t> const targets = params.mode == ScatterMode::kELEMENT
        ? elementTargets(data.shape, indices, static_cast<size_t>(geometry.axis))
        : ndTargets(data.shape, indices, geometry);
    if (output.count() == 0)
    {
        return;
    }
    if (output.data != data.data)
    {
        std::memcpy(output.data, data.data, static_cast<size_t>(data.count()) * elementSize(data.type));
    }
    if (params.reduction == ScatterReduction::kNONE)
    {
        replace(updates, output, targets);
    }
    else
    {
        combine(updates, output, targets, params.reduction);
    }
}

void run(network::ScatterParams const& p, LayerInputs const& in, LayerOutputs const& out)
{
    scatter(in[0], in[1], in[2], out[0], p);
}

} // namespace kiln::cpu
