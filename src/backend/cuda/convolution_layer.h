// IConvolutionLayer on the GPU through cuDNN: weights uploaded once in the layer's data
// type, descriptors prepared again only when the input shape changes. The algorithm is the
// one the builder timed, else cuDNN's heuristic choice. A fused ReLU (and residual) runs in
// the same cuDNN call. FP32 runs without TF32, so results match the CPU reference to FP32
// tolerances; FP16 uses tensor cores with FP32 accumulation.
#pragma once

#include "backend/cuda/convolution_descriptors.h"
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
    //! cuDNN's fastest guess for the prepared descriptors, for plans built without timing.
    cudnnConvolutionFwdAlgo_t heuristicAlgorithm(cudnnHandle_t handle) const;

    network::ConvolutionParams const& mParams;
    nvinfer1::DataType mDataType;
    LibraryHandles& mHandles;
    DeviceBuffer mKernel;
    DeviceBuffer mBias; //!< empty when the layer has no bias and no fused epilogue (which needs one)
    DeviceBuffer mWorkspace;
    cpu::Shape mPreparedShape; //!< the input shape the descriptors below describe
    ConvolutionDescriptors mDescriptors;
    cudnnActivationDescriptor_t mActivation{nullptr}; //!< the fused ReLU, when the builder fused one
    cudnnConvolutionFwdAlgo_t mAlgorithm{CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM};
    size_t mWorkspaceBytes{0};
};

} // namespace kiln::cuda
