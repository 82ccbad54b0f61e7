// The builder's choice of a convolution's or deconvolution's cuDNN algorithm: every algorithm of
// cuDNN's per-call API is run on the GPU at the layer's shape (cudnnFindConvolutionForwardAlgorithmEx,
// cudnnFindConvolutionBackwardDataAlgorithmEx), and for a convolution also the first engines that
// cuDNN's graph API ranks for the layer with its fused epilogue (convolution_graph.h) and, where it
// takes the layer, Kiln's small-channel kernel (small_channel_convolution.h) and a 1x1 convolution's
// cuBLASLt product (pointwise_convolution.h). The fastest wins.
#pragma once

#include "backend/cuda/libraries/cudnn/convolution_descriptors.h"
#include "backend/cuda/passes/convolution_tuning.h"
#include "backend/cuda/tuning/event_stopwatch.h"

#include <cublasLt.h>
#include <cudnn.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace kiln::cuda
{

//! One build's timer: a cuDNN handle and scratch buffers, kept for all the layers it times.
class ConvolutionTimer final : public AlgorithmTimer
{
public:
    //! Buffers come from `allocator` (nullptr: Kiln's default). Throws std::runtime_error when cuDNN cannot start.
    explicit ConvolutionTimer(nvinfer1::IGpuAllocator* allocator);
    ~ConvolutionTimer() override;
    ConvolutionTimer(ConvolutionTimer const&) = delete;
    ConvolutionTimer& operator=(ConvolutionTimer const&) = delete;

    //! FP32 is timed without TF32, as the layer runs.
    Result fastest(network::ConvolutionParams const& params, plan::Epilogue const& epilogue, Shape const& inputShape,
        nvinfer1::DataType type, TensorFormat format, size_t workspaceLimit) override;
    Result fastestDeconvolution(network::DeconvolutionParams const& params, Shape const& inputShape,
        nvinfer1::DataType type, size_t workspaceLimit) override;

private:
    //! Grows the scratch buffers for the layer `descriptors` describe; returns the workspace offered to cuDNN.
    size_t prepareScratch(ConvolutionDescriptors const& descriptors, int64_t kernelElements, Shape const& inputShape,
        nvinfer1::DataType type, size_t workspaceLimit);
    //! The fastest of the first graph engines for the convolution, timed as the layer runs them (epilogue
    //! included); none when no graph engine takes it.
    std::optional<Result> fastestGraphEngine(network::ConvolutionParams const& params, plan::Epilogue const& epilogue,
        Shape const& inputShape, nvinfer1::DataType type, TensorFormat format, size_t workspace);
    //! The time of per-call `algorithm` as the layer runs it: with the fused bias, residual and ReLU in one call where
    //! the layer has an epilogue (and cuDNN fuses it with the algorithm).
    float timePerCall(ConvolutionDescriptors const& descriptors, cudnnConvolutionFwdAlgo_t algorithm,
        plan::Epilogue const& epilogue, size_t workspace);
    //! The mean time of `run` over a few runs on the default stream, after one that loads its kernels.
    float timeRuns(std::function<void()> const& run);
    //! The first of cuDNN's `results` (sorted by time) that runs in the layer's math type, within `workspace`.
    template <typename Performance>
    Result firstAccepted(
        ConvolutionDescriptors const& descriptors, Performance const* results, int found, size_t workspace) const;

    struct Scratch;
    nvinfer1::IGpuAllocator* mAllocator;
    cudnnHandle_t mHandle{nullptr};
    cublasLtHandle_t mCublasLt{nullptr};
    EventStopwatch mStopwatch;
    std::unique_ptr<Scratch> mScratch;
};

} // namespace kiln::cuda
