// IDeconvolutionLayer on the GPU through cuDNN: the backward-data pass of the convolution
// that maps the layer's output back to its input, then the bias. Weights are uploaded once;
// descriptors and algorithm are chosen again only when the input shape changes. FP32 runs
// without TF32, as the convolution does.
#pragma once

#include "backend/cuda/convolution_descriptors.h"
#include "backend/cuda/device_buffer.h"
#include "backend/cuda/device_layer.h"
#include "network/layers/convolution.h"

namespace kiln::cuda
{

class DeconvolutionLayer final : public DeviceLayer
{
public:
    DeconvolutionLayer(network::DeconvolutionParams const& params, nvinfer1::DataType dataType, LibraryHandles& handles);

    void run(std::vector<cpu::ConstTensorView> const& inputs, std::vector<cpu::TensorView> const& outputs,
        cudaStream_t stream) override;

private:
    void prepare(cpu::Shape const& inputShape, cudaStream_t stream);

    network::DeconvolutionParams const& mParams;
    nvinfer1::DataType mDataType;
    LibraryHandles& mHandles;
    DeviceBuffer mKernel;
    DeviceBuffer mBias; //!< empty when the layer has no bias
    DeviceBuffer mWorkspace;
    cpu::Shape mPreparedShape;
    ConvolutionDescriptors mDescriptors;
    cudnnConvolutionBwdDataAlgo_t mAlgorithm{CUDNN_CONVOLUTION_BWD_DATA_ALGO_1};
    size_t mWorkspaceBytes{0};
};

} // namespace kiln::cuda
