// INetworkDefinition's add* methods: each builds one layer kind's parameters from
// TensorRT's arguments and hands them to Network::addLayer, which checks the inputs
// and infers the new layer's output shapes.
#include "core/logging.h"
#include "network/add_layer.h"
#include "network/layers/layer_kinds.h"

namespace kiln::network
{
namespace
{

template <typename T>
T* notYetSupported(char const* method)
{
    logError(std::string("INetworkDefinition::") + method + " is not supported by Kiln yet");
    return nullptr;
}

} // namespace

nvinfer1::IActivationLayer* Network::addActivation(nvinfer1::ITensor& input, nvinfer1::ActivationType type) noexcept
{
    ActivationParams params;
    params.activation = type;
    return addLayer<ActivationLayer>("Activation", {&input}, params, 1, 1);
}

nvinfer1::IElementWiseLayer* Network::addElementWise(
    nvinfer1::ITensor& input1, nvinfer1::ITensor& input2, nvinfer1::ElementWiseOperation op) noexcept
{
    ElementWiseParams params;
    params.operation = op;
    return addLayer<ElementWiseLayer>("ElementWise", {&input1, &input2}, params, 2, 2);
}

nvinfer1::IUnaryLayer* Network::addUnary(nvinfer1::ITensor&, nvinfer1::UnaryOperation) noexcept
{
    return notYetSupported<nvinfer1::IUnaryLayer>("addUnary");
}

nvinfer1::IScaleLayer* Network::addScale(
    nvinfer1::ITensor&, nvinfer1::ScaleMode, nvinfer1::Weights, nvinfer1::Weights, nvinfer1::Weights) noexcept
{
    return notYetSupported<nvinfer1::IScaleLayer>("addScale");
}

nvinfer1::IScaleLayer* Network::addScaleNd(nvinfer1::ITensor&, nvinfer1::ScaleMode, nvinfer1::Weights,
    nvinfer1::Weights, nvinfer1::Weights, int32_t) noexcept
{
    return notYetSupported<nvinfer1::IScaleLayer>("addScaleNd");
}

nvinfer1::ISoftMaxLayer* Network::addSoftMax(nvinfer1::ITensor&) noexcept
{
    return notYetSupported<nvinfer1::ISoftMaxLayer>("addSoftMax");
}

nvinfer1::IConcatenationLayer* Network::addConcatenation(nvinfer1::ITensor* const*, int32_t) noexcept
{
    return notYetSupported<nvinfer1::IConcatenationLayer>("addConcatenation");
}

nvinfer1::IShuffleLayer* Network::addShuffle(nvinfer1::ITensor&) noexcept
{
    return notYetSupported<nvinfer1::IShuffleLayer>("addShuffle");
}

nvinfer1::IMatrixMultiplyLayer* Network::addMatrixMultiply(
    nvinfer1::ITensor&, nvinfer1::MatrixOperation, nvinfer1::ITensor&, nvinfer1::MatrixOperation) noexcept
{
    return notYetSupported<nvinfer1::IMatrixMultiplyLayer>("addMatrixMultiply");
}

nvinfer1::IConstantLayer* Network::addConstant(nvinfer1::Dims const&, nvinfer1::Weights) noexcept
{
    return notYetSupported<nvinfer1::IConstantLayer>("addConstant");
}

nvinfer1::IReduceLayer* Network::addReduce(nvinfer1::ITensor&, nvinfer1::ReduceOperation, uint32_t, bool) noexcept
{
    return notYetSupported<nvinfer1::IReduceLayer>("addReduce");
}

nvinfer1::ISliceLayer* Network::addSlice(
    nvinfer1::ITensor&, nvinfer1::Dims const&, nvinfer1::Dims const&, nvinfer1::Dims const&) noexcept
{
    return notYetSupported<nvinfer1::ISliceLayer>("addSlice");
}

nvinfer1::ITopKLayer* Network::addTopK(nvinfer1::ITensor&, nvinfer1::TopKOperation, int32_t, uint32_t) noexcept
{
    return notYetSupported<nvinfer1::ITopKLayer>("addTopK");
}

nvinfer1::ITopKLayer* Network::addTopK(
    nvinfer1::ITensor&, nvinfer1::TopKOperation, int32_t, uint32_t, nvinfer1::DataType) noexcept
{
    return notYetSupported<nvinfer1::ITopKLayer>("addTopK");
}

nvinfer1::IIdentityLayer* Network::addIdentity(nvinfer1::ITensor&) noexcept
{
    return notYetSupported<nvinfer1::IIdentityLayer>("addIdentity");
}

nvinfer1::ICastLayer* Network::addCast(nvinfer1::ITensor&, nvinfer1::DataType) noexcept
{
    return notYetSupported<nvinfer1::ICastLayer>("addCast");
}

nvinfer1::IResizeLayer* Network::addResize(nvinfer1::ITensor&) noexcept
{
    return notYetSupported<nvinfer1::IResizeLayer>("addResize");
}

nvinfer1::IGatherLayer* Network::addGather(nvinfer1::ITensor&, nvinfer1::ITensor&, int32_t) noexcept
{
    return notYetSupported<nvinfer1::IGatherLayer>("addGather");
}

nvinfer1::IGatherLayer* Network::addGatherV2(nvinfer1::ITensor&, nvinfer1::ITensor&, nvinfer1::GatherMode) noexcept
{
    return notYetSupported<nvinfer1::IGatherLayer>("addGatherV2");
}

nvinfer1::INormalizationLayer* Network::addNormalization(
    nvinfer1::ITensor&, nvinfer1::ITensor&, nvinfer1::ITensor&, uint32_t) noexcept
{
    return notYetSupported<nvinfer1::INormalizationLayer>("addNormalization");
}

nvinfer1::IPaddingLayer* Network::addPaddingNd(nvinfer1::ITensor&, nvinfer1::Dims const&, nvinfer1::Dims const&) noexcept
{
    return notYetSupported<nvinfer1::IPaddingLayer>("addPaddingNd");
}

nvinfer1::ISelectLayer* Network::addSelect(nvinfer1::ITensor&, nvinfer1::ITensor&, nvinfer1::ITensor&) noexcept
{
    return notYetSupported<nvinfer1::ISelectLayer>("addSelect");
}

nvinfer1::IShapeLayer* Network::addShape(nvinfer1::ITensor&) noexcept
{
    return notYetSupported<nvinfer1::IShapeLayer>("addShape");
}

nvinfer1::IFillLayer* Network::addFill(nvinfer1::Dims const&, nvinfer1::FillOperation, nvinfer1::DataType) noexcept
{
    return notYetSupported<nvinfer1::IFillLayer>("addFill");
}

nvinfer1::IOneHotLayer* Network::addOneHot(nvinfer1::ITensor&, nvinfer1::ITensor&, nvinfer1::ITensor&, int32_t) noexcept
{
    return notYetSupported<nvinfer1::IOneHotLayer>("addOneHot");
}

nvinfer1::IConvolutionLayer* Network::addConvolutionNd(
    nvinfer1::ITensor&, int64_t, nvinfer1::Dims const&, nvinfer1::Weights, nvinfer1::Weights) noexcept
{
    return notYetSupported<nvinfer1::IConvolutionLayer>("addConvolutionNd");
}

nvinfer1::IDeconvolutionLayer* Network::addDeconvolutionNd(
    nvinfer1::ITensor&, int64_t, nvinfer1::Dims const&, nvinfer1::Weights, nvinfer1::Weights) noexcept
{
    return notYetSupported<nvinfer1::IDeconvolutionLayer>("addDeconvolutionNd");
}

nvinfer1::IPoolingLayer* Network::addPoolingNd(nvinfer1::ITensor&, nvinfer1::PoolingType, nvinfer1::Dims const&) noexcept
{
    return notYetSupported<nvinfer1::IPoolingLayer>("addPoolingNd");
}

} // namespace kiln::network
