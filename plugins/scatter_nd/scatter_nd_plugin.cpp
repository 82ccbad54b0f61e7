#include "scatter_nd_plugin.h"

#include "api/plugin_collection.h"
#include "common/creators.h"
#include "common/formats.h"
#include "scatter_nd_math.h"

#include "device_common/element_size.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "scatter_nd_kernels.h"
#endif

#include <algorithm>
#include <cstring>
#include <string>

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

PluginError badShapes(std::string const& detail)
{
    return PluginError(std::string(ScatterNdPlugin::kName) + ": " + detail
        + " (data [d0..dr-1], indices [i0..iq-2, k] with 1 <= k <= r, updates [i0..iq-2, dk..dr-1])");
}

//! Throws unless updates' sizes are indices' leading ones, then data's trailing ones; `sameSize(a, b)` answers
//! false only where a and b are known to differ.
template <typename Dimensions, typename SameSize>
void checkShapes(Dimensions const& data, Dimensions const& indices, Dimensions const& updates, int64_t depth,
    SameSize const& sameSize)
{
    if (data.nbDims < 1 || indices.nbDims < 1 || depth < 1 || depth > data.nbDims)
    {
        throw badShapes("the index depth k is outside [1, rank(data)]");
    }
    if (updates.nbDims != indices.nbDims - 1 + data.nbDims - depth)
    {
        throw badShapes("updates has the wrong rank");
    }
    for (int32_t i = 0; i < updates.nbDims; ++i)
    {
        bool const leading = i < indices.nbDims - 1;
        if (!sameSize(updates.d[i], leading ? indices.d[i] : data.d[depth + i - (indices.nbDims - 1)]))
        {
            throw badShapes("updates' size " + std::to_string(i) + " differs");
        }
    }
}

scatter_nd::Geometry geometryOf(PluginTensors const& io)
{
    Dims const& data = io.inputDesc[0].dims;
    Dims const& indices = io.inputDesc[1].dims;
    int64_t const depth = indices.nbDims > 0 ? indices.d[indices.nbDims - 1] : 0;
    checkShapes(data, indices, io.inputDesc[2].dims, depth, [](int64_t a, int64_t b) { return a == b; });
    scatter_nd::Geometry g{};
    g.depth = static_cast<int32_t>(depth);
    g.sliceCount = volume(indices) / depth;
    g.sliceSize = 1;
    for (int32_t axis = g.depth; axis < data.nbDims; ++axis)
    {
        g.sliceSize *= data.d[axis];
    }
    int64_t stride = g.sliceSize;
    for (int32_t axis = g.depth - 1; axis >= 0; --axis)
    {
        g.dims[axis] = data.d[axis];
        g.strides[axis] = stride;
        stride *= data.d[axis];
    }
    return g;
}

} // namespace

int32_t ScatterNdPlugin::getNbOutputs() const noexcept
{
    return 1;
}

DimsExprs ScatterNdPlugin::getOutputDimensions(
    int32_t /*outputIndex*/, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& /*exprBuilder*/) noexcept
{
    return guarded(kName, "getOutputDimensions", DimsExprs{-1, {}}, [&] {
        if (nbInputs != 3)
        {
            throw badShapes("expected 3 inputs");
        }
        DimsExprs const& indices = inputs[1];
        IDimensionExpr const* depth = indices.nbDims > 0 ? indices.d[indices.nbDims - 1] : nullptr;
        if (depth != nullptr && depth->isConstant())
        {
            auto const sameSize = [](IDimensionExpr const* a, IDimensionExpr const* b) {
                return !a->isConstant() || !b->isConstant() || a->getConstantValue() == b->getConstantValue();
            };
            checkShapes(inputs[0], indices, inputs[2], depth->getConstantValue(), sameSize);
        }
        return inputs[0];
    });
}

bool ScatterNdPlugin::supportsFormatCombination(
    int32_t pos, PluginTensorDesc const* inOut, int32_t /*nbInputs*/, int32_t /*nbOutputs*/) noexcept
{
    // Only copies elements, so any type of 1, 2, 4 or 8 bytes; updates and the output are data's type.
    switch (pos)
    {
    case 0:
        return isLinearOf(inOut[0],
            {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT32, DataType::kINT64, DataType::kINT8,
                DataType::kUINT8, DataType::kBOOL});
    case 1: return isLinearOf(inOut[1], {DataType::kINT32, DataType::kINT64});
    case 2:
    case 3: return isLinearOf(inOut[pos], {inOut[0].type});
    default: return false;
    }
}

DataType ScatterNdPlugin::getOutputDataType(
    int32_t /*index*/, DataType const* inputTypes, int32_t /*nbInputs*/) const noexcept
{
    return inputTypes[0];
}

size_t ScatterNdPlugin::getWorkspaceSize(PluginTensorDesc const* inputs, int32_t nbInputs,
    PluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept
{
    if (nbInputs < 2 || inputs[1].dims.nbDims < 1)
    {
        return 0;
    }
    int64_t const depth = inputs[1].dims.d[inputs[1].dims.nbDims - 1];
    int64_t slices = 1;
    for (int32_t axis = 0; axis < depth && axis < inputs[0].dims.nbDims; ++axis)
    {
        slices *= inputs[0].dims.d[axis];
    }
    return static_cast<size_t>(std::max<int64_t>(slices, 0)) * sizeof(int32_t);
}

void ScatterNdPlugin::runHost(PluginTensors const& io) const
{
    scatter_nd::Geometry const g = geometryOf(io);
    size_t const size = elementSize(io.inputDesc[0].type);
    auto* output = io.output<uint8_t>(0);
    if (io.inputs[0] != io.outputs[0])
    {
        std::memcpy(output, io.inputs[0], static_cast<size_t>(volume(io.inputDesc[0].dims)) * size);
    }
    bool const wide = io.inputDesc[1].type == DataType::kINT64;
    auto const* updates = io.input<uint8_t>(2);
    size_t const sliceBytes = static_cast<size_t>(g.sliceSize) * size;
    for (int64_t slice = 0; slice < g.sliceCount; ++slice)
    {
        int32_t axis = 0;
        int64_t const offset = wide ? scatter_nd::sliceOffset(g, io.input<int64_t>(1), slice, &axis)
                                    : scatter_nd::sliceOffset(g, io.input<int32_t>(1), slice, &axis);
        if (offset < 0)
        {
            int64_t const at = slice * g.depth + axis;
            int64_t const index = wide ? io.input<int64_t>(1)[at] : io.input<int32_t>(1)[at];
            throw PluginError(std::string(kName) + ": index " + std::to_string(index) + " (tuple "
                + std::to_string(slice) + ", position " + std::to_string(axis) + ") is outside ["
                + std::to_string(-g.dims[axis]) + ", " + std::to_string(g.dims[axis]) + ")");
        }
        std::memcpy(
            output + static_cast<size_t>(offset) * size, updates + static_cast<size_t>(slice) * sliceBytes, sliceBytes);
    }
}

void ScatterNdPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
#ifdef KILN_WITH_CUDA
    scatter_nd::Geometry const g = geometryOf(io);
    checkCuda(kName,
        launchScatterNd(g, volume(io.inputDesc[0].dims), elementSize(io.inputDesc[0].type), io.inputs[0], io.inputs[1],
            io.inputDesc[1].type == DataType::kINT64, io.inputs[2], io.outputs[0], static_cast<int32_t*>(io.workspace),
            stream));
#else
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::ScatterNdPlugin>)
