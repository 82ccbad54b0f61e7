#include "backend/cuda/libraries/cudnn/filter_layer.h"

#include <stdexcept>
#include <string>

namespace kiln::cuda
{

FilterLayer::FilterLayer(char const* kind, network::WindowedFilterParams const& params, AlgorithmChoice choice,
    nvinfer1::DataType dataType, TensorFormat inputFormat, LibraryHandles& handles)
    : mKind(kind)
    , mChoice(choice)
    , mDataType(dataType)
    , mInputFormat(inputFormat)
    , mFormat(channelsLast(inputFormat) ? TensorFormat::kHWC : TensorFormat::kLINEAR)
    , mHandles(handles)
{
    cudnnConvolutionType(dataType); // rejects other types now, not at the first run
    if (!params.bias.empty())
    {
        mBias = uploadWeights(params.bias, dataType);
    }
}

void FilterLayer::run(
    std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs, cudaStream_t stream)
{
    bool const prepared = inputs[0].type == mDataType && inputs[0].format == mInputFormat
        && outputs[0].type == mDataType && outputs[0].format == mFormat;
    if (!prepared)
    {
        throw std::invalid_argument(
            std::string(mKind) + ": the tensors' types or formats differ from those the layer was prepared for");
    }
    cudnnHandle_t const handle = mHandles.cudnn(stream);
    if (inputs[0].shape != mPreparedShape)
    {
        mWorkspaceBytes = prepare(inputs[0].shape, handle);
        mPreparedShape = inputs[0].shape;
    }
    if (outputs[0].count() == 0)
    {
        return;
    }
    mWorkspace.reserve(mWorkspaceBytes, stream);
    compute(inputs, outputs[0], handle, stream);
}

void FilterLayer::addBias(cudnnHandle_t handle, TensorView const& output) const
{
    if (mBias.data() == nullptr)
    {
        return;
    }
    float const one = 1.0F;
    checkCudnn(cudnnAddTensor(handle, &one, mDescriptors.bias, mBias.data(), &one, mDescriptors.output, output.data),
        "adding the bias");
}

void FilterLayer::noAlgorithm() const
{
    throw std::runtime_error(std::string(mKind) + ": cuDNN offers no algorithm for this shape");
}

void FilterLayer::cannotSizeWorkspace() const
{
    throw std::runtime_error(std::string(mKind) + ": cuDNN cannot size the workspace of its own algorithm choice");
}

} // namespace kiln::cuda
