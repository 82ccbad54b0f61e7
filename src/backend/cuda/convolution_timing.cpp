#include "backend/cuda/convolution_timing.h"

#include "backend/cuda/device_buffer.h"

#include <algorithm>
#include <stdexcept>

namespace kiln::cuda
{
namespace
{

size_t elementsOf(cpu::Shape const& shape)
{
    size_t count = 1;
    for (int64_t extent : shape)
    {
        count *= static_cast<size_t>(extent);
    }
    return count;
}

//! The most workspace one timing offers cuDNN: algorithms wanting more are rarely the fastest, and a build should
//! not hold more device memory than the largest layers need.
constexpr size_t kMaxTimingWorkspace = size_t{1} << 30;

} // namespace

//! Buffers that grow to the largest layer timed; their contents are zeros, as the data does not change the timing.
struct ConvolutionTimer::Scratch
{
    DeviceBuffer input;
    DeviceBuffer kernel;
    DeviceBuffer output;
    DeviceBuffer workspace;
};

ConvolutionTimer::ConvolutionTimer(nvinfer1::IGpuAllocator* allocator)
    : mAllocator(allocator)
    , mScratch(std::make_unique<Scratch>())
{
    checkCudnn(cudnnCreate(&mHandle), "starting cuDNN to time algorithms");
}

ConvolutionTimer::~ConvolutionTimer()
{
    cudnnDestroy(mHandle);
}

size_t ConvolutionTimer::prepareScratch(ConvolutionDescriptors const& descriptors, int64_t kernelElements,
    cpu::Shape const& inputShape, nvinfer1::DataType type, size_t workspaceLimit)
{
    size_t const element = cpu::elementSize(type);
    auto grow = [this](DeviceBuffer& buffer, size_t bytes) {
        if (buffer.size() < bytes)
        {
            char const* const what = "buffers to time convolution algorithms in";
            buffer = mAllocator != nullptr ? DeviceBuffer(*mAllocator, bytes, what) : DeviceBuffer(bytes, what);
            cudaMemset(buffer.data(), 0, bytes);
        }
    };
    grow(mScratch->input, elementsOf(inputShape) * element);
    grow(mScratch->kernel, static_cast<size_t>(kernelElements) * element);
    grow(mScratch->output, elementsOf(descriptors.outputShape()) * element);
    size_t const workspace = std::min(workspaceLimit, kMaxTimingWorkspace);
    grow(mScratch->workspace, workspace);
    return workspace;
}

template <typename Performance>
CudaConvolutionTimer::Result ConvolutionTimer::firstAccepted(
    ConvolutionDescriptors const& descriptors, Performance const* results, int found, size_t workspace) const
{
    Performance const* const chosen = descriptors.firstAccepted(results, found, workspace);
    if (chosen == nullptr)
    {
        throw std::runtime_error("convolution: no cuDNN algorithm ran within the workspace limit of "
            + std::to_string(workspace) + " bytes");
    }
    return {static_cast<int32_t>(chosen->algo), chosen->time};
}

CudaConvolutionTimer::Result ConvolutionTimer::fastest(network::ConvolutionParams const& params,
    cpu::Shape const& inputShape, nvinfer1::DataType type, cpu::TensorFormat format, size_t workspaceLimit)
{
    // Timed as the layer will run: with the input channels cuDNN reads (padded for FP16 tensor cores).
    cpu::Shape shape = inputShape;
    shape[1] = cudnnChannels(params, shape[1], type, format);
    ConvolutionDescriptors descriptors;
    descriptors.describe(params, shape, type, format);
    // Padding widens each output map's kernel by the added channels (it happens only without groups).
    int64_t const kernelElements
        = shape[1] == inputShape[1] ? params.kernel.count() : params.kernel.count() / inputShape[1] * shape[1];
    size_t const workspace = prepareScratch(descriptors, kernelElements, shape, type, workspaceLimit);
    int found = 0;
    cudnnConvolutionFwdAlgoPerf_t results[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    checkCudnn(cudnnFindConvolutionForwardAlgorithmEx(mHandle, descriptors.input, mScratch->input.data(),
                   descriptors.filter, mScratch->kernel.data(), descriptors.convolution, descriptors.output,
                   mScratch->output.data(), CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, results,
                   mScratch->workspace.data(), workspace),
        "timing algorithms");
    return firstAccepted(descriptors, results, found, workspace);
}

CudaConvolutionTimer::Result ConvolutionTimer::fastestDeconvolution(network::DeconvolutionParams const& params,
    cpu::Shape const& inputShape, nvinfer1::DataType type, size_t workspaceLimit)
{
    ConvolutionDescriptors descriptors;
    descriptors.describeTransposed(params, inputShape, type);
    size_t const workspace = prepareScratch(descriptors, params.kernel.count(), inputShape, type, workspaceLimit);
    int found = 0;
    cudnnConvolutionBwdDataAlgoPerf_t results[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    // The layer's input is cuDNN's dy, its output dx.
    checkCudnn(cudnnFindConvolutionBackwardDataAlgorithmEx(mHandle, descriptors.filter, mScratch->kernel.data(),
                   descriptors.input, mScratch->input.data(), descriptors.convolution, descriptors.output,
                   mScratch->output.data(), CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found, results,
                   mScratch->workspace.data(), workspace),
        "timing deconvolution algorithms");
    return firstAccepted(descriptors, results, found, workspace);
}

} // namespace kiln::cuda
