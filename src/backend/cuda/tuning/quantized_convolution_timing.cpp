#include "backend/cuda/tuning/quantized_convolution_timing.h"

#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/libraries/cudnn/convolution_descriptors.h"
#include "backend/cuda/libraries/cudnn/quantized_convolution_graph.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>

namespace kiln::cuda
{
namespace
{

//! Runs timed per choice, after one that loads the kernels.
constexpr int kTimedRuns = 10;

//! How many of the graph engines cuDNN ranks highest are timed: each costs about half a second of build time to
//! compile, and at ResNet-50's shapes the fastest was among cuDNN's first three.
constexpr int64_t kGraphEnginesTimed = 4;

} // namespace

QuantizedConvolutionTimer::QuantizedConvolutionTimer(nvinfer1::IGpuAllocator* allocator)
    : mAllocator(allocator)
{
}

QuantizedConvolutionAlgorithmTimer::Result QuantizedConvolutionTimer::fastest(
    network::QuantizedConvolutionParams const& params, Shape const& inputShape)
{
    Shape const outputShape = convolutionGeometry(params, inputShape, false).layerOutput;
    // Zeros: the values do not change the time.
    grownZeroed(mInput, static_cast<size_t>(volume(inputShape)), mAllocator, "buffers to time INT8 convolutions in");
    grownZeroed(
        mResidual, static_cast<size_t>(volume(outputShape)), mAllocator, "buffers to time INT8 convolutions in");
    grownZeroed(mOutput, static_cast<size_t>(volume(outputShape)), mAllocator, "buffers to time INT8 convolutions in");
    std::optional<AllocatorScope> scope;
    if (mAllocator != nullptr)
    {
        scope.emplace(*mAllocator); // the layer's and the graph's buffers too come from the build's allocator
    }

    plan::LayerRecord record;
    record.backendChoice = AlgorithmChoice::kilnKernel().encode();
    LayerContext const context{record, nvinfer1::DataType::kINT8, TensorFormat::kHWC, mHandles, mScratch};
    std::unique_ptr<DeviceLayer> const layer = lower(params, context);
    LayerInputs inputs{ConstTensorView(nvinfer1::DataType::kINT8, inputShape, mInput.data(), TensorFormat::kHWC)};
    if (params.addsResidual)
    {
        inputs.push_back(ConstTensorView(nvinfer1::DataType::kINT8, outputShape, mResidual.data(), TensorFormat::kHWC));
    }
    LayerOutputs const outputs{TensorView{nvinfer1::DataType::kINT8, outputShape, mOutput.data(), TensorFormat::kHWC}};
    Result fastest{AlgorithmChoice::kilnKernel(),
        mStopwatch.meanMilliseconds(
            kTimedRuns, [&] { layer->run(inputs, outputs, nullptr); }, "timing an INT8 convolution")};

    QuantizedConvolutionGraph graph(mHandles.cudnn(nullptr), params, inputShape,
        std::make_shared<QuantizedConvolutionGraphConstants const>(params));
    QuantizedConvolutionGraphData const data{mInput.data(), mResidual.data(), mOutput.data(), nullptr};
    for (int64_t rank = 0; rank < std::min(graph.candidateCount(), kGraphEnginesTimed); ++rank)
    {
        if (!graph.choose(rank, QuantizedConvolutionGraph::kWorkspaceLimit))
        {
            continue;
        }
        mScratch.reserve(static_cast<size_t>(graph.workspaceBytes()), nullptr, "a cuDNN engine's workspace");
        QuantizedConvolutionGraphData withWorkspace = data;
        withWorkspace.workspace = mScratch.data();
        float const milliseconds = mStopwatch.meanMilliseconds(
            kTimedRuns, [&] { graph.execute(mHandles.cudnn(nullptr), withWorkspace); },
            "timing a cuDNN engine of an INT8 convolution");
        if (milliseconds < fastest.milliseconds)
        {
            fastest = Result{AlgorithmChoice::graphEngine(static_cast<int32_t>(rank)), milliseconds};
        }
    }
    return fastest;
}

} // namespace kiln::cuda
