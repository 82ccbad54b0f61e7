#include "backend/cpu/layer_runner.h"

#include "backend/cpu/kernels/nn/activation.h"
#include "backend/cpu/kernels/nn/convolution.h"
#include "backend/cpu/kernels/nn/deconvolution.h"
#include "backend/cpu/kernels/nn/element_wise.h"
#include "backend/cpu/kernels/nn/normalization.h"
#include "backend/cpu/kernels/nn/pooling.h"
#include "backend/cpu/kernels/nn/scale.h"
#include "backend/cpu/kernels/nn/softmax.h"
#include "backend/cpu/kernels/nn/unary.h"
#include "backend/cpu/kernels/tensor/cast.h"
#include "backend/cpu/kernels/tensor/concatenation.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/fill.h"
#include "backend/cpu/kernels/tensor/gather.h"
#include "backend/cpu/kernels/tensor/matrix_multiply.h"
#include "backend/cpu/kernels/tensor/one_hot.h"
#include "backend/cpu/kernels/tensor/cumulative.h"
#include "backend/cpu/kernels/tensor/padding.h"
#include "backend/cpu/kernels/tensor/random_fill.h"
#include "backend/cpu/kernels/tensor/reduce.h"
#include "backend/cpu/kernels/tensor/resize.h"
#include "backend/cpu/kernels/tensor/select.h"
#include "backend/cpu/kernels/tensor/shuffle.h"
#include "backend/cpu/kernels/tensor/slice.h"
#include "backend/cpu/kernels/tensor/top_k.h"
#include "network/layers/layer_utils.h"
#include "network/layers/layer_kinds.h"

#include <cstring>
#include <stdexcept>

namespace kiln::cpu
{
namespace
{

void runActivationLayer(network::ActivationParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    runActivation(ActivationParams{p.activation, p.alpha, p.beta}, in[0], out[0]);
}

void runElementWiseLayer(network::ElementWiseParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    ElementWiseParams params;
    params.op = p.operation;
    runElementWise(params, in[0], in[1], out[0]);
}

//! A weights buffer as a read-only view of the given shape (an empty view for no weights).
ConstTensorView weightsView(network::WeightsBuffer const& weights, Shape shape)
{
    if (weights.empty())
    {
        return ConstTensorView(weights.type(), Shape{0}, nullptr);
    }
    return ConstTensorView(weights.type(), std::move(shape), weights.data());
}

//! The kernel weights viewed as `shape`, after checking they hold that many values: shape inference lets weights
//! for another group count through while the count is the default 1 (applications set it after add*).
ConstTensorView filterWeightsView(network::WindowedFilterParams const& p, Shape const& shape, char const* kind)
{
    if (p.kernel.count() != volume(shape))
    {
        throw std::invalid_argument(std::string("the ") + kind + " kernel weights hold " + std::to_string(p.kernel.count())
            + " values but " + std::to_string(p.nbGroups) + " group(s) of this input need " + std::to_string(volume(shape))
            + " (is the group count set with setNbGroups?)");
    }
    return weightsView(p.kernel, shape);
}

template <typename KernelParams>
KernelParams filterKernelParams(network::WindowedFilterParams const& p)
{
    KernelParams params;
    params.nbOutputMaps = p.nbOutputMaps;
    params.kernelSize = network::dimsToVector(p.kernelSize);
    params.stride = network::dimsToVector(p.stride);
    params.prePadding = network::dimsToVector(p.prePadding);
    params.postPadding = network::dimsToVector(p.postPadding);
    params.dilation = network::dimsToVector(p.dilation);
    params.nbGroups = p.nbGroups;
    params.paddingMode = p.paddingMode;
    return params;
}

void runConvolutionLayer(network::ConvolutionParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    if (p.epilogue.any())
    {
        throw std::invalid_argument("convolution: fused epilogues belong to CUDA plans; the CPU runs them unfused");
    }
    Shape kernelShape{p.nbOutputMaps, in[0].shape[1] / p.nbGroups};
    for (int64_t extent : network::dimsToVector(p.kernelSize))
    {
        kernelShape.push_back(extent);
    }
    runConvolution(filterKernelParams<ConvolutionParams>(p), in[0], filterWeightsView(p, kernelShape, "convolution"),
        weightsView(p.bias, Shape{p.nbOutputMaps}), out[0]);
}

void runDeconvolutionLayer(network::DeconvolutionParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    Shape kernelShape{in[0].shape[1], p.nbOutputMaps / p.nbGroups};
    for (int64_t extent : network::dimsToVector(p.kernelSize))
    {
        kernelShape.push_back(extent);
    }
    runDeconvolution(filterKernelParams<DeconvolutionParams>(p), in[0],
        filterWeightsView(p, kernelShape, "deconvolution"),
        weightsView(p.bias, Shape{p.nbOutputMaps}), out[0]);
}

void runPoolingLayer(network::PoolingParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    PoolingParams params;
    params.type = p.poolingType;
    params.windowSize = network::dimsToVector(p.windowSize);
    params.stride = network::dimsToVector(p.stride);
    params.prePadding = network::dimsToVector(p.prePadding);
    params.postPadding = network::dimsToVector(p.postPadding);
    params.paddingMode = p.paddingMode;
    params.blendFactor = p.blendFactor;
    params.averageCountExcludesPadding = p.averageCountExcludesPadding;
    runPooling(params, in[0], out[0]);
}

void runScaleLayer(network::ScaleParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    ScaleParams params{p.mode, p.channelAxis};
    auto view = [](network::WeightsBuffer const& w) { return weightsView(w, Shape{w.count()}); };
    runScale(params, in[0], view(p.shift), view(p.scale), view(p.power), out[0]);
}

void runSoftMaxLayer(network::SoftMaxParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    runSoftmax(SoftmaxParams{p.axes}, in[0], out[0]);
}

void runConcatenationLayer(network::ConcatenationParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    concatenation(in, out[0], Concatenation{p.axis});
}

void runShuffleLayer(network::ShuffleParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    // Inference resolved the reshape (placeholders, -1, the shape input) into the output shape; undoing the
    // second transpose on that shape gives the reshape's result, which the kernel takes without placeholders.
    Shuffle params;
    params.firstTranspose.assign(p.firstTranspose.order, p.firstTranspose.order + in[0].rank());
    params.secondTranspose.assign(p.secondTranspose.order, p.secondTranspose.order + out[0].rank());
    Shape reshaped(out[0].shape.size());
    for (size_t i = 0; i < reshaped.size(); ++i)
    {
        reshaped[static_cast<size_t>(params.secondTranspose[i])] = out[0].shape[i];
    }
    params.reshapeDimensions = reshaped;
    params.zeroIsPlaceholder = false;
    shuffle(in[0], out[0], params);
}

void runMatrixMultiplyLayer(network::MatrixMultiplyParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    // Only CUDA plans get fused epilogues, but the reference runs every form of the params, so that one plan is
    // right on both backends.
    MatrixMultiply params{p.op0, p.op1};
    params.bias = weightsView(p.epilogue.bias, Shape{p.epilogue.bias.count()});
    params.relu = p.epilogue.relu;
    matrixMultiply(in[0], in[1], out[0], params);
}

void runConstantLayer(network::ConstantParams const& p, std::vector<ConstTensorView> const&,
    std::vector<TensorView> const& out)
{
    size_t const bytes = static_cast<size_t>(p.weights.count()) * elementSize(p.weights.type());
    if (out[0].type != p.weights.type() || out[0].count() != p.weights.count())
    {
        // The application asked for another output type: convert the weights.
        cast(weightsView(p.weights, out[0].shape), out[0]);
        return;
    }
    if (bytes > 0)
    {
        std::memcpy(out[0].data, p.weights.data(), bytes);
    }
}

void runUnaryLayer(network::UnaryParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    runUnary(UnaryParams{p.operation}, in[0], out[0]);
}

void runCopyOrCastLayer(std::vector<ConstTensorView> const& in, std::vector<TensorView> const& out)
{
    cast(in[0], out[0]);
}

void runShapeLayer(std::vector<ConstTensorView> const& in, std::vector<TensorView> const& out)
{
    for (size_t i = 0; i < in[0].shape.size(); ++i)
    {
        if (out[0].type == nvinfer1::DataType::kINT32)
        {
            out[0].as<int32_t>()[i] = static_cast<int32_t>(in[0].shape[i]);
        }
        else
        {
            out[0].as<int64_t>()[i] = in[0].shape[i];
        }
    }
}

void runReduceLayer(network::ReduceParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    reduce(in[0], out[0], Reduce{p.operation, p.reduceAxes, p.keepDimensions});
}

//! Whether optional input `index` was given (an input left empty arrives as a view without data).
bool hasInput(std::vector<ConstTensorView> const& in, size_t index)
{
    return index < in.size() && (in[index].data != nullptr || in[index].count() == 0);
}

//! The integer values of a shape-tensor input (INT32 or INT64), read at run time.
Shape integerValues(ConstTensorView const& view)
{
    Shape values(static_cast<size_t>(view.count()));
    for (size_t i = 0; i < values.size(); ++i)
    {
        values[i] = tensor_detail::readInteger(view.data, view.type, static_cast<int64_t>(i));
    }
    return values;
}

//! Slice start/size/stride: the shape-tensor input's run-time values when given, else the static dims.
Shape sliceParam(std::vector<ConstTensorView> const& in, size_t index, nvinfer1::Dims const& fixed)
{
    if (hasInput(in, index))
    {
        Shape values(static_cast<size_t>(in[index].count()));
        for (size_t i = 0; i < values.size(); ++i)
        {
            values[i] = tensor_detail::readInteger(in[index].data, in[index].type, static_cast<int64_t>(i));
        }
        return values;
    }
    return network::dimsToVector(fixed);
}

//! A 0-D tensor's value as a double, whatever its type.
double scalarValue(ConstTensorView const& view)
{
    using nvinfer1::DataType;
    switch (view.type)
    {
    case DataType::kFLOAT:
    case DataType::kHALF:
    case DataType::kBF16: return tensor_detail::readFloat(view.data, view.type, 0);
    case DataType::kINT32:
    case DataType::kINT64: return static_cast<double>(tensor_detail::readInteger(view.data, view.type, 0));
    case DataType::kINT8: return *static_cast<int8_t const*>(view.data);
    case DataType::kUINT8:
    case DataType::kBOOL: return *static_cast<uint8_t const*>(view.data);
    default: throw std::invalid_argument("slice: the fill value's type is not supported");
    }
}

void runSliceLayer(network::SliceParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    Slice params;
    params.start = sliceParam(in, 1, p.start);
    params.size = out[0].shape; // inference resolved the size (static or from input 2)
    params.stride = sliceParam(in, 3, p.stride);
    params.mode = p.mode;
    if (hasInput(in, 4))
    {
        params.fillValue = scalarValue(in[4]);
    }
    slice(in[0], out[0], params);
}

void runGatherLayer(network::GatherParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    gather(in[0], in[1], out[0], Gather{p.gatherAxis, p.numElementWiseDims, p.mode});
}

void runTopKLayer(network::TopKParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    // Input 1, when given, holds k; the kernel checks it against the axis extent and the outputs' shape.
    int64_t const k = hasInput(in, 1) ? tensor_detail::readInteger(in[1].data, in[1].type, 0) : p.k;
    if (k < 1)
    {
        throw std::invalid_argument("top-k: k (input 1) is " + std::to_string(k) + "; must be positive");
    }
    topK(in[0], out[0], out[1], TopK{p.operation, k, p.reduceAxes});
}

void runResizeLayer(network::ResizeParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    Resize params;
    params.resizeMode = p.resizeMode;
    params.coordinateTransformation = p.coordinateTransformation;
    params.selectorForSinglePixel = p.selectorForSinglePixel;
    params.nearestRounding = p.nearestRounding;
    params.cubicCoeff = p.cubicCoeff;
    params.excludeOutside = p.excludeOutside;
    if (hasInput(in, 1))
    {
        params.outputDimensions = integerValues(in[1]); // the kernel checks them against the output's shape
    }
    else if (!p.scales.empty() && !p.hasOutputDimensions)
    {
        params.scales = p.scales; // given scales also drive the coordinate mapping, as ONNX specifies
    }
    else
    {
        params.outputDimensions = out[0].shape; // the static output dimensions, or the input's shape
    }
    resize(in[0], out[0], params);
}

//! Element `index` of a fill's alpha or beta input as a double, whatever its numeric type.
double numberAt(ConstTensorView const& view, int64_t index)
{
    if (isFloatType(view.type))
    {
        return tensor_detail::readFloat(view.data, view.type, index);
    }
    return static_cast<double>(tensor_detail::readInteger(view.data, view.type, index));
}

void runFillLayer(network::FillParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    // Alpha (input 1) and beta (input 2) each come from their input when it is given, else from the parameters.
    double const alpha = hasInput(in, 1) ? numberAt(in[1], 0) : p.alpha;
    if (p.operation != nvinfer1::FillOperation::kLINSPACE)
    {
        randomFill(out[0], RandomFill{p.operation, alpha, hasInput(in, 2) ? numberAt(in[2], 0) : p.beta});
        return;
    }
    Fill params;
    params.operation = p.operation;
    params.alpha = alpha;
    params.beta.clear();
    if (hasInput(in, 2))
    {
        for (int64_t i = 0; i < in[2].count(); ++i)
        {
            params.beta.push_back(numberAt(in[2], i));
        }
    }
    else if (out[0].rank() == 1)
    {
        params.beta.push_back(p.beta);
    }
    else if (out[0].rank() > 1)
    {
        throw std::invalid_argument("fill: a kLINSPACE fill of rank " + std::to_string(out[0].rank())
            + " needs beta as input 2, one delta per output dim (a static beta is a single delta, for 0-D and 1-D "
              "outputs)");
    }
    fill(out[0], params);
}

void runOneHotLayer(network::OneHotParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    int64_t const depth = tensor_detail::readInteger(in[2].data, in[2].type, 0);
    oneHot(in[0], in[1], depth, out[0], OneHot{p.axis});
}

void runCumulativeLayer(network::CumulativeParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    auto const axis = static_cast<int32_t>(tensor_detail::readInteger(in[1].data, in[1].type, 0));
    cumulative(in[0], out[0], Cumulative{p.operation, p.exclusive, p.reverse, axis});
}

void runPaddingLayer(network::PaddingParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    Padding params;
    params.prePadding = network::dimsToVector(p.prePadding);
    params.postPadding = network::dimsToVector(p.postPadding);
    padding(in[0], out[0], params);
}

void runNormalizationLayer(network::NormalizationParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    runNormalization(NormalizationParams{p.axes, p.epsilon, p.nbGroups}, in[0], in[1], in[2], out[0]);
}

void runSelectLayer(std::vector<ConstTensorView> const& in, std::vector<TensorView> const& out)
{
    select(in[0], in[1], in[2], out[0]);
}

} // namespace

bool runLayer(network::LayerParams const& params, std::vector<ConstTensorView> const& inputs,
    std::vector<TensorView> const& outputs, std::string& error)
{
    using nvinfer1::LayerType;
    try
    {
        switch (params.type())
        {
        case LayerType::kACTIVATION:
            runActivationLayer(static_cast<network::ActivationParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kELEMENTWISE:
            runElementWiseLayer(static_cast<network::ElementWiseParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kCONVOLUTION:
            runConvolutionLayer(static_cast<network::ConvolutionParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kDECONVOLUTION:
            runDeconvolutionLayer(static_cast<network::DeconvolutionParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kPOOLING:
            runPoolingLayer(static_cast<network::PoolingParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kSCALE:
            runScaleLayer(static_cast<network::ScaleParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kSOFTMAX:
            runSoftMaxLayer(static_cast<network::SoftMaxParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kCONCATENATION:
            runConcatenationLayer(static_cast<network::ConcatenationParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kSHUFFLE:
            runShuffleLayer(static_cast<network::ShuffleParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kMATRIX_MULTIPLY:
            runMatrixMultiplyLayer(static_cast<network::MatrixMultiplyParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kCONSTANT:
            runConstantLayer(static_cast<network::ConstantParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kUNARY:
            runUnaryLayer(static_cast<network::UnaryParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kIDENTITY:
        case LayerType::kCAST: runCopyOrCastLayer(inputs, outputs); return true;
        case LayerType::kSHAPE: runShapeLayer(inputs, outputs); return true;
        case LayerType::kREDUCE:
            runReduceLayer(static_cast<network::ReduceParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kSLICE:
            runSliceLayer(static_cast<network::SliceParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kGATHER:
            runGatherLayer(static_cast<network::GatherParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kTOPK:
            runTopKLayer(static_cast<network::TopKParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kPADDING:
            runPaddingLayer(static_cast<network::PaddingParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kSELECT: runSelectLayer(inputs, outputs); return true;
        case LayerType::kNORMALIZATION:
            runNormalizationLayer(static_cast<network::NormalizationParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kRESIZE:
            runResizeLayer(static_cast<network::ResizeParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kFILL:
            runFillLayer(static_cast<network::FillParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kONE_HOT:
            runOneHotLayer(static_cast<network::OneHotParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kCUMULATIVE:
            runCumulativeLayer(static_cast<network::CumulativeParams const&>(params), inputs, outputs);
            return true;
        default:
            error = "the CPU backend has no kernel for layer kind " + std::to_string(static_cast<int32_t>(params.type()));
            return false;
        }
    }
    catch (std::exception const& e)
    {
        error = e.what();
        return false;
    }
}

} // namespace kiln::cpu
