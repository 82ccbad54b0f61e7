#include "shape/arithmetic.h"

#include <algorithm>
#include <limits>

namespace kiln::shape
{
namespace
{

using nvinfer1::DimensionOperation;

ArithmeticResult overflowed()
{
    return {0, ArithmeticError::kOVERFLOW};
}

//! Quotient and remainder of C++'s truncating division, after ruling out the two failing cases.
ArithmeticResult divide(int64_t dividend, int64_t divisor, bool roundUp)
{
    if (divisor == 0)
    {
        return {0, ArithmeticError::kDIVISION_BY_ZERO};
    }
    if (dividend == std::numeric_limits<int64_t>::min() && divisor == -1)
    {
        return overflowed();
    }
    int64_t quotient = dividend / divisor;
    bool const inexact = dividend % divisor != 0;
    bool const negativeQuotient = (dividend < 0) != (divisor < 0);
    // Truncation already rounded toward zero; adjust by one in the direction asked for. The adjusted value
    // cannot overflow: an inexact quotient is strictly smaller in magnitude than the dividend.
    if (inexact && roundUp && !negativeQuotient)
    {
        ++quotient;
    }
    if (inexact && !roundUp && negativeQuotient)
    {
        --quotient;
    }
    return {quotient, ArithmeticError::kNONE};
}

} // namespace

bool isValidOperation(DimensionOperation op) noexcept
{
    auto const value = static_cast<int32_t>(op);
    return value >= 0 && value < nvinfer1::EnumMax<DimensionOperation>();
}

bool isCommutative(DimensionOperation op) noexcept
{
    switch (op)
    {
    case DimensionOperation::kSUM:
    case DimensionOperation::kPROD:
    case DimensionOperation::kMAX:
    case DimensionOperation::kMIN:
    case DimensionOperation::kEQUAL: return true;
    default: return false;
    }
}

char const* operationName(DimensionOperation op) noexcept
{
    switch (op)
    {
    case DimensionOperation::kSUM: return "sum";
    case DimensionOperation::kPROD: return "prod";
    case DimensionOperation::kMAX: return "max";
    case DimensionOperation::kMIN: return "min";
    case DimensionOperation::kSUB: return "sub";
    case DimensionOperation::kEQUAL: return "equal";
    case DimensionOperation::kLESS: return "less";
    case DimensionOperation::kFLOOR_DIV: return "floor_div";
    case DimensionOperation::kCEIL_DIV: return "ceil_div";
    }
    return "invalid";
}

ArithmeticResult applyOperation(DimensionOperation op, int64_t first, int64_t second) noexcept
{
    int64_t result = 0;
    switch (op)
    {
    case DimensionOperation::kSUM:
        return __builtin_add_overflow(first, second, &result) ? overflowed() : ArithmeticResult{result};
    case DimensionOperation::kPROD:
        return __builtin_mul_overflow(first, second, &result) ? overflowed() : ArithmeticResult{result};
    case DimensionOperation::kSUB:
        return __builtin_sub_overflow(first, second, &result) ? overflowed() : ArithmeticResult{result};
    case DimensionOperation::kMAX: return {std::max(first, second)};
    case DimensionOperation::kMIN: return {std::min(first, second)};
    case DimensionOperation::kEQUAL: return {first == second ? 1 : 0};
    case DimensionOperation::kLESS: return {first < second ? 1 : 0};
    case DimensionOperation::kFLOOR_DIV: return divide(first, second, /*roundUp=*/false);
    case DimensionOperation::kCEIL_DIV: return divide(first, second, /*roundUp=*/true);
    }
    return {};
}

} // namespace kiln::shape
