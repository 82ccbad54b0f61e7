#include "backend/cuda/libraries/cudnn/deconvolution_layer.h"

#include "backend/cuda/layer_kernels.h"
#include <stdexcept>

namespace kiln::cuda
{

DeconvolutionLayer::DeconvolutionLayer(network::DeconvolutionParams const& params, AlgorithmChoice choice,
    nvinfer1::DataType dataType, LibraryHandles& handles)
    : FilterLayer("deconvolution", params, choice, dataType, TensorFormat::kLINEAR, handles)
    , mParams(params)
{
    mKernel = uploadWeights(params.kernel, dataType);
}

size_t DeconvolutionLayer::prepare(Shape const& inputShape, cudnnHandle_t handle)
{
    mDescriptors.describeTransposed(mParams, inputShape, mDataType);
    return storedOrHeuristic(handle, mAlgorithm, [&] { return heuristicAlgorithm(handle); });
}

cudnnConvolutionBwdDataAlgo_t DeconvolutionLayer::heuristicAlgorithm(cudnnHandle_t handle) const
{
    int found = 0;
    cudnnConvolutionBwdDataAlgoPerf_t candidates[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    checkCudnn(
        cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, mDescriptors.filter, mDescriptors.input,
            mDescriptors.convolution, mDescriptors.output, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found, candidates),
        "choosing a deconvolution algorithm");
    return heuristicChoice(candidates, found);
}

void DeconvolutionLayer::compute(
    std::vector<ConstTensorView> const& inputs, TensorView const& output, cudnnHandle_t handle, cudaStream_t)
{
    float const one = 1.0F;
    float const zero = 0.0F;
    checkCudnn(cudnnConvolutionBackwardData(handle, &one, mDescriptors.filter, mKernel.data(), mDescriptors.input,
                   inputs[0].data, mDescriptors.convolution, mAlgorithm, mWorkspace.data(), mWorkspaceBytes, &zero,
                   mDescriptors.output, output.data),
        "running the deconvolution");
    addBias(handle, output);
}

std::unique_ptr<DeviceLayer> lower(network::DeconvolutionParams const& params, LayerContext const& context)
{
    return std::make_unique<DeconvolutionLayer>(
        params, AlgorithmChoice::decode(context.record.backendChoice), context.dataType, context.handles);
}

} // namespace kiln::cuda
