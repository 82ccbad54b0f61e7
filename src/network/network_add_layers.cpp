// INetworkDefinition's add* methods: each builds one layer kind's parameters from
// TensorRT's arguments and hands them to Network::addLayer, which checks the inputs
// and infers the new layer's output shapes.
#include "core/logging.h"
#include "network/add_layer.h"
#include "network/layers/layer_kinds.h"
#include "network/layers/layer_utils.h"
#include "network/layers/squeeze.h"

#include <bit>
#include <cstdint>

namespace kiln::network
{
namespace
{

//! The checks and defaults convolution and deconvolution share.
bool makeFilterParams(char const* method, int64_t nbOutputMaps, nvinfer1::Dims const& kernelSize,
    nvinfer1::Weights const& kernelWeights, nvinfer1::Weights const& biasWeights, WindowedFilterParams& params)
{
    if (nbOutputMaps < 1)
    {
        logError(std::string("INetworkDefinition::") + method + ": the number of output maps ("
            + std::to_string(nbOutputMaps) + ") must be positive");
        return false;
    }
    if (!checkDims(kernelSize, method, "the kernel size", 1, nvinfer1::Dims::MAX_DIMS - 2, 1)
        || !checkWeights(kernelWeights, method, "kernel") || !checkWeights(biasWeights, method, "bias"))
    {
        return false;
    }
    if (kernelWeights.count == 0)
    {
        logError(std::string("INetworkDefinition::") + method + ": the kernel weights are empty");
        return false;
    }
    params.nbOutputMaps = nbOutputMaps;
    params.setDefaults(kernelSize);
    params.kernel = WeightsBuffer(kernelWeights);
    params.bias = WeightsBuffer(biasWeights);
    return true;
}

//! Whether `type` is an index type a layer can write (INT32 or INT64); otherwise logs an error naming `method`.
bool indexTypeAccepted(char const* method, nvinfer1::DataType type)
{
    if (type == nvinfer1::DataType::kINT32 || type == nvinfer1::DataType::kINT64)
    {
        return true;
    }
    logError(std::string("INetworkDefinition::") + method + ": the indices type must be INT32 or INT64");
    return false;
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

nvinfer1::IUnaryLayer* Network::addUnary(nvinfer1::ITensor& input, nvinfer1::UnaryOperation operation) noexcept
{
    UnaryParams params;
    params.operation = operation;
    return addLayer<UnaryLayer>("Unary", {&input}, params, 1, 1);
}

nvinfer1::IScaleLayer* Network::addScale(nvinfer1::ITensor& input, nvinfer1::ScaleMode mode, nvinfer1::Weights shift,
    nvinfer1::Weights scale, nvinfer1::Weights power) noexcept
{
    // addScale is addScaleNd with the channel axis of NCHW.
    return addScaleNd(input, mode, shift, scale, power, 1);
}

nvinfer1::IScaleLayer* Network::addScaleNd(nvinfer1::ITensor& input, nvinfer1::ScaleMode mode, nvinfer1::Weights shift,
    nvinfer1::Weights scale, nvinfer1::Weights power, int32_t channelAxis) noexcept
{
    if (!checkWeights(shift, "addScale", "shift") || !checkWeights(scale, "addScale", "scale")
        || !checkWeights(power, "addScale", "power"))
    {
        return nullptr;
    }
    if (channelAxis < 0)
    {
        logError("INetworkDefinition::addScale: channel axis " + std::to_string(channelAxis) + " is negative");
        return nullptr;
    }
    ScaleParams params;
    params.mode = mode;
    params.channelAxis = channelAxis;
    params.shift = WeightsBuffer(shift);
    params.scale = WeightsBuffer(scale);
    params.power = WeightsBuffer(power);
    return addLayer<ScaleLayer>("Scale", {&input}, std::move(params), 1, 1);
}

nvinfer1::ISoftMaxLayer* Network::addSoftMax(nvinfer1::ITensor& input) noexcept
{
    // TensorRT's default axis: rank - 3 (the C of NCHW) for rank >= 3, else axis 0.
    int32_t const rank = input.getDimensions().nbDims;
    SoftMaxParams params;
    params.axes = 1U << (rank >= 3 ? rank - 3 : 0);
    return addLayer<SoftMaxLayer>("SoftMax", {&input}, params, 1, 1);
}

nvinfer1::IConcatenationLayer* Network::addConcatenation(nvinfer1::ITensor* const* inputs, int32_t nbInputs) noexcept
{
    if (inputs == nullptr || nbInputs < 1)
    {
        logError("INetworkDefinition::addConcatenation: needs at least one input (got " + std::to_string(nbInputs)
            + (inputs == nullptr ? ", inputs is null)" : ")"));
        return nullptr;
    }
    std::vector<nvinfer1::ITensor*> tensors(inputs, inputs + nbInputs);
    ConcatenationParams params;
    int32_t const rank = tensors[0] ? tensors[0]->getDimensions().nbDims : 0;
    params.axis = rank >= 3 ? rank - 3 : 0;
    return addLayer<ConcatenationLayer>("Concatenation", tensors, params, nbInputs, nbInputs);
}

nvinfer1::IShuffleLayer* Network::addShuffle(nvinfer1::ITensor& input) noexcept
{
    return addLayer<ShuffleLayer>("Shuffle", {&input}, ShuffleParams{}, 1, 2);
}

nvinfer1::IMatrixMultiplyLayer* Network::addMatrixMultiply(nvinfer1::ITensor& input0, nvinfer1::MatrixOperation op0,
    nvinfer1::ITensor& input1, nvinfer1::MatrixOperation op1) noexcept
{
    MatrixMultiplyParams params;
    params.op0 = op0;
    params.op1 = op1;
    return addLayer<MatrixMultiplyLayer>("MatrixMultiply", {&input0, &input1}, params, 2, 2);
}

nvinfer1::IConstantLayer* Network::addConstant(nvinfer1::Dims const& dimensions, nvinfer1::Weights weights) noexcept
{
    if (!checkWeights(weights, "addConstant", "constant")
        || !checkDims(dimensions, "addConstant", "the dimensions", 0, nvinfer1::Dims::MAX_DIMS, 0))
    {
        return nullptr;
    }
    if (weightsElementSize(weights.type) == 0)
    {
        logError("INetworkDefinition::addConstant: weights of type "
            + std::to_string(static_cast<int32_t>(weights.type)) + " are not supported");
        return nullptr;
    }
    if (weights.count != dimsVolume(dimensions))
    {
        logError("INetworkDefinition::addConstant: the weights count " + std::to_string(weights.count)
            + " does not match the volume " + std::to_string(dimsVolume(dimensions)) + " of the dimensions");
        return nullptr;
    }
    ConstantParams params;
    params.dimensions = dimensions;
    params.weights = WeightsBuffer(weights);
    return addLayer<ConstantLayer>("Constant", {}, std::move(params), 0, 0);
}

nvinfer1::IReduceLayer* Network::addReduce(
    nvinfer1::ITensor& input, nvinfer1::ReduceOperation operation, uint32_t reduceAxes, bool keepDimensions) noexcept
{
    ReduceParams params;
    params.operation = operation;
    params.reduceAxes = reduceAxes;
    params.keepDimensions = keepDimensions;
    return addLayer<ReduceLayer>("Reduce", {&input}, params, 1, 1);
}

nvinfer1::ISliceLayer* Network::addSlice(nvinfer1::ITensor& input, nvinfer1::Dims const& start,
    nvinfer1::Dims const& size, nvinfer1::Dims const& stride) noexcept
{
    // Start and stride may be negative; only the size is bounded below.
    if (!checkDims(start, "addSlice", "the start", 0, nvinfer1::Dims::MAX_DIMS, INT64_MIN)
        || !checkDims(size, "addSlice", "the size", 0, nvinfer1::Dims::MAX_DIMS, 0)
        || !checkDims(stride, "addSlice", "the stride", 0, nvinfer1::Dims::MAX_DIMS, INT64_MIN))
    {
        return nullptr;
    }
    SliceParams params;
    params.start = start;
    params.size = size;
    params.stride = stride;
    return addLayer<SliceLayer>("Slice", {&input}, params, 1, 5);
}

nvinfer1::ITopKLayer* Network::addTopK(
    nvinfer1::ITensor& input, nvinfer1::TopKOperation op, int32_t k, uint32_t reduceAxes) noexcept
{
    return addTopK(input, op, k, reduceAxes, nvinfer1::DataType::kINT32);
}

nvinfer1::ITopKLayer* Network::addTopK(nvinfer1::ITensor& input, nvinfer1::TopKOperation op, int32_t k,
    uint32_t reduceAxes, nvinfer1::DataType indicesType) noexcept
{
    if (k < 1)
    {
        logError("INetworkDefinition::addTopK: k (" + std::to_string(k) + ") must be positive");
        return nullptr;
    }
    if (indicesType != nvinfer1::DataType::kINT32 && indicesType != nvinfer1::DataType::kINT64)
    {
        logError("INetworkDefinition::addTopK: the indices type must be INT32 or INT64");
        return nullptr;
    }
    TopKParams params;
    params.operation = op;
    params.k = k;
    params.reduceAxes = reduceAxes;
    params.indicesType = indicesType;
    // Input 1, set later with setInput, may give k as a 0-D shape tensor.
    return addLayer<TopKLayer>("TopK", {&input}, params, 1, 2);
}

nvinfer1::IIdentityLayer* Network::addIdentity(nvinfer1::ITensor& input) noexcept
{
    return addLayer<IdentityLayer>("Identity", {&input}, IdentityParams{}, 1, 1);
}

nvinfer1::ICastLayer* Network::addCast(nvinfer1::ITensor& input, nvinfer1::DataType toType) noexcept
{
    CastParams params;
    params.toType = toType;
    return addLayer<CastLayer>("Cast", {&input}, params, 1, 1);
}

nvinfer1::IResizeLayer* Network::addResize(nvinfer1::ITensor& input) noexcept
{
    // Until the application sets output dimensions, scales or the output-shape input (1), the output has the
    // input's shape.
    return addLayer<ResizeLayer>("Resize", {&input}, ResizeParams{}, 1, 2);
}

nvinfer1::IGatherLayer* Network::addGather(nvinfer1::ITensor& data, nvinfer1::ITensor& indices, int32_t axis) noexcept
{
    GatherParams params;
    params.gatherAxis = axis;
    return addLayer<GatherLayer>("Gather", {&data, &indices}, params, 2, 2);
}

nvinfer1::IGatherLayer* Network::addGatherV2(
    nvinfer1::ITensor& data, nvinfer1::ITensor& indices, nvinfer1::GatherMode mode) noexcept
{
    if (static_cast<int32_t>(mode) < 0 || static_cast<int32_t>(mode) >= nvinfer1::EnumMax<nvinfer1::GatherMode>())
    {
        logError("INetworkDefinition::addGatherV2: gather mode " + std::to_string(static_cast<int32_t>(mode))
            + " is out of range");
        return nullptr;
    }
    GatherParams params;
    params.mode = mode;
    return addLayer<GatherLayer>("Gather", {&data, &indices}, params, 2, 2);
}

nvinfer1::INormalizationLayer* Network::addNormalization(
    nvinfer1::ITensor& input, nvinfer1::ITensor& scale, nvinfer1::ITensor& bias, uint32_t axesMask) noexcept
{
    return addNormalizationLayer("addNormalization", input, scale, bias, axesMask);
}

nvinfer1::INormalizationLayer* Network::addNormalizationV2(
    nvinfer1::ITensor& input, nvinfer1::ITensor& scale, nvinfer1::ITensor& bias, uint32_t axesMask) noexcept
{
    NormalizationLayer* layer = addNormalizationLayer("addNormalizationV2", input, scale, bias, axesMask);
    if (layer != nullptr)
    {
        layer->markV2();
    }
    return layer;
}

NormalizationLayer* Network::addNormalizationLayer(
    char const* call, nvinfer1::ITensor& input, nvinfer1::ITensor& scale, nvinfer1::ITensor& bias, uint32_t axesMask)
{
    if (axesMask == 0)
    {
        logError(std::string("INetworkDefinition::") + call + ": the axes mask is empty");
        return nullptr;
    }
    NormalizationParams params;
    params.axes = axesMask;
    return addLayer<NormalizationLayer>("Normalization", {&input, &scale, &bias}, params, 3, 3);
}

nvinfer1::IPaddingLayer* Network::addPaddingNd(
    nvinfer1::ITensor& input, nvinfer1::Dims const& prePadding, nvinfer1::Dims const& postPadding) noexcept
{
    if (!checkDims(prePadding, "addPaddingNd", "the pre-padding", 0, nvinfer1::Dims::MAX_DIMS, INT64_MIN)
        || !checkDims(postPadding, "addPaddingNd", "the post-padding", 0, nvinfer1::Dims::MAX_DIMS, INT64_MIN))
    {
        return nullptr;
    }
    if (prePadding.nbDims != postPadding.nbDims)
    {
        logError("INetworkDefinition::addPaddingNd: the pre-padding has " + std::to_string(prePadding.nbDims)
            + " dimensions but the post-padding " + std::to_string(postPadding.nbDims));
        return nullptr;
    }
    PaddingParams params;
    params.prePadding = prePadding;
    params.postPadding = postPadding;
    return addLayer<PaddingLayer>("Padding", {&input}, params, 1, 1);
}

nvinfer1::ISelectLayer* Network::addSelect(
    nvinfer1::ITensor& condition, nvinfer1::ITensor& thenInput, nvinfer1::ITensor& elseInput) noexcept
{
    return addLayer<SelectLayer>("Select", {&condition, &thenInput, &elseInput}, SelectParams{}, 3, 3);
}

nvinfer1::IShapeLayer* Network::addShape(nvinfer1::ITensor& input) noexcept
{
    return addLayer<ShapeLayer>("Shape", {&input}, ShapeParams{}, 1, 1);
}

nvinfer1::IFillLayer* Network::addFill(
    nvinfer1::Dims const& dimensions, nvinfer1::FillOperation op, nvinfer1::DataType outputType) noexcept
{
    if (!checkDims(dimensions, "addFill", "the dimensions", 0, nvinfer1::Dims::MAX_DIMS, 0))
    {
        return nullptr;
    }
    FillParams params;
    params.dimensions = dimensions;
    params.operation = op;
    params.toType = outputType;
    // No inputs yet: the shape (0), alpha (1) and beta (2) may be set later with setInput.
    return addLayer<FillLayer>("Fill", {}, params, 0, 3);
}

nvinfer1::IOneHotLayer* Network::addOneHot(
    nvinfer1::ITensor& indices, nvinfer1::ITensor& values, nvinfer1::ITensor& depth, int32_t axis) noexcept
{
    OneHotParams params;
    params.axis = axis;
    return addLayer<OneHotLayer>("OneHot", {&indices, &values, &depth}, params, 3, 3);
}

nvinfer1::ICumulativeLayer* Network::addCumulative(nvinfer1::ITensor& input, nvinfer1::ITensor& axis,
    nvinfer1::CumulativeOperation operation, bool exclusive, bool reverse) noexcept
{
    CumulativeParams params;
    params.operation = operation;
    params.exclusive = exclusive;
    params.reverse = reverse;
    return addLayer<CumulativeLayer>("Cumulative", {&input, &axis}, params, 2, 2);
}

nvinfer1::IGridSampleLayer* Network::addGridSample(nvinfer1::ITensor& input, nvinfer1::ITensor& grid) noexcept
{
    return addLayer<GridSampleLayer>("GridSample", {&input, &grid}, GridSampleParams{}, 2, 2);
}

nvinfer1::ILRNLayer* Network::addLRN(
    nvinfer1::ITensor& input, int64_t window, float alpha, float beta, float k) noexcept
{
    LRNParams params;
    params.window = window;
    params.alpha = alpha;
    params.beta = beta;
    params.k = k;
    std::string const error = params.parameterError();
    if (!error.empty())
    {
        logError("INetworkDefinition::addLRN: " + error);
        return nullptr;
    }
    return addLayer<LRNLayer>("LRN", {&input}, params, 1, 1);
}

nvinfer1::IQuantizeLayer* Network::addQuantize(
    nvinfer1::ITensor& input, nvinfer1::ITensor& scale, nvinfer1::DataType outputType) noexcept
{
    QuantizeParams params;
    params.toType = outputType;
    return addLayer<QuantizeLayer>("Quantize", {&input, &scale}, params, 2, 3);
}

nvinfer1::IDequantizeLayer* Network::addDequantize(
    nvinfer1::ITensor& input, nvinfer1::ITensor& scale, nvinfer1::DataType outputType) noexcept
{
    DequantizeParams params;
    params.toType = outputType;
    return addLayer<DequantizeLayer>("Dequantize", {&input, &scale}, params, 2, 3);
}

nvinfer1::INMSLayer* Network::addNMS(
    nvinfer1::ITensor& boxes, nvinfer1::ITensor& scores, nvinfer1::ITensor& maxOutputBoxesPerClass) noexcept
{
    return addNMS(boxes, scores, maxOutputBoxesPerClass, nvinfer1::DataType::kINT32);
}

nvinfer1::INMSLayer* Network::addNMS(nvinfer1::ITensor& boxes, nvinfer1::ITensor& scores,
    nvinfer1::ITensor& maxOutputBoxesPerClass, nvinfer1::DataType indicesType) noexcept
{
    if (!indexTypeAccepted("addNMS", indicesType))
    {
        return nullptr;
    }
    NMSParams params;
    params.indicesType = indicesType;
    // Inputs 3 and 4, the IoU and score thresholds, are set later with setInput.
    return addLayer<NMSLayer>("NMS", {&boxes, &scores, &maxOutputBoxesPerClass}, params, 3, 5);
}

nvinfer1::IReverseSequenceLayer* Network::addReverseSequence(
    nvinfer1::ITensor& input, nvinfer1::ITensor& sequenceLens) noexcept
{
    return addLayer<ReverseSequenceLayer>("ReverseSequence", {&input, &sequenceLens}, ReverseSequenceParams{}, 2, 2);
}

nvinfer1::INonZeroLayer* Network::addNonZero(nvinfer1::ITensor& input) noexcept
{
    return addNonZero(input, nvinfer1::DataType::kINT64); // TensorRT's default: INT64 indices
}

nvinfer1::INonZeroLayer* Network::addNonZero(nvinfer1::ITensor& input, nvinfer1::DataType indicesType) noexcept
{
    if (!indexTypeAccepted("addNonZero", indicesType))
    {
        return nullptr;
    }
    NonZeroParams params;
    params.indicesType = indicesType;
    return addLayer<NonZeroLayer>("NonZero", {&input}, params, 1, 1);
}

nvinfer1::IScatterLayer* Network::addScatter(nvinfer1::ITensor& data, nvinfer1::ITensor& indices,
    nvinfer1::ITensor& updates, nvinfer1::ScatterMode mode) noexcept
{
    int32_t const value = static_cast<int32_t>(mode);
    if (value < 0 || value >= nvinfer1::EnumMax<nvinfer1::ScatterMode>())
    {
        logError("INetworkDefinition::addScatter: " + std::to_string(value) + " is not a ScatterMode");
        return nullptr;
    }
    ScatterParams params;
    params.mode = mode;
    return addLayer<ScatterLayer>("Scatter", {&data, &indices, &updates}, params, 3, 3);
}

nvinfer1::IConvolutionLayer* Network::addConvolutionNd(nvinfer1::ITensor& input, int64_t nbOutputMaps,
    nvinfer1::Dims const& kernelSize, nvinfer1::Weights kernelWeights, nvinfer1::Weights biasWeights) noexcept
{
    ConvolutionParams params;
    if (!makeFilterParams("addConvolutionNd", nbOutputMaps, kernelSize, kernelWeights, biasWeights, params))
    {
        return nullptr;
    }
    return addLayer<ConvolutionLayer>("Convolution", {&input}, std::move(params), 1, 1);
}

nvinfer1::IDeconvolutionLayer* Network::addDeconvolutionNd(nvinfer1::ITensor& input, int64_t nbOutputMaps,
    nvinfer1::Dims kernelSize, nvinfer1::Weights kernelWeights, nvinfer1::Weights biasWeights) noexcept
{
    DeconvolutionParams params;
    if (!makeFilterParams("addDeconvolutionNd", nbOutputMaps, kernelSize, kernelWeights, biasWeights, params))
    {
        return nullptr;
    }
    return addLayer<DeconvolutionLayer>("Deconvolution", {&input}, std::move(params), 1, 1);
}

nvinfer1::IPoolingLayer* Network::addPoolingNd(
    nvinfer1::ITensor& input, nvinfer1::PoolingType type, nvinfer1::Dims const& windowSize) noexcept
{
    if (!checkDims(windowSize, "addPoolingNd", "the window size", 1, nvinfer1::Dims::MAX_DIMS - 1, 1))
    {
        return nullptr;
    }
    PoolingParams params;
    params.poolingType = type;
    params.windowSize = windowSize;
    // TensorRT's defaults: stride 1, no padding.
    params.stride = filledDims(windowSize.nbDims, 1);
    params.prePadding = filledDims(windowSize.nbDims, 0);
    params.postPadding = filledDims(windowSize.nbDims, 0);
    return addLayer<PoolingLayer>("Pooling", {&input}, params, 1, 1);
}

nvinfer1::IParametricReLULayer* Network::addParametricReLU(nvinfer1::ITensor& input, nvinfer1::ITensor& slope) noexcept
{
    return addLayer<ParametricReLULayer>("ParametricReLU", {&input, &slope}, ParametricReLUParams{}, 2, 2);
}

namespace
{

//! addSqueeze and addUnsqueeze: the shuffle the axes give, added as a layer answering to TensorRT as `Kind`.
template <typename Kind>
bool axesShuffle(char const* call, nvinfer1::ITensor& input, nvinfer1::ITensor& axes, ShuffleParams& params)
{
    std::string why;
    if (!Kind::derive(input, axes, params, why))
    {
        logError(std::string("INetworkDefinition::") + call + ": " + why);
        return false;
    }
    return true;
}

} // namespace

nvinfer1::ISqueezeLayer* Network::addSqueeze(nvinfer1::ITensor& input, nvinfer1::ITensor& axes) noexcept
{
    ShuffleParams params;
    if (!checkInputs("addSqueeze", {&input, &axes}) || !axesShuffle<SqueezeLayer>("addSqueeze", input, axes, params))
    {
        return nullptr;
    }
    return addLayer<SqueezeLayer>("Squeeze", {&input}, params, 1, 1, static_cast<Tensor*>(&axes));
}

nvinfer1::IUnsqueezeLayer* Network::addUnsqueeze(nvinfer1::ITensor& input, nvinfer1::ITensor& axes) noexcept
{
    ShuffleParams params;
    if (!checkInputs("addUnsqueeze", {&input, &axes})
        || !axesShuffle<UnsqueezeLayer>("addUnsqueeze", input, axes, params))
    {
        return nullptr;
    }
    return addLayer<UnsqueezeLayer>("Unsqueeze", {&input}, params, 1, 1, static_cast<Tensor*>(&axes));
}

} // namespace kiln::network
