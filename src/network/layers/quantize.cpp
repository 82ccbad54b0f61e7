#include "network/layers/quantize.h"

#include "core/data_type.h"
#include "core/logging.h"

namespace kiln::network
{
namespace
{

using nvinfer1::DataType;

bool isQuantizedType(DataType type)
{
    return type == DataType::kINT8 || type == DataType::kFP8;
}

//! The quantized types Kiln has, or why `type` is not one of them.
std::string quantizedTypeProblem(DataType type)
{
    if (type == DataType::kINT4 || type == DataType::kFP4)
    {
        return dataTypeName(type) + " is not supported: Kiln has no sub-byte types yet (INT8 and FP8 are)";
    }
    return isQuantizedType(type) ? std::string() : dataTypeName(type) + " is not a quantized type (INT8 or FP8)";
}

//! The scale's extent, when it holds exactly one coefficient (per-tensor quantization).
bool holdsOneCoefficient(InferenceContext& ctx)
{
    if (ctx.rank(1) == 0)
    {
        return true;
    }
    Dim const extent = ctx.dim(1, 0);
    return ctx.rank(1) == 1 && extent.isConstant() && extent.constant() == 1;
}

//! The per-channel rule: a 1-D scale along a valid axis, of the axis's extent where both are known.
bool checkChannelScale(InferenceContext& ctx, int32_t axis)
{
    if (ctx.rank(1) != 1)
    {
        return ctx.fail("the scale (input 1) must be a scalar (per-tensor) or 1-D (per-channel), not of rank "
            + std::to_string(ctx.rank(1)) + " (Kiln has no block quantization yet)");
    }
    if (!ctx.building())
    {
        // The axis is set after the layer is added: checked when the network is built.
        return true;
    }
    if (axis < 0 || axis >= ctx.rank(0))
    {
        return ctx.fail("axis " + std::to_string(axis) + " is not an axis of the rank-" + std::to_string(ctx.rank(0))
            + " input, and the 1-D scale quantizes per channel along it (setAxis)");
    }
    Dim const channels = ctx.dim(0, axis);
    Dim const coefficients = ctx.dim(1, 0);
    if (channels.isConstant() && coefficients.isConstant() && channels.constant() != coefficients.constant())
    {
        return ctx.fail("the scale (input 1) holds " + std::to_string(coefficients.constant())
            + " coefficients, but the input's axis " + std::to_string(axis) + " has extent "
            + std::to_string(channels.constant()));
    }
    return true;
}

bool checkZeroPoint(InferenceContext& ctx, DataType quantizedType)
{
    if (ctx.nbInputs() < 3 || !ctx.hasInput(2))
    {
        return true;
    }
    if (ctx.input(2).type != quantizedType)
    {
        return ctx.fail("the zero point (input 2) must have the quantized type " + dataTypeName(quantizedType)
            + ", not " + dataTypeName(ctx.input(2).type));
    }
    bool sameShape = ctx.rank(2) == ctx.rank(1);
    for (int32_t axis = 0; sameShape && axis < ctx.rank(1); ++axis)
    {
        Dim const a = ctx.dim(1, axis);
        Dim const b = ctx.dim(2, axis);
        sameShape = !a.isConstant() || !b.isConstant() || a.constant() == b.constant();
    }
    return sameShape || ctx.fail("the zero point (input 2) must have the scale's shape");
}

} // namespace

bool inferQuantization(InferenceContext& ctx, bool quantizes, int32_t axis, DataType toType)
{
    char const* const kind = quantizes ? "a quantize layer" : "a dequantize layer";
    if (ctx.nbInputs() < 2 || !ctx.hasInput(0) || !ctx.hasInput(1))
    {
        return ctx.fail(std::string(kind) + " takes the data (input 0) and a scale (input 1)");
    }
    DataType const dataType = ctx.input(0).type;
    DataType const quantizedType = quantizes ? toType : dataType;
    std::string const problem = quantizedTypeProblem(quantizedType);
    if (!problem.empty())
    {
        return ctx.fail(std::string(quantizes ? "the output type: " : "the input (input 0): ") + problem);
    }
    DataType const realType = quantizes ? dataType : toType;
    if (!isFloatType(realType))
    {
        return ctx.fail(std::string(quantizes ? "the input (input 0)" : "the output type") + " must be FLOAT, HALF "
            + "or BF16, not " + dataTypeName(realType));
    }
    if (!isFloatType(ctx.input(1).type))
    {
        return ctx.fail("the scale (input 1) must be FLOAT, HALF or BF16, not " + dataTypeName(ctx.input(1).type));
    }
    if (!holdsOneCoefficient(ctx) && !checkChannelScale(ctx, axis))
    {
        return false;
    }
    if (!checkZeroPoint(ctx, quantizedType))
    {
        return false;
    }
    return ctx.setOutput(0, toType, ctx.input(0).dims);
}

bool acceptBlockShape(char const* call, std::string const& layerName, nvinfer1::Dims const& blockShape)
{
    if (blockShape.nbDims == 0)
    {
        return true;
    }
    logError(std::string(call) + ": layer \"" + layerName
        + "\": Kiln has no block quantization yet; the scale stays per-tensor or per-channel");
    return false;
}

} // namespace kiln::network
