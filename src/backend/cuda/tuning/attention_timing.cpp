#include "backend/cuda/tuning/attention_timing.h"

#include "backend/cuda/libraries/cudnn/attention_layer.h"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace kiln::cuda
{
namespace
{

//! Runs timed per choice: an attention layer takes tens of microseconds at the shapes worth timing.
constexpr int kTimedRuns = 10;

} // namespace

AttentionTimer::AttentionTimer(nvinfer1::IGpuAllocator* allocator)
    : mAllocator(allocator)
{
}

float AttentionTimer::timeLayer(network::AttentionParams const& params, AlgorithmChoice const& choice, bool& onCudnn)
{
    plan::LayerRecord record;
    record.backendChoice = choice.encode();
    LayerContext const context{record, nvinfer1::DataType::kHALF, TensorFormat::kLINEAR, mHandles, mScratch};
    std::optional<AllocatorScope> scope;
    if (mAllocator != nullptr)
    {
        scope.emplace(*mAllocator); // the layer's workspace too comes from the build's allocator
    }
    AttentionLayer layer(params, context);
    LayerInputs const inputs{
        ConstTensorView(nvinfer1::DataType::kHALF, mShapes[0], mOperands[0].data()),
        ConstTensorView(nvinfer1::DataType::kHALF, mShapes[1], mOperands[1].data()),
        ConstTensorView(nvinfer1::DataType::kHALF, mShapes[2], mOperands[2].data()),
    };
    LayerOutputs const outputs{TensorView{nvinfer1::DataType::kHALF, mShapes[3], mOperands[3].data()}};
    float const milliseconds = mStopwatch.meanMilliseconds(
        kTimedRuns, [&] { layer.run(inputs, outputs, nullptr); }, "timing an attention layer");
    onCudnn = layer.ranOnCudnn();
    return milliseconds;
}

AttentionAlgorithmTimer::Result AttentionTimer::fastest(
    network::AttentionParams const& params, AttentionOperandShapes const& shapes)
{
    mShapes = shapes;
    for (size_t i = 0; i < mShapes.size(); ++i)
    {
        // Zeros: the values do not change the time of either.
        grownZeroed(mOperands[i], static_cast<size_t>(volume(mShapes[i])) * sizeof(uint16_t), mAllocator,
            "buffers to time attention in");
    }
    bool onCudnn = false;
    float const kernel = timeLayer(params, AlgorithmChoice::kilnKernel(), onCudnn);
    float const cudnn = timeLayer(params, AlgorithmChoice::graphEngine(0), onCudnn);
    if (onCudnn && cudnn < kernel)
    {
        return Result{AlgorithmChoice::graphEngine(0), cudnn};
    }
    return Result{AlgorithmChoice::kilnKernel(), kernel};
}

} // namespace kiln::cuda
