#include "network/fused/quantized_convolution.h"

#include "core/data_type.h"
#include "core/quantization.h"

#include <cmath>

namespace kiln::network
{
namespace
{

//! A scale the layer multiplies or divides by: finite and positive.
bool usableScale(float scale)
{
    return std::isfinite(scale) && scale > 0.0F;
}

bool checkScales(InferenceContext& ctx, QuantizedConvolutionParams const& p)
{
    if (!usableScale(p.inputScale))
    {
        return ctx.fail("the input scale " + std::to_string(p.inputScale) + " is not a finite positive number");
    }
    if (!(p.outputScale == 0.0F || usableScale(p.outputScale))
        || !(p.residualScale == 0.0F || usableScale(p.residualScale)))
    {
        return ctx.fail("the output and residual scales must be 0 (FLOAT) or finite positive numbers");
    }
    if (p.kernel.type() != nvinfer1::DataType::kINT8 || p.kernelScales.type() != nvinfer1::DataType::kFLOAT
        || p.kernelScales.count() != p.nbOutputMaps || (!p.bias.empty() && p.bias.type() != nvinfer1::DataType::kFLOAT))
    {
        return ctx.fail("a quantized convolution needs INT8 kernel weights, one FLOAT scale per output map ("
            + std::to_string(p.nbOutputMaps) + ", not " + std::to_string(p.kernelScales.count())
            + ") and FLOAT bias weights or none");
    }
    std::vector<float> const scales = p.kernelScales.toFloat();
    for (float scale : scales)
    {
        if (!usableScale(scale))
        {
            return ctx.fail("a kernel scale (" + std::to_string(scale) + ") is not a finite positive number");
        }
    }
    return true;
}

bool checkInputs(InferenceContext& ctx, QuantizedConvolutionParams const& p)
{
    int32_t const expected = p.addsResidual ? 2 : 1;
    if (ctx.nbInputs() != expected || !ctx.hasInput(0) || (p.addsResidual && !ctx.hasInput(1)))
    {
        return ctx.fail("a quantized convolution takes " + std::to_string(expected) + " input(s): the data"
            + (p.addsResidual ? " and the residual" : "") + ", not " + std::to_string(ctx.nbInputs()));
    }
    if (ctx.input(0).type != nvinfer1::DataType::kINT8)
    {
        return ctx.fail("a quantized convolution reads INT8 data, not " + dataTypeName(ctx.input(0).type));
    }
    if (p.addsResidual && ctx.input(1).type != p.residualType())
    {
        return ctx.fail("the residual is " + dataTypeName(ctx.input(1).type) + "; its scale says "
            + dataTypeName(p.residualType()));
    }
    return true;
}

} // namespace

bool QuantizedConvolutionParams::infer(InferenceContext& ctx) const
{
    if (!checkInputs(ctx, *this) || !checkScales(ctx, *this) || !inferFilterWindow(ctx, false, outputType()))
    {
        return false;
    }
    if (!addsResidual)
    {
        return true;
    }
    nvinfer1::DimsExprs const& made = ctx.output(0).dims;
    bool same = ctx.rank(1) == made.nbDims;
    for (int32_t axis = 0; same && axis < made.nbDims; ++axis)
    {
        Dim const residual = ctx.dim(1, axis);
        same = !residual.isConstant() || !made.d[axis]->isConstant()
            || residual.constant() == made.d[axis]->getConstantValue();
    }
    return same || ctx.fail("the residual's shape differs from the convolution's output");
}

ConvolutionParams QuantizedConvolutionParams::dequantizedConvolution() const
{
    ConvolutionParams convolution;
    static_cast<WindowedFilterParams&>(convolution) = *this;
    std::vector<float> const scales = kernelScales.toFloat();
    int64_t const perMap = nbOutputMaps > 0 ? kernel.count() / nbOutputMaps : 0;
    std::vector<float> values(static_cast<size_t>(kernel.count()));
    auto const* q = static_cast<int8_t const*>(kernel.data());
    for (size_t i = 0; i < values.size(); ++i)
    {
        values[i] = dequantizeInt8(q[i], scales[i / static_cast<size_t>(perMap)]);
    }
    convolution.kernel = WeightsBuffer(nvinfer1::Weights{nvinfer1::DataType::kFLOAT, values.data(), kernel.count()});
    return convolution;
}

} // namespace kiln::network
