#include "backend/cuda/tuning/convolution_timing.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/convolution/depthwise_convolution.h"
#include "backend/cuda/kernels/convolution/small_channel_convolution.h"
#include "backend/cuda/libraries/cublaslt/matrix_multiply_descriptors.h"
#include "backend/cuda/libraries/cublaslt/patch_convolution.h"
#include "backend/cuda/libraries/cublaslt/pointwise_convolution.h"
#include "backend/cuda/libraries/cudnn/convolution_graph.h"
#include "backend/cuda/memory/device_buffer.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <type_traits>

namespace kiln::cuda
{
namespace
{

size_t elementsOf(Shape const& shape)
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

//! How many of the graph engines cuDNN ranks highest are timed: its ranking is good enough that the fastest is
//! nearly always among the first few, and each one timed costs build time.
constexpr int64_t kGraphEnginesTimed = 8;

//! Runs of each algorithm or graph engine timed, after one that loads its kernels.
constexpr int kTimedRuns = 5;

//! Keeps `choice` as `fastest` where nothing is kept yet or it ran faster.
void keepFaster(std::optional<AlgorithmTimer::Result>& fastest, AlgorithmChoice choice, float milliseconds)
{
    if (!fastest || milliseconds < fastest->milliseconds)
    {
        fastest = AlgorithmTimer::Result{choice, milliseconds};
    }
}

} // namespace

//! Buffers that grow to the largest layer timed; their contents are zeros, as the data does not change the timing.
struct ConvolutionTimer::Scratch
{
    DeviceBuffer input;
    DeviceBuffer kernel;
    DeviceBuffer output;
    DeviceBuffer bias;
    DeviceBuffer residual;
    DeviceBuffer workspace;
};

ConvolutionTimer::ConvolutionTimer(nvinfer1::IGpuAllocator* allocator)
    : mAllocator(allocator)
    , mScratch(std::make_unique<Scratch>())
{
    checkCudnn(cudnnCreate(&mHandle), "starting cuDNN to time algorithms");
    checkCublasLt(cublasLtCreate(&mCublasLt), "starting cuBLASLt to time 1x1 convolutions");
}

ConvolutionTimer::~ConvolutionTimer()
{
    cublasLtDestroy(mCublasLt);
    cudnnDestroy(mHandle);
}

size_t ConvolutionTimer::prepareScratch(ConvolutionDescriptors const& descriptors, int64_t kernelElements,
    Shape const& inputShape, nvinfer1::DataType type, size_t workspaceLimit)
{
    size_t const element = elementSize(type);
    auto grow = [this](DeviceBuffer& buffer, size_t bytes) {
        grownZeroed(buffer, bytes, mAllocator, "buffers to time convolution algorithms in");
    };
    grow(mScratch->input, elementsOf(inputShape) * element);
    grow(mScratch->kernel, static_cast<size_t>(kernelElements) * element);
    grow(mScratch->output, elementsOf(descriptors.outputShape()) * element);
    // A fused residual is shaped as the output; a bias has one value per output map.
    grow(mScratch->residual, elementsOf(descriptors.outputShape()) * element);
    grow(mScratch->bias, static_cast<size_t>(descriptors.outputShape()[1]) * element);
    size_t const workspace = std::min(workspaceLimit, kMaxTimingWorkspace);
    grow(mScratch->workspace, workspace);
    return workspace;
}

template <typename Performance>
AlgorithmTimer::Result ConvolutionTimer::firstAccepted(
    ConvolutionDescriptors const& descriptors, Performance const* results, int found, size_t workspace) const
{
    Performance const* const chosen = descriptors.firstAccepted(results, found, workspace);
    if (chosen == nullptr)
    {
        throw std::runtime_error("convolution: no cuDNN algorithm ran within the workspace limit of "
            + std::to_string(workspace) + " bytes");
    }
    return {AlgorithmChoice::perCall(static_cast<int32_t>(chosen->algo)), chosen->time};
}

AlgorithmTimer::Result ConvolutionTimer::fastest(network::ConvolutionParams const& params,
    plan::Epilogue const& epilogue, Shape const& inputShape, nvinfer1::DataType type, TensorFormat format,
    size_t workspaceLimit)
{
    // Timed as the layer will run: with the input channels cuDNN reads (padded for FP16 tensor cores).
    Shape shape = inputShape;
    shape[1] = cudnnChannels(shape[1], format);
    ConvolutionDescriptors descriptors;
    descriptors.describe(params, shape, type, format);
    // Padding widens each output map's kernel by the added channels (it happens only without groups).
    int64_t const kernelElements = shape[1] == inputShape[1] ? params.kernel.count()
                                                             : params.kernel.count() / inputShape[1] * shape[1];
    size_t const workspace = prepareScratch(descriptors, kernelElements, shape, type, workspaceLimit);
    int found = 0;
    cudnnConvolutionFwdAlgoPerf_t results[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    checkCudnn(
        cudnnFindConvolutionForwardAlgorithmEx(mHandle, descriptors.input, mScratch->input.data(), descriptors.filter,
            mScratch->kernel.data(), descriptors.convolution, descriptors.output, mScratch->output.data(),
            CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, results, mScratch->workspace.data(), workspace),
        "timing algorithms");
    std::optional<Result> fastest = fastestGraphEngine(params, epilogue, shape, type, format, workspace);
    // cudnnFind's own times run high (up to twice a warm run's, at batch 256) and leave out the epilogue: its winner is
    // timed again as the layer runs it, as the graph engines are.
    if (cudnnConvolutionFwdAlgoPerf_t const* const fastestPerCall
        = descriptors.firstAccepted(results, found, workspace))
    {
        keepFaster(fastest, AlgorithmChoice::perCall(static_cast<int32_t>(fastestPerCall->algo)),
            timePerCall(descriptors, fastestPerCall->algo, epilogue, workspace));
    }
    std::optional<SmallChannelConvolution> smallChannel;
    if (SmallChannelConvolution::takes(params, epilogue, inputShape, type, format))
    {
        try
        {
            smallChannel.emplace(convolutionGeometry(params, shape, false), epilogue.relu());
        }
        catch (std::invalid_argument const&)
        {
            // This GPU has too little shared memory a block for the window's tiles: cuDNN runs the layer.
        }
    }
    if (smallChannel)
    {
        keepFaster(fastest, AlgorithmChoice::kilnKernel(), timeRuns([&] {
            smallChannel->run(mScratch->input.data(), mScratch->kernel.data(), mScratch->bias.data(),
                mScratch->output.data(), nullptr);
        }));
    }
    if (DepthwiseConvolution::takes(params, epilogue, inputShape, type, format))
    {
        ConvolutionGeometry const geometry = convolutionGeometry(params, shape, false);
        for (int32_t const strip : DepthwiseConvolution::strips(geometry, type, format))
        {
            DepthwiseConvolution const depthwise(geometry, type, format, epilogue.relu(), strip);
            keepFaster(fastest, AlgorithmChoice::depthwiseKernel(strip), timeRuns([&] {
                depthwise.run(mScratch->input.data(), mScratch->kernel.data(), mScratch->bias.data(),
                    mScratch->output.data(), nullptr);
            }));
        }
    }
    // One cuBLASLt product of the input (a 1x1 convolution) or of its windows unfolded (windows that do not overlap),
    // where it takes the layer and cuBLASLt has an algorithm within the workspace. The bias as the product's layer
    // passes it: present with any epilogue (zeros where the layer has none).
    void const* const bias = params.bias.empty() && !epilogue.any() ? nullptr : mScratch->bias.data();
    void const* const residual = epilogue.addsResidual ? mScratch->residual.data() : nullptr;
    auto const timeProduct = [&]<typename Product>(std::type_identity<Product>) {
        if (!Product::takes(params, epilogue, inputShape, type, format))
        {
            return;
        }
        std::optional<Product> product;
        try
        {
            product.emplace(convolutionGeometry(params, shape, false), type, bias, epilogue.relu(), mCublasLt);
        }
        catch (std::runtime_error const&)
        {
            return; // cuBLASLt has no algorithm for the product: cuDNN runs the layer.
        }
        if (product->workspaceBytes() <= workspace)
        {
            keepFaster(fastest, AlgorithmChoice::gemm(), timeRuns([&] {
                product->run(mCublasLt, mScratch->input.data(), mScratch->kernel.data(), residual,
                    mScratch->output.data(), mScratch->workspace.data(), nullptr);
            }));
        }
    };
    timeProduct(std::type_identity<PointwiseConvolution>{});
    timeProduct(std::type_identity<PatchConvolution>{});
    return fastest ? *fastest : firstAccepted(descriptors, results, found, workspace); // which throws, saying why
}

float ConvolutionTimer::timePerCall(ConvolutionDescriptors const& descriptors, cudnnConvolutionFwdAlgo_t algorithm,
    plan::Epilogue const& epilogue, size_t workspace)
{
    if (epilogue.any())
    {
        FusedActivation const activation(epilogue.relu());
        FusedConvolutionData const data{mScratch->input.data(), mScratch->kernel.data(), mScratch->bias.data(),
            epilogue.addsResidual ? mScratch->residual.data() : nullptr, mScratch->output.data(),
            mScratch->workspace.data(), workspace};
        if (convolveWithEpilogue(mHandle, descriptors, algorithm, activation, data) == CUDNN_STATUS_SUCCESS)
        {
            return timeRuns([&] {
                checkCudnn(convolveWithEpilogue(mHandle, descriptors, algorithm, activation, data),
                    "timing an algorithm with its epilogue");
            });
        }
        // cuDNN does not fuse this epilogue with this algorithm: the convolution alone is timed.
    }
    float const one = 1.0F;
    float const zero = 0.0F;
    return timeRuns([&] {
        checkCudnn(cudnnConvolutionForward(mHandle, &one, descriptors.input, mScratch->input.data(), descriptors.filter,
                       mScratch->kernel.data(), descriptors.convolution, algorithm, mScratch->workspace.data(),
                       workspace, &zero, descriptors.output, mScratch->output.data()),
            "timing an algorithm");
    });
}

float ConvolutionTimer::timeRuns(std::function<void()> const& run)
{
    return mStopwatch.meanMilliseconds(kTimedRuns, run, "timing a convolution");
}

std::optional<AlgorithmTimer::Result> ConvolutionTimer::fastestGraphEngine(network::ConvolutionParams const& params,
    plan::Epilogue const& epilogue, Shape const& inputShape, nvinfer1::DataType type, TensorFormat format,
    size_t workspace)
{
    std::optional<ConvolutionGraph> graph;
    try
    {
        graph.emplace(mHandle, params, epilogue, !params.bias.empty(), inputShape, type, format);
    }
    catch (std::runtime_error const&)
    {
        return std::nullopt; // cuDNN's graph API does not take this convolution: the per-call API runs it
    }
    ConvolutionGraphData const data{mScratch->input.data(), mScratch->kernel.data(), mScratch->bias.data(),
        mScratch->residual.data(), mScratch->output.data(), mScratch->workspace.data()};
    std::optional<Result> fastest;
    for (int64_t rank = 0; rank < std::min(graph->candidateCount(), kGraphEnginesTimed); ++rank)
    {
        std::optional<ConvolutionGraphPlan> plan = graph->plan(rank, static_cast<int64_t>(workspace));
        if (!plan)
        {
            continue;
        }
        float const milliseconds = timeRuns([&] { plan->execute(mHandle, data); });
        if (!fastest || milliseconds < fastest->milliseconds)
        {
            fastest = Result{AlgorithmChoice::graphEngine(static_cast<int32_t>(rank)), milliseconds};
        }
    }
    return fastest;
}

AlgorithmTimer::Result ConvolutionTimer::fastestDeconvolution(
    network::DeconvolutionParams const& params, Shape const& inputShape, nvinfer1::DataType type, size_t workspaceLimit)
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
