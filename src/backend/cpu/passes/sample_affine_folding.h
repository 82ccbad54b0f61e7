// The per-channel affine step after a normalization of whole samples, folded into the normalization. PyTorch exports
// GroupNorm(1, C) (PoolFormer's) as a normalization of each sample with a scale of 1 and a shift of 0 (made one layer
// of the 4-D tensor by plan/passes/sample_normalization.h), then x * w[c] + b[c] as element-wise layers by [C, 1, 1]
// constants: a pass over memory of its own after the normalization's. The normalization's scale and shift take them
// instead, per channel: y = (x - mean) * inverse * (s w[c]) + (t w[c] + b[c]). The fast path's normalization applies
// weights per channel to row-major and channels-last data alike (fast/normalization.cpp,
// plan::normalizesSamplesPerChannel). CPU only: the CUDA backend's normalization of channels-last samples takes one
// scale and one shift.
#pragma once

#include "plan/plan_model.h"

#include <cstddef>

namespace kiln::cpu
{

//! Folds into each FP32 normalization of whole samples (plan::normalizesWholeSamples) the element-wise product by a
//! per-channel constant ([C, 1, 1] or [1, C, 1, 1], or one value) that alone reads its output, and the element-wise
//! sum with one that alone reads the product's (either or both): the normalization's scale and shift become
//! constants [1, C, 1, 1] and it writes the last folded layer's output. Runs after sampleNormalizations and before
//! the point-wise chains are fused. Returns how many normalizations took an affine step.
size_t foldAffineIntoSampleNormalizations(plan::PlanModel& model);

} // namespace kiln::cpu
