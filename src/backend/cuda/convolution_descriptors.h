// cuDNN's description of one convolution or deconvolution at one input shape: what running
// those layers and timing their algorithms at build time need. A deconvolution is cuDNN's
// backward-data pass of the convolution that maps its output back to its input.
#pragma once

#include "backend/cpu/tensor_view.h"
#include "backend/cuda/device_buffer.h"
#include "network/layers/convolution.h"

#include <cudnn.h>

namespace kiln::cuda
{

//! Throws std::runtime_error naming `what` when `status` is an error.
void checkCudnn(cudnnStatus_t status, char const* what);

//! FP32 or FP16; throws std::invalid_argument for types the CUDA convolution does not take.
cudnnDataType_t cudnnConvolutionType(nvinfer1::DataType type);

//! Weights in `type` on the device: FP32 as given, or rounded to FP16 once here rather than on every run.
DeviceBuffer uploadWeights(network::WeightsBuffer const& weights, nvinfer1::DataType type);

class ConvolutionDescriptors
{
public:
    ConvolutionDescriptors();
    ~ConvolutionDescriptors();
    ConvolutionDescriptors(ConvolutionDescriptors const&) = delete;
    ConvolutionDescriptors& operator=(ConvolutionDescriptors const&) = delete;

    //! Describes `params` on an input of `inputShape` in `type`, a deconvolution when `transposed`. `input` and
    //! `output` describe the layer's own input and output (for a deconvolution, cuDNN's dy and dx). FP32 computes
    //! without TF32 (CUDNN_FMA_MATH), so results agree with the CPU reference; FP16 on tensor cores. Throws
    //! std::invalid_argument for what cuDNN cannot do (asymmetric padding).
    void describe(network::WindowedFilterParams const& params, cpu::Shape const& inputShape, nvinfer1::DataType type,
        bool transposed = false);

    //! Whether cuDNN may run `candidate` here with the math type `describe` asked for.
    template <typename AlgorithmPerformance>
    bool accepts(AlgorithmPerformance const& candidate) const
    {
        // FP32 must not fall back to TF32 tensor-op math, which would lose the agreement with the CPU reference.
        return candidate.status == CUDNN_STATUS_SUCCESS
            && (mType == nvinfer1::DataType::kHALF || candidate.mathType == CUDNN_FMA_MATH);
    }

    //! Bytes of workspace `algorithm` needs, or -1 when cuDNN cannot run it for this description.
    int64_t workspaceBytes(cudnnHandle_t handle, cudnnConvolutionFwdAlgo_t algorithm) const;

    cpu::Shape const& outputShape() const
    {
        return mOutputShape;
    }

    cudnnTensorDescriptor_t input{nullptr};
    cudnnTensorDescriptor_t output{nullptr};
    cudnnTensorDescriptor_t bias{nullptr};
    cudnnFilterDescriptor_t filter{nullptr};
    cudnnConvolutionDescriptor_t convolution{nullptr};

private:
    nvinfer1::DataType mType{nvinfer1::DataType::kFLOAT};
    cpu::Shape mOutputShape;
};

} // namespace kiln::cuda
