#include "backend/cuda/convolution_layer.h"

#include "backend/cuda/cuda_error.h"

#include <stdexcept>
#include <string>

namespace kiln::cuda
{
ConvolutionLayer::ConvolutionLayer(
    network::ConvolutionParams const& params, nvinfer1::DataType dataType, LibraryHandles& handles)
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
    else if (params.epilogue.any())
    {
        // cuDNN's fused convolution always adds a bias: give it zeros.
        std::vector<float> const values(static_cast<size_t>(params.nbOutputMaps), 0.0F);
        mBias = uploadWeights(network::WeightsBuffer(nvinfer1::Weights{nvinfer1::DataType::kFLOAT, values.data(),
                           static_cast<int64_t>(values.size())}),
            dataType);
    }
    if (params.epilogue.any())
    {
        checkCudnn(cudnnCreateActivationDescriptor(&mActivation), "creating a descriptor");
        // NaN stays NaN through the ReLU, as on the CPU reference.
        checkCudnn(cudnnSetActivationDescriptor(mActivation, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0),
            "describing the ReLU");
    }
}

ConvolutionLayer::~ConvolutionLayer()
{
    if (mActivation != nullptr)
    {
        cudnnDestroyActivationDescriptor(mActivation);
    }
}

void ConvolutionLayer::prepare(cpu::Shape const& inputShape, cudaStream_t stream)
{
    mDescriptors.describe(mParams, inputShape, mDataType);
    cudnnHandle_t const handle = mHandles.cudnn(stream);
    // The builder timed its algorithm at one shape; should cuDNN refuse it at this one, its heuristics choose.
    int64_t workspace = -1;
    if (mParams.cudnnAlgorithm >= 0)
    {
        mAlgorithm = static_cast<cudnnConvolutionFwdAlgo_t>(mParams.cudnnAlgorithm);
        workspace = mDescriptors.workspaceBytes(handle, mAlgorithm);
    }
    if (workspace < 0)
    {
        mAlgorithm = heuristicAlgorithm(handle);
        workspace = mDescriptors.workspaceBytes(handle, mAlgorithm);
    }
    if (workspace < 0)
    {
        throw std::runtime_error("convolution: cuDNN cannot size the workspace of its own algorithm choice");
    }
    mWorkspaceBytes = static_cast<size_t>(workspace);
    mPreparedShape = inputShape;
}

cudnnConvolutionFwdAlgo_t ConvolutionLayer::heuristicAlgorithm(cudnnHandle_t handle) const
{
    int found = 0;
    cudnnConvolutionFwdAlgoPerf_t candidates[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    checkCudnn(cudnnGetConvolutionForwardAlgorithm_v7(handle, mDescriptors.input, mDescriptors.filter,
                   mDescriptors.convolution, mDescriptors.output, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, candidates),
        "choosing an algorithm");
    for (int i = 0; i < found; ++i)
    {
        // The heuristics rank by expected speed; take the first that runs with the math type asked for.
        if (mDescriptors.accepts(candidates[i]))
        {
            return candidates[i].algo;
        }
    }
    throw std::runtime_error("convolution: cuDNN offers no algorithm for this shape");
}

void ConvolutionLayer::run(
    std::vector<cpu::ConstTensorView> const& inputs, std::vector<cpu::TensorView> const& outputs, cudaStream_t stream)
{
    if (inputs[0].type != mDataType || outputs[0].type != mDataType)
    {
        throw std::invalid_argument("convolution: the tensors' types differ from the type the layer was prepared for");
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
    if (mParams.epilogue.any())
    {
        // relu(convolution + residual + bias) in one call; without a residual, alpha2 = 0 lets z alias the output.
        bool const residual = mParams.epilogue.addsResidual;
        if (residual && (inputs.size() < 2 || inputs[1].type != mDataType || inputs[1].shape != outputs[0].shape))
        {
            throw std::invalid_argument("convolution: the fused residual input differs from the output in shape or type");
        }
        float const alpha2 = residual ? 1.0F : 0.0F;
        void const* z = residual ? inputs[1].data : outputs[0].data;
        checkCudnn(cudnnConvolutionBiasActivationForward(handle, &one, mDescriptors.input, inputs[0].data,
                       mDescriptors.filter, mKernel.data(), mDescriptors.convolution, mAlgorithm, mWorkspace.data(),
                       mWorkspaceBytes, &alpha2, mDescriptors.output, z, mDescriptors.bias, mBias.data(), mActivation,
                       mDescriptors.output, outputs[0].data),
            "running with the fused epilogue");
        return;
    }
    checkCudnn(cudnnConvolutionForward(handle, &one, mDescriptors.input, inputs[0].data, mDescriptors.filter,
                   mKernel.data(), mDescriptors.convolution, mAlgorithm, mWorkspace.data(), mWorkspaceBytes, &zero,
                   mDescriptors.output, outputs[0].data),
        "running");
    if (mBias.data() != nullptr)
    {
        checkCudnn(cudnnAddTensor(handle, &one, mDescriptors.bias, mBias.data(), &one, mDescriptors.output, outputs[0].data), "adding the bias");
    }
}

} // namespace kiln::cuda
