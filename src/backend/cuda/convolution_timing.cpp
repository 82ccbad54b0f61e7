#include "backend/cuda/convolution_timing.h"

#include "backend/cuda/convolution_descriptors.h"
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

CudaConvolutionTimer::Result ConvolutionTimer::fastest(network::ConvolutionParams const& params, cpu::Shape const& inputShape,
    nvinfer1::DataType type, size_t workspaceLimit)
{
    ConvolutionDescriptors descriptors;
    descriptors.describe(params, inputShape, type);
    size_t const element = cpu::elementSize(type);
    // Kernel [K, C / groups, k...].
    size_t const kernelElements = static_cast<size_t>(params.nbOutputMaps * (inputShape[1] / params.nbGroups))
        * elementsOf(cpu::Shape(params.kernelSize.d, params.kernelSize.d + params.kernelSize.nbDims));
    auto grow = [this](DeviceBuffer& buffer, size_t bytes) {
        if (buffer.size() < bytes)
        {
            char const* const what = "buffers to time convolution algorithms in";
            buffer = mAllocator != nullptr ? DeviceBuffer(*mAllocator, bytes, what) : DeviceBuffer(bytes, what);
            cudaMemset(buffer.data(), 0, bytes);
        }
    };
    grow(mScratch->input, elementsOf(inputShape) * element);
    grow(mScratch->kernel, kernelElements * element);
    grow(mScratch->output, elementsOf(descriptors.outputShape()) * element);
    size_t const workspace = std::min(workspaceLimit, kMaxTimingWorkspace);
    grow(mScratch->workspace, workspace);

    int found = 0;
    cudnnConvolutionFwdAlgoPerf_t results[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    checkCudnn(cudnnFindConvolutionForwardAlgorithmEx(mHandle, descriptors.input, mScratch->input.data(),
                   descriptors.filter, mScratch->kernel.data(), descriptors.convolution, descriptors.output,
                   mScratch->output.data(), CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, results,
                   mScratch->workspace.data(), workspace),
        "timing algorithms");
    // cuDNN sorts the results by time; the first it ran with the math type the layer runs in wins.
    for (int i = 0; i < found; ++i)
    {
        if (descriptors.accepts(results[i]) && results[i].memory <= workspace)
        {
            return {static_cast<int32_t>(results[i].algo), results[i].time};
        }
    }
    throw std::runtime_error("convolution: no cuDNN algorithm ran within the workspace limit of "
        + std::to_string(workspace) + " bytes");
}

} // namespace kiln::cuda
