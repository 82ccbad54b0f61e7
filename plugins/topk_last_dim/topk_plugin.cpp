#include "topk_plugin.h"

#include "api/plugin_collection.h"
#include "common/creators.h"
#include "common/formats.h"
#include "device_common/half.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "topk_kernels.h"
#endif

#include <algorithm>
#include <climits>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

bool supportedType(int32_t typeId)
{
    auto const type = static_cast<DataType>(typeId);
    return type == DataType::kFLOAT || type == DataType::kHALF || type == DataType::kINT32 || type == DataType::kBF16;
}

//! The order key of element `index` of `data`, stored as `type`.
uint32_t keyAt(void const* data, DataType type, int64_t index)
{
    switch (type)
    {
    case DataType::kHALF: return floatOrderKey(halfBitsToFloat(static_cast<uint16_t const*>(data)[index]));
    case DataType::kBF16: return floatOrderKey(bf16BitsToFloat(static_cast<uint16_t const*>(data)[index]));
    case DataType::kINT32: return intOrderKey(static_cast<int32_t const*>(data)[index]);
    default: return floatOrderKey(static_cast<float const*>(data)[index]);
    }
}

size_t elementSize(DataType type)
{
    return (type == DataType::kHALF || type == DataType::kBF16) ? 2 : 4;
}

} // namespace

void TopkPlugin::check(TopkParams const& params)
{
    std::string const name(kName);
    if (!supportedType(params.typeId))
    {
        throw PluginError(name + ": field 'type_id' is " + std::to_string(params.typeId)
            + "; expected 0 (FP32), 1 (FP16), 3 (INT32) or 7 (BF16)");
    }
    if (params.k <= 0)
    {
        throw PluginError(name + ": field 'k' is " + std::to_string(params.k) + "; expected > 0");
    }
    if (params.isLargest != 0 && params.isLargest != 1)
    {
        throw PluginError(name + ": field 'is_largest' is " + std::to_string(params.isLargest) + "; expected 0 or 1");
    }
}

TopkShape TopkPlugin::shapeOf(Dims const& dims) const
{
    int32_t const axis = mParams.axis < 0 ? mParams.axis + dims.nbDims : mParams.axis;
    if (axis < 0 || axis >= dims.nbDims)
    {
        throw PluginError(std::string(kName) + ": field 'axis' is " + std::to_string(mParams.axis)
            + "; the input has rank " + std::to_string(dims.nbDims));
    }
    TopkShape shape;
    for (int32_t i = 0; i < axis; ++i)
    {
        shape.outer *= dims.d[i];
    }
    for (int32_t i = axis + 1; i < dims.nbDims; ++i)
    {
        shape.inner *= dims.d[i];
    }
    shape.length = dims.d[axis];
    if (shape.length > INT32_MAX)
    {
        throw PluginError(std::string(kName) + ": axis " + std::to_string(axis) + " has " + std::to_string(shape.length)
            + " elements; the INT32 indices reach 2^31 - 1 at most");
    }
    shape.k = mParams.k;
    shape.largest = mParams.isLargest == 1;
    if (shape.k > shape.length)
    {
        throw PluginError(std::string(kName) + ": k (" + std::to_string(shape.k) + ") exceeds the length "
            + std::to_string(shape.length) + " of axis " + std::to_string(axis));
    }
    return shape;
}

int32_t TopkPlugin::getOutputDataTypes(
    DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes, int32_t nbInputs) const noexcept
{
    if (nbInputs != 1 || nbOutputs != 2)
    {
        logError(std::string(kName) + ": expected one input and two outputs");
        return -1;
    }
    outputTypes[0] = inputTypes[0];
    outputTypes[1] = DataType::kINT32;
    return 0;
}

int32_t TopkPlugin::getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const* /*shapeInputs*/,
    int32_t /*nbShapeInputs*/, DimsExprs* outputs, int32_t nbOutputs, IExprBuilder& exprBuilder) noexcept
{
    int32_t const rank = nbInputs == 1 ? inputs[0].nbDims : 0;
    int32_t const axis = mParams.axis < 0 ? mParams.axis + rank : mParams.axis;
    if (nbInputs != 1 || nbOutputs != 2 || axis < 0 || axis >= rank)
    {
        logError(std::string(kName) + ": expected one input of rank > axis (" + std::to_string(mParams.axis) + ")");
        return -1;
    }
    IDimensionExpr const* length = inputs[0].d[axis];
    if (length->isConstant() && length->getConstantValue() < mParams.k)
    {
        logError(std::string(kName) + ": k (" + std::to_string(mParams.k) + ") exceeds the length "
            + std::to_string(length->getConstantValue()) + " of axis " + std::to_string(axis));
        return -1;
    }
    for (int32_t o = 0; o < 2; ++o)
    {
        outputs[o] = inputs[0];
        outputs[o].d[axis] = exprBuilder.constant(mParams.k);
    }
    return 0;
}

bool TopkPlugin::supportsFormatCombination(
    int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t /*nbInputs*/, int32_t /*nbOutputs*/) noexcept
{
    // The input and the values are of type_id, as in NVIDIA's plugin; the indices are INT32.
    DataType const type = pos < 2 ? static_cast<DataType>(mParams.typeId) : DataType::kINT32;
    return isLinearOf(inOut[pos].desc, {type});
}

size_t TopkPlugin::getWorkspaceSize(DynamicPluginTensorDesc const* inputs, int32_t /*nbInputs*/,
    DynamicPluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept
{
#ifdef KILN_WITH_CUDA
    return guarded(kName, "getWorkspaceSize", size_t{0}, [&] { return topkWorkspaceSize(shapeOf(inputs[0].max)); });
#else
    (void) inputs;
    return 0;
#endif
}

void TopkPlugin::runHost(PluginTensors const& io) const
{
    TopkShape const shape = shapeOf(io.inputDesc[0].dims);
    DataType const type = io.inputDesc[0].type;
    size_t const size = elementSize(type);
    auto const* input = static_cast<uint8_t const*>(io.inputs[0]);
    auto* values = static_cast<uint8_t*>(io.outputs[0]);
    auto* indices = io.output<int32_t>(1);
    std::vector<int32_t> order(static_cast<size_t>(shape.length));
    std::vector<uint32_t> keys(order.size());
    for (int64_t outer = 0; outer < shape.outer; ++outer)
    {
        for (int64_t inner = 0; inner < shape.inner; ++inner)
        {
            auto const element = [&](int64_t at) { return (outer * shape.length + at) * shape.inner + inner; };
            for (int64_t at = 0; at < shape.length; ++at)
            {
                keys[at] = keyAt(input, type, element(at));
            }
            std::iota(order.begin(), order.end(), 0);
            // Largest (or smallest) key first; equal keys: lower index first.
            std::partial_sort(order.begin(), order.begin() + shape.k, order.end(), [&](int32_t a, int32_t b) {
                if (keys[a] != keys[b])
                {
                    return shape.largest ? keys[a] > keys[b] : keys[a] < keys[b];
                }
                return a < b;
            });
            for (int64_t rank = 0; rank < shape.k; ++rank)
            {
                int64_t const out = (outer * shape.k + rank) * shape.inner + inner;
                std::memcpy(values + out * size, input + element(order[rank]) * size, size);
                indices[out] = order[rank];
            }
        }
    }
}

void TopkPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
#ifdef KILN_WITH_CUDA
    TopkShape const shape = shapeOf(io.inputDesc[0].dims);
    checkCuda(kName,
        launchTopk(
            shape, io.inputDesc[0].type, io.inputs[0], io.outputs[0], io.output<int32_t>(1), io.workspace, stream));
#else
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V3PluginCreator<kiln::plugins::TopkPlugin>)
