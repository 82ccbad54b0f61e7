#include "backend/cpu/fast/vector_functions.h"

#include "backend/cpu/fast/vector_clones.h"

#include <cstdint>

namespace kiln::cpu::fast
{
namespace
{

using network::PointwiseStep;
using nvinfer1::ActivationType;
using nvinfer1::UnaryOperation;

// The element functions are branch-free (selects and comparisons the compiler turns into masks), so that the loops
// over them vectorise (CMakeLists.txt compiles this file with -fno-trapping-math, without which GCC keeps the
// branches: Kiln never reads the floating-point exception flags). Comparisons are false for NaN, which the selects
// below rely on to let NaN through.

constexpr float kRoundingShift = 12582912.0F; //!< 1.5 * 2^23: adding it rounds a float below 2^22 to an integer
constexpr float kLog2E = 1.44269504F;
constexpr float kLn2High = 0.693359375F;   //!< ln 2 to 9 bits: n * kLn2High is exact for the |n| <= 150 used here
constexpr float kLn2Low = -2.12194440e-4F; //!< ln 2 - kLn2High

//! 2^k, for k in [-126, 127], from its bits (other k give garbage, which only NaN arguments reach).
KILN_ELEMENT float powerOfTwo(int32_t k)
{
    return __builtin_bit_cast(float, (static_cast<uint32_t>(k) + 127U) << 23);
}

//! exp(x): x = n ln 2 + r with |r| <= ln 2 / 2; exp(r) by its Taylor series to r^7 (truncated below 6e-9
//! relative); 2^n applied as two factors, so that results below FLT_MIN come out subnormal rather than 0 and those
//! past FLT_MAX infinite.
KILN_ELEMENT float expOf(float x)
{
    // exp(-104) rounds to 0 and exp(89) to infinity; NaN passes both comparisons.
    float const clamped = x < -104.0F ? -104.0F : (x > 89.0F ? 89.0F : x);
    float const shifted = clamped * kLog2E + kRoundingShift;
    float const n = shifted - kRoundingShift;
    auto const k
        = static_cast<int32_t>(__builtin_bit_cast(uint32_t, shifted) - __builtin_bit_cast(uint32_t, kRoundingShift));
    float const r = (clamped - n * kLn2High) - n * kLn2Low;
    float p = 1.0F / 5040.0F;
    p = p * r + 1.0F / 720.0F;
    p = p * r + 1.0F / 120.0F;
    p = p * r + 1.0F / 24.0F;
    p = p * r + 1.0F / 6.0F;
    p = p * r + 0.5F;
    p = p * r + 1.0F;
    p = p * r + 1.0F;
    int32_t const half = k >> 1;
    return p * powerOfTwo(half) * powerOfTwo(k - half);
}

//! 1 / (1 + exp(-x)) through exp(-|x|), which neither overflows nor loses the small results of negative x.
KILN_ELEMENT float sigmoidOf(float x)
{
    float const e = expOf(-__builtin_fabsf(x));
    float const r = 1.0F / (1.0F + e);
    return x >= 0.0F ? r : e * r;
}

//! tanh(x): below |x| = 0.625 an odd polynomial (a least-squares fit of tanh(x) / x in x^2, within 4e-9), above it
//! 1 - 2 / (exp(2|x|) + 1), which cancels too much nearer 0.
KILN_ELEMENT float tanhOf(float x)
{
    float const t = __builtin_fabsf(x);
    float const z = t * t;
    float q = -0.005652355F;
    q = q * z + 0.020583488F;
    q = q * z - 0.053718485F;
    q = q * z + 0.133310914F;
    q = q * z - 0.333332598F;
    q = q * z + 1.0F;
    float const large = 1.0F - 2.0F / (expOf(2.0F * t) + 1.0F);
    return __builtin_copysignf(t < 0.625F ? t * q : large, x);
}

//! 0.5 x (1 + tanh(u)) is x sigmoid(2u): no cancellation where tanh(u) nears -1.
KILN_ELEMENT float geluTanhOf(float x)
{
    constexpr float kTwiceSqrtTwoOverPi = 1.59576912F;
    return x * sigmoidOf(kTwiceSqrtTwoOverPi * (x + 0.044715F * x * x * x));
}

// The selects below are the reference's std::min and std::max, operand for operand, so that NaN picks the same side.

KILN_ELEMENT float clipOf(float x, float low, float high)
{
    float const upper = x < high ? x : high;
    return __builtin_isnan(x) ? x : (low < upper ? upper : low);
}

//! In double as the reference, which it then matches bit for bit: in float, alpha x + beta cancels where it nears 0.
KILN_ELEMENT float hardSigmoidOf(float x, float alpha, float beta)
{
    double const y = static_cast<double>(alpha) * x + beta;
    double const upper = y < 1.0 ? y : 1.0;
    return __builtin_isnan(x) ? x : static_cast<float>(0.0 < upper ? upper : 0.0);
}

} // namespace

// The array functions have external linkage (vector_clones.h).
namespace vectorized
{

KILN_VECTOR_CLONES void sigmoidArray(float const* a, float* d, int64_t count)
{
#pragma omp simd
    for (int64_t i = 0; i < count; ++i)
    {
        d[i] = sigmoidOf(a[i]);
    }
}

KILN_VECTOR_CLONES void scaledTanhArray(float const* a, float* d, int64_t count, float alpha, float beta)
{
#pragma omp simd
    for (int64_t i = 0; i < count; ++i)
    {
        d[i] = alpha * tanhOf(beta * a[i]);
    }
}

KILN_VECTOR_CLONES void tanhArray(float const* a, float* d, int64_t count)
{
#pragma omp simd
    for (int64_t i = 0; i < count; ++i)
    {
        d[i] = tanhOf(a[i]);
    }
}

KILN_VECTOR_CLONES void geluTanhArray(float const* a, float* d, int64_t count)
{
#pragma omp simd
    for (int64_t i = 0; i < count; ++i)
    {
        d[i] = geluTanhOf(a[i]);
    }
}

KILN_VECTOR_CLONES void expArray(float const* a, float* d, int64_t count)
{
#pragma omp simd
    for (int64_t i = 0; i < count; ++i)
    {
        d[i] = expOf(a[i]);
    }
}

KILN_VECTOR_CLONES void hardSigmoidArray(float const* a, float* d, int64_t count, float alpha, float beta)
{
#pragma omp simd
    for (int64_t i = 0; i < count; ++i)
    {
        d[i] = hardSigmoidOf(a[i], alpha, beta);
    }
}

// The cheap ones: memory-bound in any width, so the baseline's vectors do.

void clipArray(float const* a, float* d, int64_t count, float low, float high)
{
#pragma omp simd
    for (int64_t i = 0; i < count; ++i)
    {
        d[i] = clipOf(a[i], low, high);
    }
}

//! max(x, 0) as std::max(x, 0) has it: NaN and -0 stay.
void reluArray(float const* a, float* d, int64_t count)
{
#pragma omp simd
    for (int64_t i = 0; i < count; ++i)
    {
        d[i] = a[i] < 0.0F ? 0.0F : a[i];
    }
}

//! The product of two floats rounded to float is the double product rounded: the reference's result exactly.
void leakyReluArray(float const* a, float* d, int64_t count, float alpha)
{
#pragma omp simd
    for (int64_t i = 0; i < count; ++i)
    {
        d[i] = a[i] >= 0.0F ? a[i] : alpha * a[i];
    }
}

//! Each score scaled and its mask value added; their maximum. NaN scores may or may not take the maximum: either way
//! every probability of the row comes out NaN, as the reference's.
KILN_VECTOR_CLONES float scaledScores(float* row, int64_t count, float scale, float const* mask, int64_t maskStep)
{
    // One loop per kind of mask, each free of the others' loads, so that each vectorises.
    if (mask == nullptr)
    {
#pragma omp simd
        for (int64_t j = 0; j < count; ++j)
        {
            row[j] *= scale;
        }
    }
    else if (maskStep == 1)
    {
#pragma omp simd
        for (int64_t j = 0; j < count; ++j)
        {
            row[j] = row[j] * scale + mask[j];
        }
    }
    else
    {
#pragma omp simd
        for (int64_t j = 0; j < count; ++j)
        {
            row[j] = row[j] * scale + mask[j * maskStep];
        }
    }
    float maximum = -__builtin_inff();
#pragma omp simd reduction(max : maximum)
    for (int64_t j = 0; j < count; ++j)
    {
        maximum = row[j] > maximum ? row[j] : maximum;
    }
    return maximum;
}

//! exp(s - maximum) of each score; their sum.
KILN_VECTOR_CLONES float exponentialsAndSum(float* row, int64_t count, float maximum)
{
    float sum = 0.0F;
#pragma omp simd reduction(+ : sum)
    for (int64_t j = 0; j < count; ++j)
    {
        float const e = expOf(row[j] - maximum);
        row[j] = e;
        sum += e;
    }
    return sum;
}

//! Each value divided by `sum`; NaN results 0 where `zeroNaN`.
KILN_VECTOR_CLONES void dividedBy(float* row, int64_t count, float sum, bool zeroNaN)
{
#pragma omp simd
    for (int64_t j = 0; j < count; ++j)
    {
        float const probability = row[j] / sum;
        row[j] = zeroNaN && probability != probability ? 0.0F : probability;
    }
}

} // namespace vectorized

using namespace vectorized;

bool vectorizes(PointwiseStep const& step)
{
    if (step.kind == nvinfer1::LayerType::kUNARY)
    {
        return static_cast<UnaryOperation>(step.operation) == UnaryOperation::kEXP;
    }
    if (step.kind != nvinfer1::LayerType::kACTIVATION)
    {
        return false;
    }
    switch (static_cast<ActivationType>(step.operation))
    {
    case ActivationType::kRELU:
    case ActivationType::kLEAKY_RELU:
    case ActivationType::kCLIP:
    case ActivationType::kHARD_SIGMOID:
    case ActivationType::kSIGMOID:
    case ActivationType::kTANH:
    case ActivationType::kSCALED_TANH:
    case ActivationType::kGELU_TANH: return true;
    default: return false;
    }
}

void softmaxOfScores(float* row, int64_t count, float scale, float const* mask, int64_t maskStep, bool zeroNaN)
{
    float const maximum = scaledScores(row, count, scale, mask, maskStep);
    dividedBy(row, count, exponentialsAndSum(row, count, maximum), zeroNaN);
}

void evaluateVectorized(PointwiseStep const& step, float const* a, float* d, int64_t count)
{
    if (step.kind == nvinfer1::LayerType::kUNARY)
    {
        return expArray(a, d, count);
    }
    switch (static_cast<ActivationType>(step.operation))
    {
    case ActivationType::kRELU: return reluArray(a, d, count);
    case ActivationType::kLEAKY_RELU: return leakyReluArray(a, d, count, step.alpha);
    case ActivationType::kCLIP: return clipArray(a, d, count, step.alpha, step.beta);
    case ActivationType::kHARD_SIGMOID: return hardSigmoidArray(a, d, count, step.alpha, step.beta);
    case ActivationType::kSIGMOID: return sigmoidArray(a, d, count);
    case ActivationType::kTANH: return tanhArray(a, d, count);
    case ActivationType::kSCALED_TANH: return scaledTanhArray(a, d, count, step.alpha, step.beta);
    case ActivationType::kGELU_TANH: return geluTanhArray(a, d, count);
    default: break;
    }
}

} // namespace kiln::cpu::fast
