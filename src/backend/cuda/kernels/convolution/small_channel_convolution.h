// Kiln's own kernel for a convolution over few input channels in FP16 channels-last: an image network's first layer,
// its RGB image read as kHWC8. cuDNN runs such a layer far below the tensor cores' rate (ResNet-50's 7x7 stem at
// batch 256: 1.22 ms in the fastest of its algorithms and graph engines, where the multiply-adds need about 0.2 ms on
// the tensor cores and the data about as long at memory's rate; this kernel takes 0.63). With eight stored channels,
// each tap of each input position is one 16-byte vector, so the convolution is a GEMM whose rows are output positions,
// whose columns are output maps, and whose k-steps of 16 are pairs of taps, read straight from the input without
// unfolding it. The builder times this kernel beside cuDNN's algorithms and keeps the fastest (convolution_timing.h).
#pragma once

#include "backend/cuda/libraries/cudnn/convolution_descriptors.h"
#include "core/tensor_view.h"
#include "network/layers/convolution.h"
#include "plan/plan_model.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::cuda
{

class SmallChannelConvolution
{
public:
    //! Whether this kernel runs `params` with `epilogue` on an input of `inputShape` (the layer's [N, C, H, W]) in
    //! `type`, stored in `format`: FP16, two spatial axes, no groups, channels-last with eight channels stored per
    //! position (kHWC8 stores 1 to 8 so), output maps a multiple of 8, a window small enough that two tiles' input
    //! regions and 64 maps' kernel fit in 200 KB of shared memory (ResNet's 7x7 stride-2 stem takes 98 KB, a 15x15
    //! kernel would not fit), and an epilogue of a ReLU at most (no residual).
    static bool takes(network::ConvolutionParams const& params, plan::Epilogue const& epilogue, Shape const& inputShape,
        nvinfer1::DataType type, TensorFormat format);

    //! Prepared for `geometry` (convolutionGeometry at the stored input shape, eight channels); `relu` applies the
    //! fused ReLU. Throws std::invalid_argument for a geometry `takes` refuses, or one whose tiles need more shared
    //! memory than the current GPU offers a block.
    SmallChannelConvolution(ConvolutionGeometry const& geometry, bool relu);

    //! Queues the convolution: `input` [N, H, W, 8], `kernel` [K, taps, 8] (uploadKernel's channels-last order),
    //! `bias` K values or nullptr, `output` [N, P, Q, K]; all FP16.
    void run(void const* input, void const* kernel, void const* bias, void* output, cudaStream_t stream) const;

    //! The sizes the kernel reads, 32-bit where a tensor's extents are.
    struct Problem
    {
        int64_t positions{0}; //!< output positions N * P * Q: the GEMM's rows
        int32_t height{0};
        int32_t width{0};
        int32_t outHeight{0};
        int32_t outWidth{0};
        int32_t maps{0}; //!< output channels K
        int32_t kernelWidth{0};
        int32_t taps{0};
        int32_t strideY{0};
        int32_t strideX{0};
        int32_t padY{0};
        int32_t padX{0};
        int32_t dilationY{0};
        int32_t dilationX{0};
        int32_t images{0};
        //! The input rows and columns one tile of output positions reads (a block copies them to shared memory), and
        //! the columns kept per residue modulo the stride (shared_region in the kernel).
        int32_t regionRows{0};
        int32_t regionColumns{0};
        int32_t regionPart{0};
        bool relu{false};
    };

private:
    Problem mProblem;
    int32_t mBlocks{0}; //!< persistent blocks per group of 64 maps: as many as the GPU holds at once
    size_t mSharedBytes{0};
};

} // namespace kiln::cuda
