// IConvolutionLayer on the GPU through cuDNN: weights uploaded once in the layer's data
// type, descriptors and the algorithm chosen again only when the input shape changes.
// FP32 runs without TF32, so results match the CPU reference to FP32 tolerances; FP16
// uses tensor cores with FP32 accumulation.
#pragma once

#include "backend/cuda/device_buffer.h"
#include "backend/cuda/device_layer.h"
#include "network/layers/convolution.h"

namespace kiln::cuda
{

class ConvolutionLayer final : public DeviceLayer
{
public:
    ConvolutionLayer(network::ConvolutionParams const& params, nvinfer1::DataType dataType, LibraryHandles& handles);
    ~ConvolutionLayer() override;

    void run(std::vector<cpu::ConstTensorView> const& inputs, std::vector<cpu::TensorView> const& outputs,
        cudaStream_t stream) override;

private:
    //! Descriptors and algorithm for `inputShape`; throws std::invalid_argument for what cuDNN cannot do.
    void prepare(cpu::Shape const& inputShape, cudaStream_t stream);

    network::ConvolutionParams const& mParams;
    nvinfer1::DataType mDataType;
    LibraryHandles& mHandles;
    DeviceBuffer mKernel;
    DeviceBuffer mBias; //!< empty when the layer has no bias
    DeviceBuffer mWorkspace;
    cpu::Shape mPreparedShape; //!< the input shape the descriptors below describe
    cudnnTensorDescriptor_t mInput{nullptr};
    cudnnTensorDescriptor_t mOutput{nullptr};
    cudnnTensorDescriptor_t mBiasDesc{nullptr};
    cudnnFilterDescriptor_t mFilter{nullptr};
    cudnnConvolutionDescriptor_t mConvolution{nullptr};
    cudnnConvolutionFwdAlgo_t mAlgorithm{CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM};
    size_t mWorkspaceBytes{0};
};

} // namespace kiln::cuda
