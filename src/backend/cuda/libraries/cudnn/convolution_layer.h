// IConvolutionLayer on the GPU through cuDNN. The algorithm is the one the builder timed, else
// cuDNN's heuristic choice: an engine of cuDNN's graph API (convolution_graph.h), an algorithm of
// its per-call API, Kiln's kernel for few input channels (small_channel_convolution.h) or for depthwise
// convolutions (depthwise_convolution.h), or one
// cuBLASLt product for a 1x1 convolution (pointwise_convolution.h) or for one whose windows tile the input
// (patch_convolution.h). A fused bias, ReLU and residual run in the same call.
// FP32 runs without TF32, so results match the CPU reference to FP32 tolerances; FP16 uses
// tensor cores with FP32 accumulation. Data may be kLINEAR or kHWC, as the builder chose
// (FP16 tensor cores run fastest channels-last, with a multiple of 8 channels: an RGB input
// is read as kHWC8, which the reformatter pads with zero channels).
#pragma once

#include "backend/cuda/kernels/convolution/depthwise_convolution.h"
#include "backend/cuda/kernels/convolution/small_channel_convolution.h"
#include "backend/cuda/libraries/cublaslt/patch_convolution.h"
#include "backend/cuda/libraries/cublaslt/pointwise_convolution.h"
#include "backend/cuda/libraries/cudnn/convolution_graph.h"
#include "backend/cuda/libraries/cudnn/filter_layer.h"
#include "plan/plan_model.h"

#include <optional>

namespace kiln::cuda
{

class ConvolutionLayer final : public FilterLayer
{
public:
    //! Runs `params` with the fused `epilogue` and the builder's algorithm `choice`, on data of `dataType` stored in
    //! `format`.
    ConvolutionLayer(network::ConvolutionParams const& params, plan::Epilogue const& epilogue, AlgorithmChoice choice,
        nvinfer1::DataType dataType, TensorFormat format, LibraryHandles& handles);

private:
    size_t prepare(Shape const& inputShape, cudnnHandle_t handle) override;
    void compute(std::vector<ConstTensorView> const& inputs, TensorView const& output, cudnnHandle_t handle,
        cudaStream_t stream) override;
    //! cuDNN's fastest guess for the prepared descriptors, for plans built without timing.
    cudnnConvolutionFwdAlgo_t heuristicAlgorithm(cudnnHandle_t handle) const;

    //! Whether this run adds the bias (and any fused epilogue) in cuDNN's fused call: always with an epilogue, and
    //! for a bias alone where the algorithm allows it (cuDNN fuses an identity activation with one algorithm only).
    bool fusesEpilogue() const;

    //! The input's residual operand, checked against the output, or nullptr without one.
    void const* residualOf(std::vector<ConstTensorView> const& inputs, TensorView const& output) const;

    network::ConvolutionParams const& mParams;
    plan::Epilogue const& mEpilogue;
    int64_t mChannels{0}; //!< the input channels cuDNN reads (cudnnChannels): more than the tensor's in kHWC8
    std::optional<FusedActivation> mActivation; //!< the fused ReLU, or identity for a bias alone; none without bias
    cudnnConvolutionFwdAlgo_t mAlgorithm{CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM};
    //! The graph and plan of the builder's graph-engine choice at the prepared shape; empty when the per-call API
    //! runs the layer (mAlgorithm).
    std::optional<ConvolutionGraph> mGraph;
    std::optional<ConvolutionGraphPlan> mGraphPlan;
    //! The builder's choice of Kiln's own kernel, prepared for the shape; empty when cuDNN runs the layer.
    std::optional<SmallChannelConvolution> mSmallChannel;
    //! The builder's choice of Kiln's depthwise kernel, prepared for the shape; empty when another runs the layer.
    std::optional<DepthwiseConvolution> mDepthwise;
    //! The weights as Kiln's depthwise kernel reads them, where the builder chose it; mKernel stays for cuDNN, which
    //! runs the layer at shapes the kernel does not take.
    DeviceBuffer mDepthwiseKernel;
    //! The builder's choice of one cuBLASLt product, prepared for the shape; empty when cuDNN runs the layer.
    std::optional<PointwiseConvolution> mPointwise;
    //! The builder's choice of one cuBLASLt product over the unfolded windows; empty when another runs the layer.
    std::optional<PatchConvolution> mPatch;
};

} // namespace kiln::cuda
