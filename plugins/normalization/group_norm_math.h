// The arithmetic InstanceNormalization_TRT and GroupNormalizationPlugin share. A tensor [N, C, spatial...] is split
// into N * groups rows of C / groups contiguous channels (instance normalization: one channel per group); each row
// is normalized by its own mean and (biased) variance, then scaled and shifted per channel, and optionally passed
// through a leaky ReLU (InstanceNormalization_TRT's relu and alpha fields).
#pragma once

#include <NvInferRuntime.h>

#include <cstdint>
#include <vector>

namespace kiln::plugins
{

struct GroupNormShape
{
    int64_t batch{0};
    int64_t channels{0};
    int64_t groups{1};
    int64_t spatial{1}; //!< elements per channel: the product of the dimensions after C
};

//! What is applied after normalizing: y = scale[c] * x_hat + bias[c], then y < 0 ? alpha * y : y where leakyRelu.
struct GroupNormAffine
{
    float const* scale{nullptr}; //!< C values (host or device memory, as the kernel runs)
    float const* bias{nullptr};  //!< C values
    float epsilon{0.F};
    bool leakyRelu{false};
    float alpha{0.F};
};

//! The shape of a [N, C, spatial...] tensor split into `groups` groups of channels (groups divides C).
GroupNormShape groupNormShapeOf(nvinfer1::Dims const& dims, int64_t groups);

//! The host kernel: x and y hold N * C * spatial floats. Statistics accumulate in double.
void groupNormHost(
    std::vector<float> const& x, std::vector<float>& y, GroupNormShape const& shape, GroupNormAffine const& affine);

} // namespace kiln::plugins
