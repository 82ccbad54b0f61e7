// The floating-point functions of one element that the CUDA backend's element-wise, activation and unary kernels
// compute, written once so that the fused point-wise chain (pointwise.cu) computes each step exactly as the layer it
// replaced: the CPU reference's formulas (backend/cpu/kernels/nn/), in float. Each family comes as a visitor: it
// chooses the formula for an operation once and hands it to `apply`, which may run it on many elements (the point-wise
// chain runs each step on four), so that the choice is not made again per element.
#pragma once

#include <NvInfer.h>

#include <cuda_runtime_api.h>

namespace kiln::cuda::device
{

// log(1 + exp(z)) without overflow for large z, and without losing small results for very negative z.
__device__ inline float softplusUnit(float z)
{
    return z > 0.0F ? z + log1pf(expf(-z)) : log1pf(expf(z));
}

__device__ inline float sigmoid(float x)
{
    // Both branches keep exp's argument non-positive, so nothing overflows.
    if (x >= 0.0F)
    {
        return 1.0F / (1.0F + expf(-x));
    }
    float const e = expf(x);
    return e / (1.0F + e);
}

//! ReLU as the CPU reference computes it: NaN stays NaN.
__device__ inline float relu(float x)
{
    return isnan(x) ? x : fmaxf(x, 0.0F);
}

//! The hard sigmoid as the CPU reference computes it: NaN stays NaN.
__device__ inline float hardSigmoid(float alpha, float beta, float x)
{
    return isnan(x) ? x : fmaxf(0.0F, fminf(1.0F, alpha * x + beta));
}

// The formulas of the CPU reference (backend/cpu/kernels/nn/activation.cpp), in float: `apply(f)` with f(x).
template <typename Apply>
__device__ inline auto visitActivation(nvinfer1::ActivationType type, float alpha, float beta, Apply const& apply)
{
    using nvinfer1::ActivationType;
    switch (type)
    {
    case ActivationType::kRELU: return apply([](float x) { return relu(x); });
    case ActivationType::kSIGMOID: return apply([](float x) { return sigmoid(x); });
    case ActivationType::kTANH: return apply([](float x) { return tanhf(x); });
    case ActivationType::kLEAKY_RELU: return apply([alpha](float x) { return x >= 0.0F ? x : alpha * x; });
    case ActivationType::kELU: return apply([alpha](float x) { return x >= 0.0F ? x : alpha * expm1f(x); });
    case ActivationType::kSELU:
        return apply([alpha, beta](float x) { return x > 0.0F ? beta * x : beta * alpha * expm1f(x); });
    case ActivationType::kSOFTSIGN: return apply([](float x) { return x / (1.0F + fabsf(x)); });
    case ActivationType::kSOFTPLUS: return apply([alpha, beta](float x) { return alpha * softplusUnit(beta * x); });
    case ActivationType::kCLIP:
        return apply([alpha, beta](float x) { return isnan(x) ? x : fmaxf(alpha, fminf(beta, x)); });
    case ActivationType::kHARD_SIGMOID: return apply([alpha, beta](float x) { return hardSigmoid(alpha, beta, x); });
    case ActivationType::kSCALED_TANH: return apply([alpha, beta](float x) { return alpha * tanhf(beta * x); });
    case ActivationType::kTHRESHOLDED_RELU:
        return apply([alpha](float x) { return x > alpha ? x : (isnan(x) ? x : 0.0F); });
    case ActivationType::kGELU_ERF:
        return apply([](float x) { return 0.5F * x * (1.0F + erff(x * 0.70710678118654752F)); });
    case ActivationType::kGELU_TANH:
        return apply(
            [](float x) { return 0.5F * x * (1.0F + tanhf(0.79788456080286536F * (x + 0.044715F * x * x * x))); });
    }
    return apply([](float x) { return x; });
}

__device__ inline float activate(nvinfer1::ActivationType type, float alpha, float beta, float x)
{
    return visitActivation(type, alpha, beta, [x](auto const& f) { return f(x); });
}

// Half to even regardless of the rounding mode, as the CPU's roundHalfToEven (rintf rounds to nearest even).
__device__ inline float roundHalfEven(float x)
{
    return rintf(x);
}

// The CPU reference's formulas (backend/cpu/kernels/nn/unary.cpp), in float: `apply(f)` with f(x).
template <typename Apply>
__device__ inline auto visitUnary(nvinfer1::UnaryOperation op, Apply const& apply)
{
    using nvinfer1::UnaryOperation;
    switch (op)
    {
    case UnaryOperation::kEXP: return apply([](float x) { return expf(x); });
    case UnaryOperation::kLOG: return apply([](float x) { return logf(x); });
    case UnaryOperation::kSQRT: return apply([](float x) { return sqrtf(x); });
    case UnaryOperation::kRECIP: return apply([](float x) { return 1.0F / x; });
    case UnaryOperation::kABS: return apply([](float x) { return fabsf(x); });
    case UnaryOperation::kNEG: return apply([](float x) { return -x; });
    case UnaryOperation::kSIN: return apply([](float x) { return sinf(x); });
    case UnaryOperation::kCOS: return apply([](float x) { return cosf(x); });
    case UnaryOperation::kTAN: return apply([](float x) { return tanf(x); });
    case UnaryOperation::kSINH: return apply([](float x) { return sinhf(x); });
    case UnaryOperation::kCOSH: return apply([](float x) { return coshf(x); });
    case UnaryOperation::kASIN: return apply([](float x) { return asinf(x); });
    case UnaryOperation::kACOS: return apply([](float x) { return acosf(x); });
    case UnaryOperation::kATAN: return apply([](float x) { return atanf(x); });
    case UnaryOperation::kASINH: return apply([](float x) { return asinhf(x); });
    case UnaryOperation::kACOSH: return apply([](float x) { return acoshf(x); });
    case UnaryOperation::kATANH: return apply([](float x) { return atanhf(x); });
    case UnaryOperation::kCEIL: return apply([](float x) { return ceilf(x); });
    case UnaryOperation::kFLOOR: return apply([](float x) { return floorf(x); });
    case UnaryOperation::kERF: return apply([](float x) { return erff(x); });
    case UnaryOperation::kSIGN:
        return apply([](float x) { return isnan(x) ? x : static_cast<float>((x > 0.0F) - (x < 0.0F)); });
    case UnaryOperation::kROUND: return apply([](float x) { return roundHalfEven(x); });
    case UnaryOperation::kISINF: return apply([](float x) { return isinf(x) ? 1.0F : 0.0F; });
    case UnaryOperation::kISNAN: return apply([](float x) { return isnan(x) ? 1.0F : 0.0F; });
    default: return apply([](float) { return 0.0F; });
    }
}

__device__ inline float unaryFloat(nvinfer1::UnaryOperation op, float x)
{
    return visitUnary(op, [x](auto const& f) { return f(x); });
}

// The CPU reference's arithmetic (backend/cpu/kernels/nn/element_wise.cpp), in float: `apply(f)` with f(a, b).
template <typename Apply>
__device__ inline auto visitElementWise(nvinfer1::ElementWiseOperation op, Apply const& apply)
{
    using nvinfer1::ElementWiseOperation;
    switch (op)
    {
    case ElementWiseOperation::kSUM: return apply([](float a, float b) { return a + b; });
    case ElementWiseOperation::kPROD: return apply([](float a, float b) { return a * b; });
    // MAX and MIN propagate NaN, as the CPU reference does (fmaxf would drop it).
    case ElementWiseOperation::kMAX:
        return apply([](float a, float b) { return isnan(a) || isnan(b) ? a + b : fmaxf(a, b); });
    case ElementWiseOperation::kMIN:
        return apply([](float a, float b) { return isnan(a) || isnan(b) ? a + b : fminf(a, b); });
    case ElementWiseOperation::kSUB: return apply([](float a, float b) { return a - b; });
    case ElementWiseOperation::kDIV: return apply([](float a, float b) { return a / b; });
    case ElementWiseOperation::kPOW: return apply([](float a, float b) { return powf(a, b); });
    case ElementWiseOperation::kFLOOR_DIV: return apply([](float a, float b) { return floorf(a / b); });
    default: return apply([](float, float) { return 0.0F; });
    }
}

__device__ inline float elementWiseFloat(nvinfer1::ElementWiseOperation op, float a, float b)
{
    return visitElementWise(op, [a, b](auto const& f) { return f(a, b); });
}

} // namespace kiln::cuda::device
