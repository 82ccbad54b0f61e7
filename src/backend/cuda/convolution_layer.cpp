#include "backend/cuda/convolution_layer.h"

#include "backend/cpu/kernels/nn/kernel_geometry.h"
#include "backend/cuda/cuda_error.h"
#include "core/half.h"
#include "network/layers/layer_utils.h"

#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

void checkCudnn(cudnnStatus_t status, char const* what)
{
    if (status != CUDNN_STATUS_SUCCESS)
    {
        throw std::runtime_error(std::string("convolution: ") + what + ": " + cudnnGetErrorString(status));
    }
}

cudnnDataType_t cudnnType(nvinfer1::DataType type)
{
    switch (type)
    {
    case nvinfer1::DataType::kFLOAT: return CUDNN_DATA_FLOAT;
    case nvinfer1::DataType::kHALF: return CUDNN_DATA_HALF;
    default: throw std::invalid_argument("convolution: the CUDA backend convolves FP32 or FP16 data");
    }
}

//! Weights in `type` on the device: FP32 as given, or rounded to FP16 once here rather than on every run.
DeviceBuffer upload(network::WeightsBuffer const& weights, nvinfer1::DataType type)
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
    DeviceBuffer buffer(count * cpu::elementSize(type));
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

std::vector<int> toInts(cpu::Shape const& shape)
{
    return std::vector<int>(shape.begin(), shape.end());
}

//! Fully packed NCHW-style strides.
std::vector<int> packedStrides(std::vector<int> const& dims)
{
    std::vector<int> strides(dims.size(), 1);
    for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i)
    {
        strides[i] = strides[i + 1] * dims[i + 1];
    }
    return strides;
}

} // namespace

ConvolutionLayer::ConvolutionLayer(
    network::ConvolutionParams const& params, nvinfer1::DataType dataType, LibraryHandles& handles)
    : mParams(params)
    , mDataType(dataType)
    , mHandles(handles)
    , mKernel(upload(params.kernel, dataType))
{
    cudnnType(dataType); // rejects other types now, not at the first run
    if (!params.bias.empty())
    {
        mBias = upload(params.bias, dataType);
    }
    checkCudnn(cudnnCreateTensorDescriptor(&mInput), "creating a descriptor");
    checkCudnn(cudnnCreateTensorDescriptor(&mOutput), "creating a descriptor");
    checkCudnn(cudnnCreateTensorDescriptor(&mBiasDesc), "creating a descriptor");
    checkCudnn(cudnnCreateFilterDescriptor(&mFilter), "creating a descriptor");
    checkCudnn(cudnnCreateConvolutionDescriptor(&mConvolution), "creating a descriptor");
}

ConvolutionLayer::~ConvolutionLayer()
{
    cudnnDestroyTensorDescriptor(mInput);
    cudnnDestroyTensorDescriptor(mOutput);
    cudnnDestroyTensorDescriptor(mBiasDesc);
    cudnnDestroyFilterDescriptor(mFilter);
    cudnnDestroyConvolutionDescriptor(mConvolution);
}

void ConvolutionLayer::prepare(cpu::Shape const& inputShape, cudaStream_t stream)
{
    cpu::Shape const kernelSize = network::dimsToVector(mParams.kernelSize);
    cpu::Shape const stride = network::dimsToVector(mParams.stride);
    cpu::Shape const pre = network::dimsToVector(mParams.prePadding);
    cpu::Shape const post = network::dimsToVector(mParams.postPadding);
    cpu::Shape const dilation = network::dimsToVector(mParams.dilation);
    cpu::KernelGeometry const geometry = cpu::resolveKernelGeometry("convolution", cpu::WindowDirection::kFORWARD,
        inputShape, {mParams.nbOutputMaps, mParams.nbGroups, kernelSize, stride, pre, post, dilation, mParams.paddingMode});
    size_t const spatial = kernelSize.size();
    if (geometry.window.prePadding != geometry.window.postPadding)
    {
        throw std::invalid_argument("convolution: the CUDA backend pads symmetrically only (cuDNN); this layer pads "
                                    "differently before and after");
    }
    // cuDNN wants at least two spatial axes: a 1-D convolution becomes a 2-D one over a height of 1.
    auto widen = [spatial](cpu::Shape values, int64_t fill) {
        if (spatial == 1)
        {
            values.insert(values.begin(), fill);
        }
        return values;
    };
    cpu::Shape inDims = inputShape;
    cpu::Shape outDims = geometry.outputShape;
    if (spatial == 1)
    {
        inDims.insert(inDims.begin() + 2, 1);
        outDims.insert(outDims.begin() + 2, 1);
    }
    cpu::Shape filterDims{mParams.nbOutputMaps, inputShape[1] / mParams.nbGroups};
    for (int64_t k : widen(kernelSize, 1))
    {
        filterDims.push_back(k);
    }
    cudnnDataType_t const type = cudnnType(mDataType);
    std::vector<int> const in = toInts(inDims);
    std::vector<int> const out = toInts(outDims);
    std::vector<int> const filter = toInts(filterDims);
    checkCudnn(cudnnSetTensorNdDescriptor(mInput, type, static_cast<int>(in.size()), in.data(), packedStrides(in).data()),
        "describing the input");
    checkCudnn(cudnnSetTensorNdDescriptor(mOutput, type, static_cast<int>(out.size()), out.data(), packedStrides(out).data()),
        "describing the output");
    checkCudnn(cudnnSetFilterNdDescriptor(mFilter, type, CUDNN_TENSOR_NCHW, static_cast<int>(filter.size()), filter.data()),
        "describing the kernel");
    std::vector<int> const pads = toInts(widen(geometry.window.prePadding, 0));
    std::vector<int> const strides = toInts(widen(geometry.stride, 1));
    std::vector<int> const dilations = toInts(widen(geometry.dilation, 1));
    checkCudnn(cudnnSetConvolutionNdDescriptor(mConvolution, static_cast<int>(pads.size()), pads.data(), strides.data(),
                   dilations.data(), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        "describing the convolution");
    checkCudnn(cudnnSetConvolutionGroupCount(mConvolution, static_cast<int>(mParams.nbGroups)), "setting the groups");
    // FP32 without TF32 (CUDNN_FMA_MATH), so FP32 results agree with the CPU reference; FP16 on tensor cores.
    checkCudnn(cudnnSetConvolutionMathType(
                   mConvolution, mDataType == nvinfer1::DataType::kHALF ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH),
        "choosing the math");
    std::vector<int> biasDims(out.size(), 1);
    biasDims[1] = out[1];
    checkCudnn(cudnnSetTensorNdDescriptor(
                   mBiasDesc, type, static_cast<int>(biasDims.size()), biasDims.data(), packedStrides(biasDims).data()),
        "describing the bias");

    cudnnHandle_t const handle = mHandles.cudnn(stream);
    int found = 0;
    cudnnConvolutionFwdAlgoPerf_t candidates[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    checkCudnn(cudnnGetConvolutionForwardAlgorithm_v7(
                   handle, mInput, mFilter, mConvolution, mOutput, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, candidates),
        "choosing an algorithm");
    bool chosen = false;
    for (int i = 0; i < found && !chosen; ++i)
    {
        // The heuristics rank by expected speed; take the first that runs with the math type asked for.
        if (candidates[i].status == CUDNN_STATUS_SUCCESS
            && (mDataType == nvinfer1::DataType::kHALF || candidates[i].mathType == CUDNN_FMA_MATH))
        {
            mAlgorithm = candidates[i].algo;
            chosen = true;
        }
    }
    if (!chosen)
    {
        throw std::runtime_error("convolution: cuDNN offers no algorithm for this shape");
    }
    checkCudnn(cudnnGetConvolutionForwardWorkspaceSize(handle, mInput, mFilter, mConvolution, mOutput, mAlgorithm,
                   &mWorkspaceBytes),
        "sizing the workspace");
    mPreparedShape = inputShape;
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
    checkCudnn(cudnnConvolutionForward(handle, &one, mInput, inputs[0].data, mFilter, mKernel.data(), mConvolution,
                   mAlgorithm, mWorkspace.data(), mWorkspaceBytes, &zero, mOutput, outputs[0].data),
        "running");
    if (mBias.data() != nullptr)
    {
        checkCudnn(cudnnAddTensor(handle, &one, mBiasDesc, mBias.data(), &one, mOutput, outputs[0].data), "adding the bias");
    }
}

} // namespace kiln::cuda
