#include "scatter_elements_plugin.h"

#include "api/plugin_collection.h"
#include "common/creators.h"
#include "common/formats.h"
#include "scatter_elements_math.h"

#include "device_common/element_size.h"
#include "device_common/half.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "scatter_elements_kernels.h"
#endif

#include <cstring>
#include <string>

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

using scatter_elements::Reduction;
char const* const kName = ScatterElementsFamily::kName;

Reduction reductionOf(std::string const& name)
{
    if (name == "none")
        return Reduction::kNONE;
    if (name == "add")
        return Reduction::kADD;
    if (name == "mul")
        return Reduction::kMUL;
    if (name == "max")
        return Reduction::kMAX;
    if (name == "min")
        return Reduction::kMIN;
    throw PluginError(std::string(kName) + ": field 'reduction' is \"" + name
        + "\"; expected \"add\", \"mul\", \"max\", \"min\" or \"none\"");
}

//! The axis in [0, rank), or an error naming the field.
int32_t axisIn(int32_t axis, int32_t rank)
{
    if (axis < -rank || axis >= rank)
    {
        throw PluginError(std::string(kName) + ": field 'axis' is " + std::to_string(axis) + "; expected ["
            + std::to_string(-rank) + ", " + std::to_string(rank - 1) + "] for data of rank " + std::to_string(rank));
    }
    return axis < 0 ? axis + rank : axis;
}

PluginError badShapes(std::string const& detail)
{
    return PluginError(std::string(kName) + ": " + detail
        + " (data, indices and updates share a rank; indices and updates share a shape, no larger than data's "
          "off the axis)");
}

//! Throws unless the shapes fit; `fits(a, b)` answers whether size a may be at most size b, `same(a, b)` whether
//! they may be equal (false only where known otherwise).
template <typename Dimensions, typename Fits, typename Same>
int32_t checkShapes(int32_t axisField, Dimensions const& data, Dimensions const& indices, Dimensions const& updates,
    Fits const& fits, Same const& same)
{
    if (data.nbDims < 1 || indices.nbDims != data.nbDims || updates.nbDims != data.nbDims)
    {
        throw badShapes("the ranks differ");
    }
    int32_t const axis = axisIn(axisField, data.nbDims);
    for (int32_t d = 0; d < data.nbDims; ++d)
    {
        if (!same(indices.d[d], updates.d[d]) || (d != axis && !fits(indices.d[d], data.d[d])))
        {
            throw badShapes("size " + std::to_string(d) + " does not fit");
        }
    }
    return axis;
}

scatter_elements::Geometry geometryOf(ScatterElementsParams const& params, PluginTensors const& io)
{
    Dims const& data = io.inputDesc[0].dims;
    Dims const& indices = io.inputDesc[1].dims;
    int32_t const axis = checkShapes(
        params.axis, data, indices, io.inputDesc[2].dims, [](int64_t a, int64_t b) { return a <= b; },
        [](int64_t a, int64_t b) { return a == b; });
    scatter_elements::Geometry g{};
    g.rank = data.nbDims;
    g.axis = axis;
    g.axisSize = data.d[axis];
    int64_t stride = 1;
    for (int32_t d = data.nbDims - 1; d >= 0; --d)
    {
        g.indexDims[d] = indices.d[d];
        g.dataStrides[d] = stride;
        stride *= data.d[d];
    }
    return g;
}

// Host element access: floating-point types as float, integers as int64 (scatter_elements_math.h's combine).
template <typename Stored, typename Value, Value (*kLoad)(Stored), Stored (*kStore)(Value)>
struct HostCodec
{
    using Storage = Stored;
    static Value load(Stored v)
    {
        return kLoad(v);
    }
    static Stored store(Value v)
    {
        return kStore(v);
    }
};
template <typename T, typename Value>
Value widen(T v)
{
    return static_cast<Value>(v);
}
template <typename T, typename Value>
T narrow(Value v)
{
    return static_cast<T>(v);
}
using FloatCodec = HostCodec<float, float, widen<float, float>, narrow<float, float>>;
using HalfCodec = HostCodec<uint16_t, float, halfBitsToFloat, floatToHalfBits>;
using Bf16Codec = HostCodec<uint16_t, float, bf16BitsToFloat, floatToBf16Bits>;
using Int32Codec = HostCodec<int32_t, int64_t, widen<int32_t, int64_t>, narrow<int32_t, int64_t>>;
using Int64Codec = HostCodec<int64_t, int64_t, widen<int64_t, int64_t>, narrow<int64_t, int64_t>>;

//! Updates in index order, so several updates of one element combine (or, with "none", the last wins) as a loop does.
template <typename Codec, typename Index>
void scatterHost(scatter_elements::Geometry const& g, Reduction reduction, PluginTensors const& io)
{
    using Storage = typename Codec::Storage;
    auto* output = io.output<Storage>(0);
    auto const* indices = io.input<Index>(1);
    auto const* updates = io.input<Storage>(2);
    int64_t const count = volume(io.inputDesc[2].dims);
    for (int64_t i = 0; i < count; ++i)
    {
        int64_t const offset = scatter_elements::targetOffset(g, i, static_cast<int64_t>(indices[i]));
        if (offset < 0)
        {
            throw PluginError(std::string(kName) + ": indices[" + std::to_string(i) + "] (linear position) is "
                + std::to_string(static_cast<int64_t>(indices[i])) + ", outside [" + std::to_string(-g.axisSize) + ", "
                + std::to_string(g.axisSize) + ") along axis " + std::to_string(g.axis));
        }
        output[offset]
            = Codec::store(scatter_elements::combine(reduction, Codec::load(output[offset]), Codec::load(updates[i])));
    }
}

template <typename Codec>
void scatterHost(scatter_elements::Geometry const& g, Reduction reduction, PluginTensors const& io)
{
    if (io.inputDesc[1].type == DataType::kINT64)
    {
        scatterHost<Codec, int64_t>(g, reduction, io);
    }
    else
    {
        scatterHost<Codec, int32_t>(g, reduction, io);
    }
}

} // namespace

void ScatterElementsFamily::check(ScatterElementsParams const& params)
{
    (void) reductionOf(params.reduction);
}

DimsExprs ScatterElementsFamily::outputShape(ScatterElementsParams const& params, int32_t /*index*/,
    DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& /*exprBuilder*/)
{
    if (nbInputs != 3)
    {
        throw badShapes("expected 3 inputs");
    }
    auto const known
        = [](IDimensionExpr const* a, IDimensionExpr const* b) { return a->isConstant() && b->isConstant(); };
    checkShapes(
        params.axis, inputs[0], inputs[1], inputs[2],
        [&](IDimensionExpr const* a, IDimensionExpr const* b) {
            return !known(a, b) || a->getConstantValue() <= b->getConstantValue();
        },
        [&](IDimensionExpr const* a, IDimensionExpr const* b) {
            return !known(a, b) || a->getConstantValue() == b->getConstantValue();
        });
    return inputs[0];
}

bool ScatterElementsFamily::supports(ScatterElementsParams const& /*params*/, int32_t pos,
    PluginTensorDesc const* inOut, int32_t /*nbInputs*/, int32_t /*nbOutputs*/)
{
    switch (pos)
    {
    case 0:
        return isLinearOf(
            inOut[0], {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT32, DataType::kINT64});
    case 1: return isLinearOf(inOut[1], {DataType::kINT64, DataType::kINT32});
    case 2:
    case 3: return isLinearOf(inOut[pos], {inOut[0].type});
    default: return false;
    }
}

void ScatterElementsFamily::runHost(ScatterElementsParams const& params, PluginTensors const& io)
{
    scatter_elements::Geometry const g = geometryOf(params, io);
    Reduction const reduction = reductionOf(params.reduction);
    DataType const type = io.inputDesc[0].type;
    if (io.inputs[0] != io.outputs[0])
    {
        std::memcpy(io.outputs[0], io.inputs[0], static_cast<size_t>(volume(io.inputDesc[0].dims)) * elementSize(type));
    }
    switch (type)
    {
    case DataType::kFLOAT: scatterHost<FloatCodec>(g, reduction, io); break;
    case DataType::kHALF: scatterHost<HalfCodec>(g, reduction, io); break;
    case DataType::kBF16: scatterHost<Bf16Codec>(g, reduction, io); break;
    case DataType::kINT32: scatterHost<Int32Codec>(g, reduction, io); break;
    case DataType::kINT64: scatterHost<Int64Codec>(g, reduction, io); break;
    default: throw PluginError(std::string(kName) + ": data of an unsupported type");
    }
}

void ScatterElementsFamily::runDevice(ScatterElementsParams const& params, PluginTensors const& io, cudaStream_t stream)
{
#ifdef KILN_WITH_CUDA
    scatter_elements::Geometry const g = geometryOf(params, io);
    checkCuda(kName,
        launchScatterElements(g, reductionOf(params.reduction), io.inputDesc[0].type, volume(io.inputDesc[0].dims),
            volume(io.inputDesc[2].dims), io.inputs[0], io.inputs[1], io.inputDesc[1].type == DataType::kINT64,
            io.inputs[2], io.outputs[0], stream));
#else
    (void) params;
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::ScatterElementsPluginV1>)
KILN_COLLECT_PLUGIN(kiln::plugins::V3PluginCreator<kiln::plugins::ScatterElementsPluginV2>)
