#include "backend/cpu/kernels/nn/quantized_convolution.h"

#include "backend/cpu/kernels/nn/activation.h"
#include "backend/cpu/kernels/nn/convolution.h"
#include "backend/cpu/layer_kernels.h"
#include "core/quantization.h"

#include <stdexcept>

namespace kiln::cpu
{
namespace
{

using nvinfer1::DataType;

//! The INT8 tensor `q` dequantized by `scale` into FP32.
std::vector<float> dequantized(ConstTensorView const& q, float scale)
{
    std::vector<float> values(static_cast<size_t>(q.count()));
    auto const* data = static_cast<int8_t const*>(q.data);
    for (size_t i = 0; i < values.size(); ++i)
    {
        values[i] = dequantizeInt8(data[i], scale);
    }
    return values;
}

void checkTensors(network::QuantizedConvolutionParams const& params, ConstTensorView const& input,
    ConstTensorView const* residual, TensorView const& output)
{
    if (input.type != DataType::kINT8 || output.type != params.outputType())
    {
        throw std::invalid_argument("quantized convolution: reads INT8 and writes "
            + std::string(params.outputType() == DataType::kINT8 ? "INT8" : "FLOAT") + "; got other types");
    }
    if (params.addsResidual
        && (residual == nullptr || residual->type != params.residualType() || residual->shape != output.shape))
    {
        throw std::invalid_argument("quantized convolution: the residual must have the output's shape and the type "
                                    "its scale gives");
    }
}

} // namespace

void runQuantizedConvolution(network::QuantizedConvolutionParams const& params, ConstTensorView const& input,
    ConstTensorView const* residual, TensorView const& output)
{
    checkTensors(params, input, residual, output);
    std::vector<float> const x = dequantized(input, params.inputScale);
    std::vector<float> y(static_cast<size_t>(output.count()));
    runConvolution(params.dequantizedConvolution(), ConstTensorView(DataType::kFLOAT, input.shape, x.data()),
        TensorView{DataType::kFLOAT, output.shape, y.data()});
    if (params.addsResidual)
    {
        std::vector<float> const r = residual->type == DataType::kINT8
            ? dequantized(*residual, params.residualScale)
            : std::vector<float>(
                static_cast<float const*>(residual->data), static_cast<float const*>(residual->data) + y.size());
        for (size_t i = 0; i < y.size(); ++i)
        {
            y[i] += r[i];
        }
    }
    if (params.activates)
    {
        network::ActivationParams activation;
        activation.activation = params.activation;
        activation.alpha = params.alpha;
        activation.beta = params.beta;
        for (float& value : y)
        {
            float const activated = activate(activation, value);
            value = params.selfGated ? value * activated : activated;
        }
    }
    if (params.outputType() == DataType::kFLOAT)
    {
        std::copy(y.begin(), y.end(), output.as<float>());
        return;
    }
    for (size_t i = 0; i < y.size(); ++i)
    {
        output.as<int8_t>()[i] = quantizeToInt8(y[i], params.outputScale);
    }
}

void run(network::QuantizedConvolutionParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs)
{
    runQuantizedConvolution(params, inputs.at(0), params.addsResidual ? &inputs.at(1) : nullptr, outputs.at(0));
}

} // namespace kiln::cpu
