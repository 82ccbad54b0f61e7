#include "backend/cuda/libraries/cudnn/convolution_layer.h"

#include "backend/cuda/layer_kernels.h"
#include "network/layers/layer_utils.h"

#include <stdexcept>
#include <string>

namespace kiln::cuda
{

ConvolutionLayer::ConvolutionLayer(network::ConvolutionParams const& params, plan::Epilogue const& epilogue,
    AlgorithmChoice choice, nvinfer1::DataType dataType, TensorFormat format, LibraryHandles& handles)
    : FilterLayer("convolution", params, choice, dataType, format, handles)
    , mParams(params)
    , mEpilogue(epilogue)
{
    int64_t const taps = volume(network::dimsToVector(params.kernelSize));
    int64_t const channels = params.nbOutputMaps > 0 && taps > 0
        ? params.kernel.count() / (params.nbOutputMaps * taps) * params.nbGroups
        : 0;
    mChannels = cudnnChannels(channels, format);
    mKernel = uploadKernel(params, dataType, format, mChannels / params.nbGroups);
    if (choice.isDepthwiseKernel() && params.nbGroups == channels)
    {
        mDepthwiseKernel = DepthwiseConvolution::uploadKernel(params, dataType, format);
    }
    if (epilogue.any() && mBias.data() == nullptr)
    {
        // cuDNN's fused convolution always adds a bias: give it zeros.
        std::vector<float> const values(static_cast<size_t>(params.nbOutputMaps), 0.0F);
        mBias = uploadWeights(network::WeightsBuffer(nvinfer1::Weights{
                                  nvinfer1::DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())}),
            dataType);
    }
    if (mBias.data() != nullptr)
    {
        mActivation.emplace(epilogue.relu());
    }
}

size_t ConvolutionLayer::prepare(Shape const& inputShape, cudnnHandle_t handle)
{
    Shape shape = inputShape;
    if (shape.size() > 1 && shape[1] != mChannels)
    {
        if (mChannels != cudnnChannels(shape[1], mInputFormat))
        {
            throw std::invalid_argument("convolution: the input has " + std::to_string(shape[1])
                + " channels, which the kernel's weights do not fit");
        }
        shape[1] = mChannels;
    }
    mDescriptors.describe(mParams, shape, mDataType, mFormat);
    mGraphPlan.reset();
    mGraph.reset();
    mSmallChannel.reset();
    mDepthwise.reset();
    mPointwise.reset();
    mPatch.reset();
    if (mChoice.isDepthwiseKernel() && mInputFormat == mFormat
        && DepthwiseConvolution::takes(mParams, mEpilogue, inputShape, mDataType, mFormat))
    {
        mDepthwise.emplace(
            convolutionGeometry(mParams, shape, false), mDataType, mFormat, mEpilogue.relu(), mChoice.depthwiseStrip());
        return 0;
    }
    if (mChoice == AlgorithmChoice::kilnKernel()
        && SmallChannelConvolution::takes(mParams, mEpilogue, inputShape, mDataType, mInputFormat))
    {
        try
        {
            mSmallChannel.emplace(convolutionGeometry(mParams, shape, false), mEpilogue.relu());
            return 0;
        }
        catch (std::invalid_argument const&)
        {
            // A plan built on a GPU with more shared memory a block than this one: cuDNN's heuristics choose.
        }
    }
    if (mChoice.source == AlgorithmChoice::Source::kGEMM)
    {
        try
        {
            if (PointwiseConvolution::takes(mParams, mEpilogue, inputShape, mDataType, mInputFormat))
            {
                mPointwise.emplace(convolutionGeometry(mParams, shape, false), mDataType, mBias.data(),
                    mEpilogue.relu(), mHandles.cublasLt());
                return mPointwise->workspaceBytes();
            }
            if (PatchConvolution::takes(mParams, mEpilogue, inputShape, mDataType, mInputFormat))
            {
                mPatch.emplace(convolutionGeometry(mParams, shape, false), mDataType, mBias.data(), mEpilogue.relu(),
                    mHandles.cublasLt());
                return mPatch->workspaceBytes();
            }
        }
        catch (std::runtime_error const&)
        {
            // cuBLASLt has no algorithm for the product on this GPU (a plan built on another): cuDNN's heuristics
            // choose, as the timer leaves such a product out.
        }
    }
    if (mChoice.source == AlgorithmChoice::Source::kGRAPH_ENGINE)
    {
        try
        {
            mGraph.emplace(handle, mParams, mEpilogue, !mParams.bias.empty(), shape, mDataType, mFormat);
            mGraphPlan = mGraph->planOrFirstWorking(mChoice.index);
        }
        catch (std::runtime_error const&)
        {
            // cuDNN refuses the graph at this shape (the builder timed another): the per-call API runs it.
        }
        if (mGraphPlan)
        {
            return static_cast<size_t>(mGraphPlan->workspaceBytes());
        }
        mGraph.reset(); // no graph engine takes this shape: the per-call API's heuristics choose
    }
    return storedOrHeuristic(handle, mAlgorithm, [&] { return heuristicAlgorithm(handle); });
}

cudnnConvolutionFwdAlgo_t ConvolutionLayer::heuristicAlgorithm(cudnnHandle_t handle) const
{
    int found = 0;
    cudnnConvolutionFwdAlgoPerf_t candidates[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    checkCudnn(cudnnGetConvolutionForwardAlgorithm_v7(handle, mDescriptors.input, mDescriptors.filter,
                   mDescriptors.convolution, mDescriptors.output, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, candidates),
        "choosing an algorithm");
    return heuristicChoice(candidates, found);
}

bool ConvolutionLayer::fusesEpilogue() const
{
    return mEpilogue.any()
        || (mBias.data() != nullptr && mAlgorithm == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
}

void const* ConvolutionLayer::residualOf(std::vector<ConstTensorView> const& inputs, TensorView const& output) const
{
    if (!mEpilogue.addsResidual)
    {
        return nullptr;
    }
    if (inputs.size() < 2 || inputs[1].type != mDataType || inputs[1].shape != output.shape
        || inputs[1].format != mFormat)
    {
        throw std::invalid_argument(
            "convolution: the fused residual input differs from the output in shape, type or format");
    }
    return inputs[1].data;
}

void ConvolutionLayer::compute(std::vector<ConstTensorView> const& inputs, TensorView const& output,
    cudnnHandle_t handle, cudaStream_t stream /*cuDNN's: the handle is bound to it*/)
{
    void const* const input = inputs[0].data; // mChannels per position: a kHWC8 input is padded already
    if (mSmallChannel)
    {
        mSmallChannel->run(input, mKernel.data(), mBias.data(), output.data, stream);
        return;
    }
    if (mDepthwise)
    {
        mDepthwise->run(input, mDepthwiseKernel.data(), mBias.data(), output.data, stream);
        return;
    }
    void const* const residual = residualOf(inputs, output);
    if (mPointwise)
    {
        mPointwise->run(mHandles.cublasLt(), input, mKernel.data(), residual, output.data, mWorkspace.data(), stream);
        return;
    }
    if (mPatch)
    {
        mPatch->run(mHandles.cublasLt(), input, mKernel.data(), residual, output.data, mWorkspace.data(), stream);
        return;
    }
    if (mGraphPlan)
    {
        mGraphPlan->execute(handle, {input, mKernel.data(), mBias.data(), residual, output.data, mWorkspace.data()});
        return;
    }
    if (!fusesEpilogue())
    {
        float const one = 1.0F;
        float const zero = 0.0F;
        checkCudnn(cudnnConvolutionForward(handle, &one, mDescriptors.input, input, mDescriptors.filter, mKernel.data(),
                       mDescriptors.convolution, mAlgorithm, mWorkspace.data(), mWorkspaceBytes, &zero,
                       mDescriptors.output, output.data),
            "running");
        addBias(handle, output);
        return;
    }
    checkCudnn(convolveWithEpilogue(handle, mDescriptors, mAlgorithm, *mActivation,
                   {input, mKernel.data(), mBias.data(), residual, output.data, mWorkspace.data(), mWorkspaceBytes}),
        "running with the fused epilogue");
}

std::unique_ptr<DeviceLayer> lower(network::ConvolutionParams const& params, LayerContext const& context)
{
    return std::make_unique<ConvolutionLayer>(params, context.record.epilogue,
        AlgorithmChoice::decode(context.record.backendChoice), context.dataType, context.format, context.handles);
}

} // namespace kiln::cuda
