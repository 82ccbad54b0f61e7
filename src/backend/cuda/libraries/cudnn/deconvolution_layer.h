// IDeconvolutionLayer on the GPU through cuDNN: the backward-data pass of the convolution
// that maps the layer's output back to its input, then the bias. The algorithm is the one
// the builder timed, else cuDNN's heuristic choice. FP32 runs without TF32, as the
// convolution does; data is kLINEAR.
#pragma once

#include "backend/cuda/libraries/cudnn/filter_layer.h"

namespace kiln::cuda
{

class DeconvolutionLayer final : public FilterLayer
{
public:
    DeconvolutionLayer(network::DeconvolutionParams const& params, AlgorithmChoice choice, nvinfer1::DataType dataType,
        LibraryHandles& handles);

private:
    size_t prepare(Shape const& inputShape, cudnnHandle_t handle) override;
    void compute(std::vector<ConstTensorView> const& inputs, TensorView const& output, cudnnHandle_t handle,
        cudaStream_t stream) override;
    //! cuDNN's fastest guess for the prepared descriptors, for plans built without timing.
    cudnnConvolutionBwdDataAlgo_t heuristicAlgorithm(cudnnHandle_t handle) const;

    network::DeconvolutionParams const& mParams;
    cudnnConvolutionBwdDataAlgo_t mAlgorithm{CUDNN_CONVOLUTION_BWD_DATA_ALGO_1};
};

} // namespace kiln::cuda
