// The point-wise functions the fast path computes in FP32 over arrays, in loops the compiler vectorises (SSE2, and
// AVX2 or AVX-512 where the processor has them), instead of the reference's one element at a time through double
// precision: sigmoid, tanh, scaled tanh, GELU's tanh form, hard sigmoid, leaky ReLU, clip and exp; and the softmax of
// a row of attention's scores.
//
// Tolerance against the reference (kernels/nn/activation.h and unary.h, in double and rounded once): within
// kVectorRelativeError of the reference's result, or kVectorAbsoluteError where that is subnormal; infinities, NaN and
// the sign of every result are the reference's exactly. GELU's tanh form is x sigmoid(2u) here, u rounded to float:
// within kGeluTanhRelativeError, as exp(2u) amplifies u's rounding by |2u| (up to 104 before it underflows), or
// kGeluTanhAbsoluteError, the reference's own error where its 1 + tanh(u) cancels even in double (0.5 |x| times
// double's epsilon; below x = -7.4 it gives 0, this 1e-17 and less). ReLU, leaky ReLU, clip and hard sigmoid are the
// reference's bit for bit.
#pragma once

#include "network/fused/pointwise.h"

#include <cstdint>

namespace kiln::cpu::fast
{

//! The error bounds stated above: 2^-20 relative (8 ulps), two of the smallest subnormals, and GELU's.
inline constexpr double kVectorRelativeError = 1.0 / (1 << 20);
inline constexpr double kVectorAbsoluteError = 2.8e-45;
inline constexpr double kGeluTanhRelativeError = 1.0 / (1 << 14);
inline constexpr double kGeluTanhAbsoluteError = 1e-15;

//! Whether evaluateVectorized computes `step` (an activation or unary step; element-wise steps are the caller's).
bool vectorizes(network::PointwiseStep const& step);

//! d[i] = step(a[i]) for i < count, for a step that vectorizes(). `d` may be `a`.
void evaluateVectorized(network::PointwiseStep const& step, float const* a, float* d, int64_t count);

//! One row of attention's `count` scores into its probabilities, in place: each score times `scale` plus its mask
//! value (`mask` null: none; its values `maskStep` apart), then the row's softmax, the exponentials as Exp's above and
//! their sum in FP32. A NaN score, or a row whose every score is -infinity, makes the row's probabilities NaN, as in
//! the reference; NaN probabilities are 0 where `zeroNaN`.
void softmaxOfScores(float* row, int64_t count, float scale, float const* mask, int64_t maskStep, bool zeroNaN);

} // namespace kiln::cpu::fast
