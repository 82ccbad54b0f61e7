#include "backend/cuda/libraries/cudnn/convolution_descriptors.h"

#include "backend/cuda/cuda_error.h"
#include "backend/shared/channel_order.h"
#include "backend/shared/kernel_geometry.h"
#include "device_common/half.h"
#include "network/layers/layer_utils.h"

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::cuda
{
namespace
{

std::vector<int> toInts(Shape const& shape)
{
    return std::vector<int>(shape.begin(), shape.end());
}

} // namespace

void checkCudnn(cudnnStatus_t status, char const* what)
{
    if (status != CUDNN_STATUS_SUCCESS)
    {
        throw std::runtime_error(std::string("convolution: ") + what + ": " + cudnnGetErrorString(status));
    }
}

cudnnDataType_t cudnnConvolutionType(nvinfer1::DataType type)
{
    switch (type)
    {
    case nvinfer1::DataType::kFLOAT: return CUDNN_DATA_FLOAT;
    case nvinfer1::DataType::kHALF: return CUDNN_DATA_HALF;
    default: throw std::invalid_argument("convolution: the CUDA backend convolves FP32 or FP16 data");
    }
}

bool transformsData(cudnnConvolutionFwdAlgo_t algorithm)
{
    return algorithm == CUDNN_CONVOLUTION_FWD_ALGO_FFT || algorithm == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING
        || algorithm == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
}

bool transformsData(cudnnConvolutionBwdDataAlgo_t algorithm)
{
    return algorithm == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT || algorithm == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING
        || algorithm == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
}

ConvolutionDescriptors::ConvolutionDescriptors()
{
    checkCudnn(cudnnCreateTensorDescriptor(&input), "creating a descriptor");
    checkCudnn(cudnnCreateTensorDescriptor(&output), "creating a descriptor");
    checkCudnn(cudnnCreateTensorDescriptor(&bias), "creating a descriptor");
    checkCudnn(cudnnCreateFilterDescriptor(&filter), "creating a descriptor");
    checkCudnn(cudnnCreateConvolutionDescriptor(&convolution), "creating a descriptor");
}

ConvolutionDescriptors::~ConvolutionDescriptors()
{
    cudnnDestroyTensorDescriptor(input);
    cudnnDestroyTensorDescriptor(output);
    cudnnDestroyTensorDescriptor(bias);
    cudnnDestroyFilterDescriptor(filter);
    cudnnDestroyConvolutionDescriptor(convolution);
}

void ConvolutionDescriptors::describe(
    network::WindowedFilterParams const& params, Shape const& inputShape, nvinfer1::DataType type, TensorFormat format)
{
    describe(params, inputShape, type, format, false);
}

void ConvolutionDescriptors::describeTransposed(
    network::WindowedFilterParams const& params, Shape const& inputShape, nvinfer1::DataType type)
{
    describe(params, inputShape, type, TensorFormat::kLINEAR, true);
}

ConvolutionGeometry convolutionGeometry(
    network::WindowedFilterParams const& params, Shape const& inputShape, bool transposed)
{
    char const* const kind = transposed ? "deconvolution" : "convolution";
    Shape const kernelSize = network::dimsToVector(params.kernelSize);
    backend::KernelGeometry const geometry = backend::resolveKernelGeometry(kind,
        transposed ? backend::WindowDirection::kTRANSPOSED : backend::WindowDirection::kFORWARD, inputShape, params);
    if (geometry.window.prePadding != geometry.window.postPadding)
    {
        throw std::invalid_argument(std::string(kind)
            + ": the CUDA backend pads symmetrically only (cuDNN); this layer pads differently before and after");
    }
    // cuDNN wants at least two spatial axes: a 1-D convolution becomes a 2-D one over a height of 1.
    bool const widened = kernelSize.size() == 1;
    auto widen = [widened](Shape values, int64_t fill) {
        if (widened)
        {
            values.insert(values.begin(), fill);
        }
        return values;
    };
    ConvolutionGeometry shapes;
    shapes.layerOutput = geometry.outputShape;
    shapes.input = inputShape;
    shapes.output = geometry.outputShape;
    if (widened)
    {
        shapes.input.insert(shapes.input.begin() + 2, 1);
        shapes.output.insert(shapes.output.begin() + 2, 1);
    }
    // Kernels are [K, C / groups, k...] for a convolution, [C, K / groups, k...] for a deconvolution: both are
    // cuDNN's [forward outputs, forward inputs / groups, k...] of the forward convolution.
    shapes.filter = transposed ? Shape{inputShape[1], params.nbOutputMaps / params.nbGroups}
                               : Shape{params.nbOutputMaps, inputShape[1] / params.nbGroups};
    for (int64_t k : widen(kernelSize, 1))
    {
        shapes.filter.push_back(k);
    }
    shapes.padding = widen(geometry.window.prePadding, 0);
    shapes.stride = widen(geometry.stride, 1);
    shapes.dilation = widen(geometry.dilation, 1);
    return shapes;
}

Shape stridesIn(Shape const& dims, TensorFormat format)
{
    Shape strides(dims.size(), 1);
    if (!channelsLast(format))
    {
        for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i)
        {
            strides[i] = strides[i + 1] * dims[i + 1];
        }
        return strides;
    }
    // Channels innermost, then the spatial axes in order, then the batch (or the output maps, for a kernel).
    int64_t stride = dims[1];
    for (int i = static_cast<int>(dims.size()) - 1; i >= 2; --i)
    {
        strides[i] = stride;
        stride *= dims[i];
    }
    strides[0] = stride;
    return strides;
}

void ConvolutionDescriptors::describe(network::WindowedFilterParams const& params, Shape const& inputShape,
    nvinfer1::DataType type, TensorFormat format, bool transposed)
{
    ConvolutionGeometry const geometry = convolutionGeometry(params, inputShape, transposed);
    cudnnDataType_t const dataType = cudnnConvolutionType(type);
    std::vector<int> const in = toInts(geometry.input);
    std::vector<int> const out = toInts(geometry.output);
    std::vector<int> const kernel = toInts(geometry.filter);
    checkCudnn(cudnnSetTensorNdDescriptor(input, dataType, static_cast<int>(in.size()), in.data(),
                   toInts(stridesIn(geometry.input, format)).data()),
        "describing the input");
    checkCudnn(cudnnSetTensorNdDescriptor(output, dataType, static_cast<int>(out.size()), out.data(),
                   toInts(stridesIn(geometry.output, format)).data()),
        "describing the output");
    cudnnTensorFormat_t const kernelFormat = channelsLast(format) ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    checkCudnn(
        cudnnSetFilterNdDescriptor(filter, dataType, kernelFormat, static_cast<int>(kernel.size()), kernel.data()),
        "describing the kernel");
    std::vector<int> const pads = toInts(geometry.padding);
    std::vector<int> const strides = toInts(geometry.stride);
    std::vector<int> const dilations = toInts(geometry.dilation);
    checkCudnn(cudnnSetConvolutionNdDescriptor(convolution, static_cast<int>(pads.size()), pads.data(), strides.data(),
                   dilations.data(), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        "describing the convolution");
    checkCudnn(cudnnSetConvolutionGroupCount(convolution, static_cast<int>(params.nbGroups)), "setting the groups");
    checkCudnn(cudnnSetConvolutionMathType(
                   convolution, type == nvinfer1::DataType::kHALF ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH),
        "choosing the math");
    Shape biasDims(out.size(), 1);
    biasDims[1] = out[1];
    checkCudnn(cudnnSetTensorNdDescriptor(bias, dataType, static_cast<int>(biasDims.size()), toInts(biasDims).data(),
                   toInts(stridesIn(biasDims, TensorFormat::kLINEAR)).data()),
        "describing the bias");
    mType = type;
    mOutputShape = geometry.layerOutput;
}

int64_t ConvolutionDescriptors::workspaceBytes(cudnnHandle_t handle, cudnnConvolutionFwdAlgo_t algorithm) const
{
    size_t bytes = 0;
    if (cudnnGetConvolutionForwardWorkspaceSize(handle, input, filter, convolution, output, algorithm, &bytes)
        != CUDNN_STATUS_SUCCESS)
    {
        return -1;
    }
    return static_cast<int64_t>(bytes);
}

int64_t ConvolutionDescriptors::workspaceBytes(cudnnHandle_t handle, cudnnConvolutionBwdDataAlgo_t algorithm) const
{
    // The backward pass reads the layer's input as dy and writes its output as dx.
    size_t bytes = 0;
    if (cudnnGetConvolutionBackwardDataWorkspaceSize(handle, filter, input, convolution, output, algorithm, &bytes)
        != CUDNN_STATUS_SUCCESS)
    {
        return -1;
    }
    return static_cast<int64_t>(bytes);
}

int64_t cudnnChannels(int64_t channels, TensorFormat format)
{
    return format == TensorFormat::kHWC8 ? (channels + 7) / 8 * 8 : channels;
}

DeviceBuffer uploadKernel(
    network::ConvolutionParams const& params, nvinfer1::DataType type, TensorFormat format, int64_t channels)
{
    if (!channelsLast(format))
    {
        return uploadWeights(params.kernel, type);
    }
    // Each output map's [C / groups, k...] block becomes [k..., C / groups], then each tap's channels are widened to
    // `channels` with zeros: the bytes move, the values do not.
    network::WeightsBuffer const& kernel = params.kernel;
    int64_t const maps = params.nbOutputMaps;
    int64_t const taps = volume(network::dimsToVector(params.kernelSize));
    if (maps <= 0 || taps <= 0 || kernel.count() % (maps * taps) != 0)
    {
        throw std::invalid_argument("convolution: the kernel's size does not match its output maps and window");
    }
    int64_t const given = kernel.count() / (maps * taps);
    size_t const element = elementSize(kernel.type());
    std::vector<std::byte> reordered(static_cast<size_t>(kernel.count()) * element);
    backend::transposeBatched(kernel.data(), reordered.data(), maps, given, taps, element);
    std::vector<std::byte> widened(static_cast<size_t>(maps * taps * channels) * element);
    for (int64_t tap = 0; tap < maps * taps; ++tap)
    {
        std::memcpy(widened.data() + static_cast<size_t>(tap * channels) * element,
            reordered.data() + static_cast<size_t>(tap * given) * element, static_cast<size_t>(given) * element);
    }
    return uploadWeights(
        network::WeightsBuffer(nvinfer1::Weights{kernel.type(), widened.data(), maps * taps * channels}), type);
}

DeviceBuffer uploadWeights(network::WeightsBuffer const& weights, nvinfer1::DataType type)
{
    size_t const count = static_cast<size_t>(weights.count());
    if (weights.type() != nvinfer1::DataType::kFLOAT && weights.type() != nvinfer1::DataType::kHALF)
    {
        throw std::invalid_argument("convolution: the CUDA backend takes FP32 or FP16 weights");
    }
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i)
    {
        values[i] = weights.type() == nvinfer1::DataType::kFLOAT
            ? static_cast<float const*>(weights.data())[i]
            : halfBitsToFloat(static_cast<uint16_t const*>(weights.data())[i]);
    }
    DeviceBuffer buffer(count * elementSize(type));
    if (type == nvinfer1::DataType::kHALF)
    {
        std::vector<uint16_t> halves(count);
        for (size_t i = 0; i < count; ++i)
        {
            halves[i] = floatToHalfBits(values[i]);
        }
        check(cudaMemcpy(buffer.data(), halves.data(), count * 2, cudaMemcpyHostToDevice), "uploading weights");
    }
    else
    {
        check(cudaMemcpy(buffer.data(), values.data(), count * 4, cudaMemcpyHostToDevice), "uploading weights");
    }
    return buffer;
}

FusedActivation::FusedActivation(bool relu)
{
    checkCudnn(cudnnCreateActivationDescriptor(&mDescriptor), "creating a descriptor");
    cudnnStatus_t const status = cudnnSetActivationDescriptor(
        mDescriptor, relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY, CUDNN_PROPAGATE_NAN, 0.0);
    if (status != CUDNN_STATUS_SUCCESS)
    {
        cudnnDestroyActivationDescriptor(mDescriptor);
        checkCudnn(status, "describing the fused activation");
    }
}

FusedActivation::~FusedActivation()
{
    cudnnDestroyActivationDescriptor(mDescriptor);
}

cudnnStatus_t convolveWithEpilogue(cudnnHandle_t handle, ConvolutionDescriptors const& descriptors,
    cudnnConvolutionFwdAlgo_t algorithm, FusedActivation const& activation, FusedConvolutionData const& data)
{
    float const one = 1.0F;
    // Without a residual, alpha2 = 0 lets z alias the output.
    float const alpha2 = data.residual != nullptr ? 1.0F : 0.0F;
    void const* const z = data.residual != nullptr ? data.residual : data.output;
    return cudnnConvolutionBiasActivationForward(handle, &one, descriptors.input, data.input, descriptors.filter,
        data.kernel, descriptors.convolution, algorithm, data.workspace, data.workspaceBytes, &alpha2,
        descriptors.output, z, descriptors.bias, data.bias, activation.get(), descriptors.output, data.output);
}

} // namespace kiln::cuda
