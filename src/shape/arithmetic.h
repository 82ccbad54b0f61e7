// Exact int64 arithmetic for the nine DimensionOperation values, with division by zero and overflow
// reported instead of trapping or wrapping.
#pragma once

#include <NvInferRuntime.h>

#include <cstdint>

namespace kiln::shape
{

enum class ArithmeticError : uint8_t
{
    kNONE,
    kDIVISION_BY_ZERO,
    kOVERFLOW,
};

struct ArithmeticResult
{
    int64_t value{0};
    ArithmeticError error{ArithmeticError::kNONE};

    bool ok() const noexcept
    {
        return error == ArithmeticError::kNONE;
    }
};

//! True for the nine values of nvinfer1::DimensionOperation (a plugin may pass any int32_t).
bool isValidOperation(nvinfer1::DimensionOperation op) noexcept;

//! True where op(a, b) == op(b, a) for all a, b.
bool isCommutative(nvinfer1::DimensionOperation op) noexcept;

//! "sum", "prod", "max", "min", "sub", "equal", "less", "floor_div", "ceil_div"; "invalid" otherwise.
char const* operationName(nvinfer1::DimensionOperation op) noexcept;

//! Computes op(first, second) exactly:
//! - kSUM, kPROD, kSUB: kOVERFLOW when the exact result does not fit in int64_t.
//! - kMAX, kMIN: never fail.
//! - kEQUAL, kLESS: 1 when first == second (first < second), else 0.
//! - kFLOOR_DIV: the quotient rounded toward negative infinity (floor_div(-7, 2) == -4, floor_div(7, -2) == -4).
//! - kCEIL_DIV: the quotient rounded toward positive infinity (ceil_div(-7, 2) == -3, ceil_div(7, 2) == 4).
//!   Both divisions give kDIVISION_BY_ZERO for second == 0 and kOVERFLOW for INT64_MIN / -1.
//! An invalid op gives value 0 with no error; callers check isValidOperation first.
ArithmeticResult applyOperation(nvinfer1::DimensionOperation op, int64_t first, int64_t second) noexcept;

} // namespace kiln::shape
