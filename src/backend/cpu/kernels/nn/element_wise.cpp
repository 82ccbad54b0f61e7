#include "backend/cpu/kernels/nn/element_wise.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/nn/broadcast.h"
#include "backend/cpu/kernels/nn/element_access.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace kiln::cpu
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;

bool isComparison(ElementWiseOperation op)
{
    return op == ElementWiseOperation::kEQUAL || op == ElementWiseOperation::kGREATER
        || op == ElementWiseOperation::kLESS;
}

bool isLogical(ElementWiseOperation op)
{
    return op == ElementWiseOperation::kAND || op == ElementWiseOperation::kOR || op == ElementWiseOperation::kXOR;
}

float floatMaxPropagatingNan(float a, float b)
{
    return std::isnan(a) || std::isnan(b) ? std::numeric_limits<float>::quiet_NaN() : (a > b ? a : b);
}

float floatMinPropagatingNan(float a, float b)
{
    return std::isnan(a) || std::isnan(b) ? std::numeric_limits<float>::quiet_NaN() : (a < b ? a : b);
}

// Wrapping (two's complement) arithmetic: unsigned operations are defined on overflow, and C++20 defines the
// conversion back to signed as modular. Stores then wrap to the storage width.
int64_t wrap(uint64_t value)
{
    return static_cast<int64_t>(value);
}

int64_t integerPower(int64_t base, int64_t exponent)
{
    if (exponent < 0)
    {
        if (base == 1)
        {
            return 1;
        }
        if (base == -1)
        {
            return (exponent % 2 == 0) ? 1 : -1;
        }
        return 0;
    }
    uint64_t result = 1;
    uint64_t factor = static_cast<uint64_t>(base);
    for (uint64_t remaining = static_cast<uint64_t>(exponent); remaining != 0; remaining >>= 1)
    {
        if ((remaining & 1U) != 0)
        {
            result *= factor;
        }
        factor *= factor;
    }
    return wrap(result);
}

int64_t truncatingDivide(int64_t a, int64_t b)
{
    if (b == 0)
    {
        return 0;
    }
    if (b == -1)
    {
        return wrap(0U - static_cast<uint64_t>(a)); // INT64_MIN / -1 overflows; wrap as the hardware would.
    }
    return a / b;
}

int64_t flooringDivide(int64_t a, int64_t b)
{
    int64_t const quotient = truncatingDivide(a, b);
    bool const inexact = b != 0 && b != -1 && a % b != 0;
    return inexact && ((a < 0) != (b < 0)) ? quotient - 1 : quotient;
}

int64_t integerArithmetic(ElementWiseOperation op, int64_t a, int64_t b)
{
    auto const ua = static_cast<uint64_t>(a);
    auto const ub = static_cast<uint64_t>(b);
    switch (op)
    {
    case ElementWiseOperation::kSUM: return wrap(ua + ub);
    case ElementWiseOperation::kPROD: return wrap(ua * ub);
    case ElementWiseOperation::kMAX: return a > b ? a : b;
    case ElementWiseOperation::kMIN: return a < b ? a : b;
    case ElementWiseOperation::kSUB: return wrap(ua - ub);
    case ElementWiseOperation::kDIV: return truncatingDivide(a, b);
    case ElementWiseOperation::kPOW: return integerPower(a, b);
    case ElementWiseOperation::kFLOOR_DIV: return flooringDivide(a, b);
    default: return 0;
    }
}

template <typename T>
bool compare(ElementWiseOperation op, T a, T b)
{
    switch (op)
    {
    case ElementWiseOperation::kEQUAL: return a == b;
    case ElementWiseOperation::kGREATER: return a > b;
    case ElementWiseOperation::kLESS: return a < b;
    default: return false;
    }
}

bool logical(ElementWiseOperation op, bool a, bool b)
{
    switch (op)
    {
    case ElementWiseOperation::kAND: return a && b;
    case ElementWiseOperation::kOR: return a || b;
    case ElementWiseOperation::kXOR: return a != b;
    default: return false;
    }
}

} // namespace

float floatArithmetic(ElementWiseOperation op, float a, float b)
{
    switch (op)
    {
    case ElementWiseOperation::kSUM: return a + b;
    case ElementWiseOperation::kPROD: return a * b;
    case ElementWiseOperation::kMAX: return floatMaxPropagatingNan(a, b);
    case ElementWiseOperation::kMIN: return floatMinPropagatingNan(a, b);
    case ElementWiseOperation::kSUB: return a - b;
    case ElementWiseOperation::kDIV: return a / b;
    // A square as the product, the correctly rounded one: glibc's powf gives a neighbour of it for 1.5 million of the
    // 2^32 floats, an eighth of them squares halfway between two floats ((1 + 2^-12)^2 among them), the rest near it.
    case ElementWiseOperation::kPOW: return b == 2.0F ? a * a : std::pow(a, b);
    case ElementWiseOperation::kFLOOR_DIV: return std::floor(a / b);
    default: return 0.0F;
    }
}

Shape elementWiseOutputShape(Shape const& first, Shape const& second)
{
    return broadcastShape({first, second});
}

DataType elementWiseOutputType(ElementWiseOperation op, DataType inputType)
{
    if (static_cast<int32_t>(op) < 0 || static_cast<int32_t>(op) >= nvinfer1::EnumMax<ElementWiseOperation>())
    {
        throw std::invalid_argument("element-wise: unknown ElementWiseOperation");
    }
    bool const numeric = isFloatType(inputType) || inputType == DataType::kINT32 || inputType == DataType::kINT64
        || inputType == DataType::kINT8;
    if (isComparison(op) && (numeric || inputType == DataType::kBOOL))
    {
        return DataType::kBOOL;
    }
    if (isLogical(op) && inputType == DataType::kBOOL)
    {
        return DataType::kBOOL;
    }
    if (!isComparison(op) && !isLogical(op) && numeric)
    {
        return inputType;
    }
    throw std::invalid_argument("element-wise: operation " + std::to_string(static_cast<int32_t>(op))
        + " does not take " + dataTypeName(inputType) + " inputs");
}

void runElementWise(network::ElementWiseParams const& params, ConstTensorView const& first,
    ConstTensorView const& second, TensorView const& output)
{
    if (first.type != second.type)
    {
        throw std::invalid_argument("element-wise: input types differ (" + dataTypeName(first.type) + " and "
            + dataTypeName(second.type) + ")");
    }
    ElementWiseOperation const op = params.operation;
    DataType const outputType = elementWiseOutputType(op, first.type);
    if (output.type != outputType)
    {
        throw std::invalid_argument(
            "element-wise: output type " + dataTypeName(output.type) + ", expected " + dataTypeName(outputType));
    }
    requireShape(output.shape, elementWiseOutputShape(first.shape, second.shape), "element-wise output");
    int64_t const count = output.count();
    if (count == 0)
    {
        return;
    }

    BroadcastWalker walker(output.shape, {first.shape, second.shape});
    bool const floatInputs = isFloatType(first.type);
    for (int64_t i = 0; i < count; ++i, walker.next())
    {
        int64_t const a = walker.offset(0);
        int64_t const b = walker.offset(1);
        if (isLogical(op))
        {
            storeInt(output, i, logical(op, loadInt(first, a) != 0, loadInt(second, b) != 0) ? 1 : 0);
        }
        else if (isComparison(op))
        {
            bool const result = floatInputs ? compare(op, loadFloat(first, a), loadFloat(second, b))
                                            : compare(op, loadInt(first, a), loadInt(second, b));
            storeInt(output, i, result ? 1 : 0);
        }
        else if (floatInputs)
        {
            storeFloat(output, i, floatArithmetic(op, loadFloat(first, a), loadFloat(second, b)));
        }
        else
        {
            storeInt(output, i, integerArithmetic(op, loadInt(first, a), loadInt(second, b)));
        }
    }
}

void run(network::ElementWiseParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs)
{
    runElementWise(params, inputs[0], inputs[1], outputs[0]);
}

} // namespace kiln::cpu
