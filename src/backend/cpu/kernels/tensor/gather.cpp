#include "backend/cpu/kernels/tensor/gather.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"

#include <cstring>

namespace kiln::cpu
{
namespace
{

using nvinfer1::GatherMode;
using namespace tensor_detail;

constexpr char const* kKernel = "gather";

int64_t product(Shape const& shape, size_t begin, size_t end)
{
    int64_t result = 1;
    for (size_t i = begin; i < end; ++i)
    {
        result *= shape[i];
    }
    return result;
}

//! Reads index `position` and maps it into [0, extent), wrapping negatives once.
int64_t resolveIndex(ConstTensorView const& indices, int64_t position, int64_t extent)
{
    int64_t const raw = readInteger(indices.data, indices.type, position);
    int64_t const index = raw < 0 ? raw + extent : raw;
    if (index < 0 || index >= extent)
    {
        fail(kKernel,
            "index " + std::to_string(raw) + " is out of range for an axis of extent " + std::to_string(extent));
    }
    return index;
}

void checkBatchDims(Shape const& data, Shape const& indices, int32_t count)
{
    for (int32_t d = 0; d < count; ++d)
    {
        if (data[static_cast<size_t>(d)] != indices[static_cast<size_t>(d)])
        {
            fail(kKernel,
                "element-wise dim " + std::to_string(d) + " differs between data " + shapeText(data) + " and indices "
                    + shapeText(indices));
        }
    }
}

void gatherDefault(ConstTensorView const& data, ConstTensorView const& indices, TensorView const& output,
    network::GatherParams const& params, size_t bytes)
{
    size_t const axis = static_cast<size_t>(normalizeAxis(params.gatherAxis, data.rank(), kKernel));
    size_t const batchDims = static_cast<size_t>(params.numElementWiseDims);
    int64_t const batchCount = product(data.shape, 0, batchDims);
    int64_t const outerCount = product(data.shape, batchDims, axis);
    int64_t const axisExtent = data.shape[axis];
    int64_t const innerBytes = product(data.shape, axis + 1, data.shape.size()) * static_cast<int64_t>(bytes);
    int64_t const indicesPerBatch = product(indices.shape, batchDims, indices.shape.size());
    auto const* source = static_cast<uint8_t const*>(data.data);
    auto* destination = static_cast<uint8_t*>(output.data);
    for (int64_t batch = 0; batch < batchCount; ++batch)
    {
        for (int64_t outer = 0; outer < outerCount; ++outer)
        {
            uint8_t const* block = source + ((batch * outerCount + outer) * axisExtent) * innerBytes;
            for (int64_t j = 0; j < indicesPerBatch; ++j)
            {
                int64_t const index = resolveIndex(indices, batch * indicesPerBatch + j, axisExtent);
                std::memcpy(destination, block + index * innerBytes, static_cast<size_t>(innerBytes));
                destination += innerBytes;
            }
        }
    }
}

void gatherElements(ConstTensorView const& data, ConstTensorView const& indices, TensorView const& output,
    network::GatherParams const& params, size_t bytes)
{
    size_t const axis = static_cast<size_t>(normalizeAxis(params.gatherAxis, data.rank(), kKernel));
    Shape dataStrides = contiguousStrides(data.shape);
    int64_t const axisStride = dataStrides[axis];
    dataStrides[axis] = 0; // the index supplies the coordinate along the axis
    auto const* source = static_cast<uint8_t const*>(data.data);
    auto* destination = static_cast<uint8_t*>(output.data);
    int64_t position = 0;
    forEachIndex<1>(indices.shape, {dataStrides}, [&](std::array<int64_t, 1> const& offsets) {
        int64_t const index = resolveIndex(indices, position++, data.shape[axis]);
        std::memcpy(destination, source + (offsets[0] + index * axisStride) * static_cast<int64_t>(bytes), bytes);
        destination += bytes;
    });
}

void gatherNd(ConstTensorView const& data, ConstTensorView const& indices, TensorView const& output,
    network::GatherParams const& params, size_t bytes)
{
    size_t const batchDims = static_cast<size_t>(params.numElementWiseDims);
    size_t const coordinateCount = static_cast<size_t>(indices.shape.back());
    Shape const dataStrides = contiguousStrides(data.shape);
    int64_t const batchCount = product(data.shape, 0, batchDims);
    int64_t const batchBytes = product(data.shape, batchDims, data.shape.size()) * static_cast<int64_t>(bytes);
    int64_t const tuplesPerBatch = product(indices.shape, batchDims, indices.shape.size() - 1);
    int64_t const sliceBytes
        = product(data.shape, batchDims + coordinateCount, data.shape.size()) * static_cast<int64_t>(bytes);
    auto const* source = static_cast<uint8_t const*>(data.data);
    auto* destination = static_cast<uint8_t*>(output.data);
    int64_t position = 0;
    for (int64_t batch = 0; batch < batchCount; ++batch)
    {
        for (int64_t tuple = 0; tuple < tuplesPerBatch; ++tuple)
        {
            int64_t offset = 0;
            for (size_t c = 0; c < coordinateCount; ++c)
            {
                size_t const dim = batchDims + c;
                offset += resolveIndex(indices, position++, data.shape[dim]) * dataStrides[dim];
            }
            std::memcpy(destination, source + batch * batchBytes + offset * static_cast<int64_t>(bytes),
                static_cast<size_t>(sliceBytes));
            destination += sliceBytes;
        }
    }
}

} // namespace

Shape gatherOutputShape(Shape const& data, Shape const& indices, network::GatherParams const& params)
{
    int32_t const batchDims = params.numElementWiseDims;
    int64_t const dataRank = static_cast<int64_t>(data.size());
    switch (params.mode)
    {
    case GatherMode::kDEFAULT:
    {
        size_t const axis = static_cast<size_t>(normalizeAxis(params.gatherAxis, dataRank, kKernel));
        if (batchDims < 0 || batchDims > 1 || static_cast<size_t>(batchDims) > axis
            || indices.size() < static_cast<size_t>(batchDims))
        {
            fail(kKernel, "kDEFAULT needs numElementWiseDims 0, or 1 with gatherAxis >= 1 and indices of rank >= 1");
        }
        checkBatchDims(data, indices, batchDims);
        Shape output(data.begin(), data.begin() + static_cast<int64_t>(axis));
        output.insert(output.end(), indices.begin() + batchDims, indices.end());
        output.insert(output.end(), data.begin() + static_cast<int64_t>(axis) + 1, data.end());
        return output;
    }
    case GatherMode::kELEMENT:
    {
        size_t const axis = static_cast<size_t>(normalizeAxis(params.gatherAxis, dataRank, kKernel));
        if (batchDims != 0 || indices.size() != data.size())
        {
            fail(kKernel, "kELEMENT needs numElementWiseDims 0 and indices of the data's rank");
        }
        for (size_t d = 0; d < data.size(); ++d)
        {
            if (d != axis && indices[d] > data[d])
            {
                fail(kKernel,
                    "kELEMENT indices " + shapeText(indices) + " exceed data " + shapeText(data)
                        + " outside the gather axis");
            }
        }
        return indices;
    }
    case GatherMode::kND:
    {
        if (batchDims < 0 || indices.empty() || static_cast<size_t>(batchDims) >= indices.size()
            || batchDims >= dataRank)
        {
            fail(kKernel, "kND needs indices of rank > numElementWiseDims and data of rank > numElementWiseDims");
        }
        checkBatchDims(data, indices, batchDims);
        int64_t const coordinateCount = indices.back();
        if (coordinateCount < 1 || coordinateCount > dataRank - batchDims)
        {
            fail(kKernel,
                "kND: last indices dim " + std::to_string(coordinateCount) + " must lie in [1, "
                    + std::to_string(dataRank - batchDims) + "]");
        }
        Shape output(indices.begin(), indices.end() - 1);
        output.insert(output.end(), data.begin() + batchDims + coordinateCount, data.end());
        return output;
    }
    }
    fail(kKernel, "unknown GatherMode");
}

void gather(ConstTensorView const& data, ConstTensorView const& indices, TensorView const& output,
    network::GatherParams const& params)
{
    expectShape(output.shape, gatherOutputShape(data.shape, indices.shape, params), kKernel, "output");
    if (data.type != output.type)
    {
        fail(
            kKernel, std::string("data is ") + dataTypeName(data.type) + " but output is " + dataTypeName(output.type));
    }
    if (!isIndexType(indices.type))
    {
        fail(kKernel, std::string("indices must be INT32 or INT64, not ") + dataTypeName(indices.type));
    }
    size_t const bytes = byteSizeOf(data.type, kKernel);
    if (output.count() == 0)
    {
        return;
    }
    switch (params.mode)
    {
    case GatherMode::kDEFAULT: gatherDefault(data, indices, output, params, bytes); return;
    case GatherMode::kELEMENT: gatherElements(data, indices, output, params, bytes); return;
    case GatherMode::kND: gatherNd(data, indices, output, params, bytes); return;
    }
}

void run(network::GatherParams const& p, LayerInputs const& in, LayerOutputs const& out)
{
    gather(in[0], in[1], out[0], p);
}

} // namespace kiln::cpu
