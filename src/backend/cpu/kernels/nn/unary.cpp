#include "backend/cpu/kernels/nn/unary.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/nn/element_access.h"
#include "backend/shared/unary_types.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace kiln::cpu
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::UnaryOperation;

int64_t integerUnary(UnaryOperation op, int64_t x)
{
    // Negation through unsigned arithmetic wraps instead of overflowing; the store wraps to the storage width.
    int64_t const negated = static_cast<int64_t>(0U - static_cast<uint64_t>(x));
    switch (op)
    {
    case UnaryOperation::kABS: return x < 0 ? negated : x;
    case UnaryOperation::kNEG: return negated;
    case UnaryOperation::kSIGN: return (x > 0) - (x < 0);
    default: return 0;
    }
}

//! kISNAN or kISINF of `count` FP32 values into BOOL flags (1 or 0).
void testFloats(UnaryOperation op, float const* values, uint8_t* flags, int64_t count)
{
    if (op == UnaryOperation::kISNAN)
    {
        for (int64_t i = 0; i < count; ++i)
        {
            flags[i] = std::isnan(values[i]) ? 1 : 0;
        }
    }
    else
    {
        for (int64_t i = 0; i < count; ++i)
        {
            flags[i] = std::isinf(values[i]) ? 1 : 0;
        }
    }
}

} // namespace

float roundHalfToEven(float x)
{
    if (!std::isfinite(x))
    {
        return x;
    }
    float const lower = std::floor(x);
    float const fraction = x - lower; // exact: both are floats within one unit of each other
    if (fraction > 0.5F)
    {
        return lower + 1.0F;
    }
    if (fraction < 0.5F)
    {
        return lower;
    }
    return std::fmod(lower, 2.0F) == 0.0F ? lower : lower + 1.0F;
}

float applyUnary(UnaryOperation op, float x)
{
    switch (op)
    {
    case UnaryOperation::kEXP: return std::exp(x);
    case UnaryOperation::kLOG: return std::log(x);
    case UnaryOperation::kSQRT: return std::sqrt(x);
    case UnaryOperation::kRECIP: return 1.0F / x;
    case UnaryOperation::kABS: return std::fabs(x);
    case UnaryOperation::kNEG: return -x;
    case UnaryOperation::kSIN: return std::sin(x);
    case UnaryOperation::kCOS: return std::cos(x);
    case UnaryOperation::kTAN: return std::tan(x);
    case UnaryOperation::kSINH: return std::sinh(x);
    case UnaryOperation::kCOSH: return std::cosh(x);
    case UnaryOperation::kASIN: return std::asin(x);
    case UnaryOperation::kACOS: return std::acos(x);
    case UnaryOperation::kATAN: return std::atan(x);
    case UnaryOperation::kASINH: return std::asinh(x);
    case UnaryOperation::kACOSH: return std::acosh(x);
    case UnaryOperation::kATANH: return std::atanh(x);
    case UnaryOperation::kCEIL: return std::ceil(x);
    case UnaryOperation::kFLOOR: return std::floor(x);
    case UnaryOperation::kERF: return std::erf(x);
    case UnaryOperation::kNOT: return 0.0F;
    case UnaryOperation::kSIGN: return std::isnan(x) ? x : static_cast<float>((x > 0.0F) - (x < 0.0F));
    case UnaryOperation::kROUND: return roundHalfToEven(x);
    case UnaryOperation::kISINF: return std::isinf(x) ? 1.0F : 0.0F;
    case UnaryOperation::kISNAN: return std::isnan(x) ? 1.0F : 0.0F;
    }
    return x;
}

void runUnary(network::UnaryParams const& params, ConstTensorView const& input, TensorView const& output)
{
    UnaryOperation const op = params.operation;
    DataType const outputType = backend::unaryOutputType(op, input.type);
    if (output.type != outputType)
    {
        throw std::invalid_argument(
            "unary: output type " + dataTypeName(output.type) + ", expected " + dataTypeName(outputType));
    }
    requireShape(output.shape, input.shape, "unary output");
    int64_t const count = input.count();
    if (op == UnaryOperation::kNOT)
    {
        for (int64_t i = 0; i < count; ++i)
        {
            storeInt(output, i, loadInt(input, i) == 0 ? 1 : 0);
        }
    }
    else if (!isFloatType(input.type))
    {
        for (int64_t i = 0; i < count; ++i)
        {
            storeInt(output, i, integerUnary(op, loadInt(input, i)));
        }
    }
    else if (outputType == DataType::kBOOL && input.type == DataType::kFLOAT)
    {
        // FP32 tested in a loop of its own per operation: the loads and stores below choose the types per element.
        testFloats(op, static_cast<float const*>(input.data), static_cast<uint8_t*>(output.data), count);
    }
    else if (outputType == DataType::kBOOL) // kISINF, kISNAN
    {
        for (int64_t i = 0; i < count; ++i)
        {
            storeInt(output, i, applyUnary(op, loadFloat(input, i)) != 0.0F ? 1 : 0);
        }
    }
    else
    {
        for (int64_t i = 0; i < count; ++i)
        {
            storeFloat(output, i, applyUnary(op, loadFloat(input, i)));
        }
    }
}

void run(network::UnaryParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs)
{
    runUnary(params, inputs[0], outputs[0]);
}

} // namespace kiln::cpu
