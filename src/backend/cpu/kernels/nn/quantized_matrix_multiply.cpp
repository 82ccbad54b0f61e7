#include "backend/cpu/kernels/nn/quantized_matrix_multiply.h"

#include "backend/cpu/kernels/nn/activation.h"
#include "backend/cpu/kernels/tensor/matrix_multiply.h"
#include "backend/cpu/layer_kernels.h"
#include "core/data_type.h"
#include "core/quantization.h"
#include "device_common/half.h"

#include <stdexcept>

namespace kiln::cpu
{
namespace
{

using nvinfer1::DataType;

void checkTensors(
    network::QuantizedMatrixMultiplyParams const& params, ConstTensorView const& input, TensorView const& output)
{
    if (input.type != params.quantizedType() || output.type != params.outputType())
    {
        throw std::invalid_argument("quantized matrix multiply: reads " + dataTypeName(params.quantizedType())
            + " and writes " + dataTypeName(params.outputType()) + "; got other types");
    }
    Shape expected = input.shape;
    if (expected.size() < 2 || expected.back() != params.inner())
    {
        throw std::invalid_argument(
            "quantized matrix multiply: the input's rows must have " + std::to_string(params.inner()) + " elements");
    }
    expected.back() = params.columns;
    if (output.shape != expected)
    {
        throw std::invalid_argument("quantized matrix multiply: the output's shape is not the input's with "
            + std::to_string(params.columns) + " columns");
    }
}

//! Output element `i`: `value` quantized by `outputScale` into the output's INT8 or FP8, or rounded into its FLOAT or
//! HALF.
void store(TensorView const& output, size_t i, float value, float outputScale)
{
    switch (output.type)
    {
    case DataType::kINT8: output.as<int8_t>()[i] = quantizeToInt8(value, outputScale); break;
    case DataType::kFP8: output.as<uint8_t>()[i] = quantizeToFp8(value, outputScale); break;
    case DataType::kHALF: output.as<uint16_t>()[i] = floatToHalfBits(value); break;
    default: output.as<float>()[i] = value; break;
    }
}

} // namespace

void runQuantizedMatrixMultiply(
    network::QuantizedMatrixMultiplyParams const& params, ConstTensorView const& input, TensorView const& output)
{
    checkTensors(params, input, output);
    std::vector<float> x(static_cast<size_t>(input.count()));
    bool const fp8 = params.quantizedType() == DataType::kFP8;
    auto const* q = static_cast<uint8_t const*>(input.data);
    for (size_t i = 0; i < x.size(); ++i)
    {
        x[i] = fp8 ? dequantizeFp8(q[i], params.inputScale)
                   : dequantizeInt8(static_cast<int8_t>(q[i]), params.inputScale);
    }
    // The weights as the replaced product read them: [1, ..., 1, K, N], of the input's rank.
    std::vector<float> const weights = params.dequantizedWeights();
    Shape weightShape(input.shape.size(), 1);
    weightShape[weightShape.size() - 2] = params.inner();
    weightShape.back() = params.columns;
    std::vector<float> y(static_cast<size_t>(output.count()));
    matrixMultiply(ConstTensorView(DataType::kFLOAT, input.shape, x.data()),
        ConstTensorView(DataType::kFLOAT, weightShape, weights.data()),
        TensorView{DataType::kFLOAT, output.shape, y.data()}, network::MatrixMultiplyParams{});
    std::vector<float> const bias = params.bias.toFloat();
    network::ActivationParams const activation = params.activationParams();
    for (size_t i = 0; i < y.size(); ++i)
    {
        float value = y[i];
        if (!bias.empty())
        {
            value += bias[i % static_cast<size_t>(params.columns)];
        }
        if (params.activates)
        {
            value = activate(activation, value);
        }
        store(output, i, value, params.outputScale);
    }
}

void run(network::QuantizedMatrixMultiplyParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs)
{
    runQuantizedMatrixMultiply(params, inputs.at(0), outputs.at(0));
}

} // namespace kiln::cpu
