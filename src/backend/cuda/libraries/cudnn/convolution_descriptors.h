// cuDNN's description of one convolution or deconvolution at one input shape: what running
// those layers and timing their algorithms at build time need. A deconvolution is cuDNN's
// backward-data pass of the convolution that maps its output back to its input.
#pragma once

#include "backend/cuda/memory/device_buffer.h"
#include "core/tensor_view.h"
#include "network/layers/convolution.h"

#include <cudnn.h>

#include <cstdint>

namespace kiln::cuda
{

//! Throws std::runtime_error naming `what` when `status` is an error.
void checkCudnn(cudnnStatus_t status, char const* what);

//! FP32 or FP16; throws std::invalid_argument for types the CUDA convolution does not take.
cudnnDataType_t cudnnConvolutionType(nvinfer1::DataType type);

//! Weights in `type` on the device: FP32 as given, or rounded to FP16 once here rather than on every run.
DeviceBuffer uploadWeights(network::WeightsBuffer const& weights, nvinfer1::DataType type);

//! The channel count cuDNN convolves `channels` input channels as, read in `format`: kHWC8 pads them to a multiple of
//! 8 (an RGB image's 3 read as 8, the rest zeros), which FP16 tensor-core kernels want. Unchanged elsewhere.
int64_t cudnnChannels(int64_t channels, TensorFormat format);

//! A convolution's kernel [K, C / groups, k...] uploaded as uploadWeights does, in the order cuDNN reads it for data
//! in `format`: as given for kLINEAR, [K, k..., C / groups] for kHWC and kHWC8, with zeros for the channels beyond C
//! up to `channels` (cudnnChannels).
DeviceBuffer uploadKernel(
    network::ConvolutionParams const& params, nvinfer1::DataType type, TensorFormat format, int64_t channels);

//! cuDNN's view of a (de)convolution at one input shape: dims [N, C, spatial...] of its input and output, its kernel
//! [forward outputs, forward inputs / groups, k...], and the window, all with at least two spatial axes (a 1-D layer
//! runs over a height of 1); padding is symmetric.
struct ConvolutionGeometry
{
    Shape input;
    Shape output;
    Shape filter;
    Shape padding;
    Shape stride;
    Shape dilation;
    Shape layerOutput; //!< the layer's own output shape, before any widening
};

//! The geometry of `params` on an input of `inputShape` (a deconvolution's when `transposed`). Throws
//! std::invalid_argument for what cuDNN cannot do (asymmetric padding).
ConvolutionGeometry convolutionGeometry(
    network::WindowedFilterParams const& params, Shape const& inputShape, bool transposed);

//! Strides of `dims` ([N, C, spatial...], or a kernel's [K, C, k...]) stored in `format`: packed for kLINEAR; for kHWC
//! and kHWC8 (whose padded channels `dims` then counts) the channels innermost, then the spatial axes in order, then
//! the outermost axis.
Shape stridesIn(Shape const& dims, TensorFormat format);

//! Whether `algorithm` convolves in a transformed domain (FFT, unfused Winograd) rather than directly.
bool transformsData(cudnnConvolutionFwdAlgo_t algorithm);
bool transformsData(cudnnConvolutionBwdDataAlgo_t algorithm);

class ConvolutionDescriptors
{
public:
    ConvolutionDescriptors();
    ~ConvolutionDescriptors();
    ConvolutionDescriptors(ConvolutionDescriptors const&) = delete;
    ConvolutionDescriptors& operator=(ConvolutionDescriptors const&) = delete;

    //! Describes convolution `params` on an input of `inputShape` in `type`, its data and kernel stored in
    //! `format` (kLINEAR or kHWC). FP32 computes without TF32 (CUDNN_FMA_MATH), so results agree with the CPU
    //! reference; FP16 on tensor cores. Throws std::invalid_argument for what cuDNN cannot do (asymmetric padding).
    void describe(network::WindowedFilterParams const& params, Shape const& inputShape, nvinfer1::DataType type,
        TensorFormat format);

    //! The same for deconvolution `params` (kLINEAR), as cuDNN's backward-data pass: `input` and `output` describe
    //! the layer's own input and output, cuDNN's dy and dx.
    void describeTransposed(
        network::WindowedFilterParams const& params, Shape const& inputShape, nvinfer1::DataType type);

    //! Whether cuDNN may run `candidate` here with the math type `describe` asked for.
    template <typename AlgorithmPerformance>
    bool accepts(AlgorithmPerformance const& candidate) const
    {
        // FP32 must not fall back to TF32 tensor-op math, which would lose the agreement with the CPU reference.
        // FP16 must not go through FFT or unfused Winograd transforms, whose FP16 intermediates lose more than the
        // FP16 tolerance allows (seen as 2-ulp errors in a deconvolution when timing chose one). Neither may
        // accumulate through atomics, whose order changes from run to run: a plan gives the same results every run.
        return candidate.status == CUDNN_STATUS_SUCCESS && candidate.determinism == CUDNN_DETERMINISTIC
            && (mType == nvinfer1::DataType::kHALF ? !transformsData(candidate.algo)
                                                   : candidate.mathType == CUDNN_FMA_MATH);
    }

    //! The first of cuDNN's `candidates` (ranked by speed, heuristic or timed) that this description accepts and that
    //! needs at most `workspaceLimit` bytes, or nullptr.
    template <typename AlgorithmPerformance>
    AlgorithmPerformance const* firstAccepted(
        AlgorithmPerformance const* candidates, int found, size_t workspaceLimit = SIZE_MAX) const
    {
        for (int i = 0; i < found; ++i)
        {
            if (accepts(candidates[i]) && candidates[i].memory <= workspaceLimit)
            {
                return &candidates[i];
            }
        }
        return nullptr;
    }

    //! Bytes of workspace `algorithm` needs, or -1 when cuDNN cannot run it for this description.
    int64_t workspaceBytes(cudnnHandle_t handle, cudnnConvolutionFwdAlgo_t algorithm) const;
    //! The same for a deconvolution's backward-data `algorithm`.
    int64_t workspaceBytes(cudnnHandle_t handle, cudnnConvolutionBwdDataAlgo_t algorithm) const;

    Shape const& outputShape() const
    {
        return mOutputShape;
    }

    cudnnTensorDescriptor_t input{nullptr};
    cudnnTensorDescriptor_t output{nullptr};
    cudnnTensorDescriptor_t bias{nullptr};
    cudnnFilterDescriptor_t filter{nullptr};
    cudnnConvolutionDescriptor_t convolution{nullptr};

private:
    void describe(network::WindowedFilterParams const& params, Shape const& inputShape, nvinfer1::DataType type,
        TensorFormat format, bool transposed);

    nvinfer1::DataType mType{nvinfer1::DataType::kFLOAT};
    Shape mOutputShape;
};

//! cuDNN's fused activation: a ReLU (NaN stays NaN through it, as on the CPU reference) or the identity.
class FusedActivation
{
public:
    explicit FusedActivation(bool relu);
    ~FusedActivation();
    FusedActivation(FusedActivation const&) = delete;
    FusedActivation& operator=(FusedActivation const&) = delete;

    cudnnActivationDescriptor_t get() const
    {
        return mDescriptor;
    }

private:
    cudnnActivationDescriptor_t mDescriptor{nullptr};
};

//! The tensors of one fused per-call convolution, as device addresses.
struct FusedConvolutionData
{
    void const* input;
    void const* kernel;
    void const* bias;     //!< always: cuDNN's fused call adds one (zeros for a layer without)
    void const* residual; //!< shaped as the output; nullptr for none
    void* output;
    void* workspace;
    size_t workspaceBytes;
};

//! activation(convolution + residual + bias) in cuDNN's one call (cudnnConvolutionBiasActivationForward), as a layer
//! with an epilogue runs a per-call `algorithm`. Returns cuDNN's status (it runs the identity activation with
//! CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM only).
cudnnStatus_t convolveWithEpilogue(cudnnHandle_t handle, ConvolutionDescriptors const& descriptors,
    cudnnConvolutionFwdAlgo_t algorithm, FusedActivation const& activation, FusedConvolutionData const& data);

} // namespace kiln::cuda
