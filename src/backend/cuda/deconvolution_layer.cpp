#include "backend/cuda/deconvolution_layer.h"

#include <algorithm>
#include <stdexcept>

namespace kiln::cuda
{

DeconvolutionLayer::DeconvolutionLayer(
    network::DeconvolutionParams const& params, nvinfer1::DataType dataType, LibraryHandles& handles)
    : mParams(params)
    , mDataType(dataType)
    , mHandles(handles)
    , mKernel(uploadWeights(params.kernel, dataType))
{
    cudnnConvolutionType(dataType); // rejects other types now, not at the first run
    if (!params.bias.empty())
    {
        mBias = uploadWeights(params.bias, dataType);
    }
}

void DeconvolutionLayer::prepare(cpu::Shape const& inputShape, cudaStream_t stream)
{
    mDescriptors.describe(mParams, inputShape, mDataType, true);
    cudnnHandle_t const handle = mHandles.cudnn(stream);
    int found = 0;
    cudnnConvolutionBwdDataAlgoPerf_t candidates[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    checkCudnn(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, mDescriptors.filter, mDescriptors.input,
                   mDescriptors.convolution, mDescriptors.output, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found,
                   candidates),
        "choosing a deconvolution algorithm");
    // The heuristics rank by expected speed; take the first that runs with the math type asked for.
    cudnnConvolutionBwdDataAlgoPerf_t* const end = candidates + found;
    cudnnConvolutionBwdDataAlgoPerf_t const* const chosen = std::find_if(
        candidates, end, [&](cudnnConvolutionBwdDataAlgoPerf_t const& c) { return mDescriptors.accepts(c); });
    if (chosen == end)
    {
        throw std::runtime_error("deconvolution: cuDNN offers no algorithm for this shape");
    }
    mAlgorithm = chosen->algo;
    checkCudnn(cudnnGetConvolutionBackwardDataWorkspaceSize(handle, mDescriptors.filter, mDescriptors.input,
                   mDescriptors.convolution, mDescriptors.output, mAlgorithm, &mWorkspaceBytes),
        "sizing the deconvolution's workspace");
    mPreparedShape = inputShape;
}

void DeconvolutionLayer::run(
    std::vector<cpu::ConstTensorView> const& inputs, std::vector<cpu::TensorView> const& outputs, cudaStream_t stream)
{
    if (inputs[0].type != mDataType || outputs[0].type != mDataType)
    {
        throw std::invalid_argument("deconvolution: the tensors' types differ from the type the layer was prepared for");
    }
    if (inputs[0].shape != mPreparedShape)
    {
        prepare(inputs[0].shape, stream);
    }
    if (outputs[0].count() == 0)
    {
        return;
    }
    mWorkspace.reserve(mWorkspaceBytes, stream);
    cudnnHandle_t const handle = mHandles.cudnn(stream);
    float const one = 1.0F;
    float const zero = 0.0F;
    checkCudnn(cudnnConvolutionBackwardData(handle, &one, mDescriptors.filter, mKernel.data(), mDescriptors.input,
                   inputs[0].data, mDescriptors.convolution, mAlgorithm, mWorkspace.data(), mWorkspaceBytes, &zero,
                   mDescriptors.output, outputs[0].data),
        "running the deconvolution");
    if (mBias.data() != nullptr)
    {
        checkCudnn(cudnnAddTensor(handle, &one, mDescriptors.bias, mBias.data(), &one, mDescriptors.output,
                       outputs[0].data),
            "adding the deconvolution's bias");
    }
}

} // namespace kiln::cuda
