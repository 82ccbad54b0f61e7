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

//! How the CUDA kernels spread a normalization over blocks. With at least kRowsForOneBlockEach rows, one block per
//! row. With fewer, each row is cut into `chunks` chunks of `chunkLength` elements (a block each), so that a few
//! large groups (GroupNorm with 32 groups at batch 1, say) still occupy the whole GPU: a first pass writes each
//! chunk's count, mean and sum of squared deviations to the workspace, a second combines a row's chunks and
//! normalizes one chunk.
struct GroupNormSplit
{
    static constexpr int64_t kRowsForOneBlockEach = 512;
    static constexpr int64_t kTargetBlocks = 1024;
    static constexpr int64_t kMinChunkLength = 2048;

    int64_t chunks{1};
    int64_t chunkLength{0};
};

GroupNormSplit groupNormSplit(GroupNormShape const& shape);
//! The workspace the CUDA kernels need for `shape`, or for any shape with at most as many rows.
size_t groupNormWorkspaceSize(GroupNormShape const& shape);

//! The host kernel: x and y hold N * C * spatial floats. Statistics accumulate in double.
void groupNormHost(
    std::vector<float> const& x, std::vector<float>& y, GroupNormShape const& shape, GroupNormAffine const& affine);

} // namespace kiln::plugins
