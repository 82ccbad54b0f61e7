// The floating-point functions of one element that the CUDA backend's element-wise, activation and unary kernels
// compute, written once so that the fused point-wise chain (pointwise.cu) computes each step exactly as the layer it
// replaced: the CPU reference's formulas (backend/cpu/kernels/nn/), in float.
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

// The formulas of the CPU reference (backend/cpu/kernels/nn/activation.cpp), in float.
__device__ inline float activate(nvinfer1::ActivationType type, float alpha, float beta, float x)
{
    switch (type)
    {
    case nvinfer1::ActivationType::kRELU: return isnan(x) ? x : fmaxf(x, 0.0F);
    case nvinfer1::ActivationType::kSIGMOID: return sigmoid(x);
    case nvinfer1::ActivationType::kTANH: return tanhf(x);
    case nvinfer1::ActivationType::kLEAKY_RELU: return x >= 0.0F ? x : alpha * x;
    case nvinfer1::ActivationType::kELU: return x >= 0.0F ? x : alpha * expm1f(x);
    case nvinfer1::ActivationType::kSELU: return x > 0.0F ? beta * x : beta * alpha * expm1f(x);
    case nvinfer1::ActivationType::kSOFTSIGN: return x / (1.0F + fabsf(x));
    case nvinfer1::ActivationType::kSOFTPLUS: return alpha * softplusUnit(beta * x);
    case nvinfer1::ActivationType::kCLIP: return isnan(x) ? x : fmaxf(alpha, fminf(beta, x));
    case nvinfer1::ActivationType::kHARD_SIGMOID: return isnan(x) ? x : fmaxf(0.0F, fminf(1.0F, alpha * x + beta));
    case nvinfer1::ActivationType::kSCALED_TANH: return alpha * tanhf(beta * x);
    case nvinfer1::ActivationType::kTHRESHOLDED_RELU: return x > alpha ? x : (isnan(x) ? x : 0.0F);
    case nvinfer1::ActivationType::kGELU_ERF: return 0.5F * x * (1.0F + erff(x * 0.70710678118654752F));
    case nvinfer1::ActivationType::kGELU_TANH:
        return 0.5F * x * (1.0F + tanhf(0.79788456080286536F * (x + 0.044715F * x * x * x)));
    }
    return x;
}

// Half to even regardless of the rounding mode, as the CPU's roundHalfToEven (rintf rounds to nearest even).
__device__ inline float roundHalfEven(float x)
{
    return rintf(x);
}

// The CPU reference's formulas (backend/cpu/kernels/nn/unary.cpp), in float.
__device__ inline float unaryFloat(nvinfer1::UnaryOperation op, float x)
{
    switch (op)
    {
    case nvinfer1::UnaryOperation::kEXP: return expf(x);
    case nvinfer1::UnaryOperation::kLOG: return logf(x);
    case nvinfer1::UnaryOperation::kSQRT: return sqrtf(x);
    case nvinfer1::UnaryOperation::kRECIP: return 1.0F / x;
    case nvinfer1::UnaryOperation::kABS: return fabsf(x);
    case nvinfer1::UnaryOperation::kNEG: return -x;
    case nvinfer1::UnaryOperation::kSIN: return sinf(x);
    case nvinfer1::UnaryOperation::kCOS: return cosf(x);
    case nvinfer1::UnaryOperation::kTAN: return tanf(x);
    case nvinfer1::UnaryOperation::kSINH: return sinhf(x);
    case nvinfer1::UnaryOperation::kCOSH: return coshf(x);
    case nvinfer1::UnaryOperation::kASIN: return asinf(x);
    case nvinfer1::UnaryOperation::kACOS: return acosf(x);
    case nvinfer1::UnaryOperation::kATAN: return atanf(x);
    case nvinfer1::UnaryOperation::kASINH: return asinhf(x);
    case nvinfer1::UnaryOperation::kACOSH: return acoshf(x);
    case nvinfer1::UnaryOperation::kATANH: return atanhf(x);
    case nvinfer1::UnaryOperation::kCEIL: return ceilf(x);
    case nvinfer1::UnaryOperation::kFLOOR: return floorf(x);
    case nvinfer1::UnaryOperation::kERF: return erff(x);
    case nvinfer1::UnaryOperation::kSIGN: return isnan(x) ? x : static_cast<float>((x > 0.0F) - (x < 0.0F));
    case nvinfer1::UnaryOperation::kROUND: return roundHalfEven(x);
    case nvinfer1::UnaryOperation::kISINF: return isinf(x) ? 1.0F : 0.0F;
    case nvinfer1::UnaryOperation::kISNAN: return isnan(x) ? 1.0F : 0.0F;
    default: return 0.0F;
    }
}

__device__ inline float elementWiseFloat(nvinfer1::ElementWiseOperation op, float a, float b)
{
    switch (op)
    {
    case nvinfer1::ElementWiseOperation::kSUM: return a + b;
    case nvinfer1::ElementWiseOperation::kPROD: return a * b;
    // MAX and MIN propagate NaN, as the CPU reference does (fmaxf would drop it).
    case nvinfer1::ElementWiseOperation::kMAX: return isnan(a) || isnan(b) ? a + b : fmaxf(a, b);
    case nvinfer1::ElementWiseOperation::kMIN: return isnan(a) || isnan(b) ? a + b : fminf(a, b);
    case nvinfer1::ElementWiseOperation::kSUB: return a - b;
    case nvinfer1::ElementWiseOperation::kDIV: return a / b;
    case nvinfer1::ElementWiseOperation::kPOW: return powf(a, b);
    case nvinfer1::ElementWiseOperation::kFLOOR_DIV: return floorf(a / b);
    default: return 0.0F;
    }
}

} // namespace kiln::cuda::device
