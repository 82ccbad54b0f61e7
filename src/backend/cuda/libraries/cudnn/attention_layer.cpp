#include "backend/cuda/libraries/cudnn/attention_layer.h"

#include "backend/cuda/tuning/algorithm_choice.h"
#include "backend/shared/attention_geometry.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace kiln::cuda
{
namespace
{

using Geometry = backend::AttentionGeometry;

//! The deepest query and values cuDNN's attention takes on the GPUs it was measured on.
constexpr int64_t kCudnnMaxDepth = 128;
//! Where the builder did not time the layer (no GPU where the plan was built), the fewest keys for which cuDNN's
//! attention runs. Below, Kiln's kernel, which splits short rows of keys between warps, was as fast: on an H200,
//! ViT-B/16 and DeiT-S in FP16 (197 tokens) took up to 5% longer through cuDNN, while Whisper's encoder (1500 tokens)
//! took 17% to 18% less (docs/performance.md, "FP16 attention through cuDNN").
constexpr int64_t kCudnnFewestKeys = 256;
//! Elements of a 16-byte row start or vector, in FP16.
constexpr int64_t kAlignedElements = 8;
//! The bytes of one FP16 element, the one type cuDNN's attention runs here.
constexpr int64_t kHalfBytes = 2;

//! One batch axis of the four operands (query, keys, values, output): its extent and their strides along it.
struct BatchAxis
{
    int64_t extent{1};
    std::array<int64_t, 4> strides{};
};

//! Whether `outer` and `inner`, neighbours, index every operand as one axis of their extents' product would.
bool folds(BatchAxis const& outer, BatchAxis const& inner)
{
    for (size_t i = 0; i < outer.strides.size(); ++i)
    {
        if (outer.strides[i] != inner.strides[i] * inner.extent)
        {
            return false;
        }
    }
    return true;
}

//! The geometry as cuDNN's [batch, heads, rows, depth] operands, or nullopt where it does not fit them (see
//! attention_layer.h).
std::optional<SdpaOperands> sdpaOperandsOf(Geometry const& g)
{
    if (g.masked || g.depth != g.valueDepth || g.depth % kAlignedElements != 0 || g.depth > kCudnnMaxDepth)
    {
        return std::nullopt;
    }
    std::array<Geometry::Operand const*, 4> const layouts{
        &g.queryLayout, &g.keyLayout, &g.valueLayout, &g.outputLayout};
    for (Geometry::Operand const* layout : layouts)
    {
        if (layout->column != 1 || layout->row % kAlignedElements != 0)
        {
            return std::nullopt;
        }
    }
    // The batch axes that are not 1, neighbours folded where every operand allows, must come to two at most.
    std::vector<BatchAxis> axes;
    for (int32_t a = 0; a < g.batchAxes; ++a)
    {
        if (g.batchExtents[a] == 1)
        {
            continue;
        }
        BatchAxis axis{g.batchExtents[a], {}};
        for (size_t i = 0; i < layouts.size(); ++i)
        {
            axis.strides[i] = layouts[i]->batch[a];
            if (axis.strides[i] == 0 || axis.strides[i] % kAlignedElements != 0)
            {
                return std::nullopt; // broadcast (multi-query keys), or matrices not 16-byte aligned
            }
        }
        if (!axes.empty() && folds(axes.back(), axis))
        {
            axes.back() = BatchAxis{axes.back().extent * axis.extent, axis.strides};
        }
        else
        {
            axes.push_back(axis);
        }
    }
    if (axes.size() > 2)
    {
        return std::nullopt;
    }
    std::array<int64_t, 4> const rows{g.queries, g.keys, g.keys, g.queries};
    while (axes.size() < 2)
    {
        // An axis of extent 1, outside the others: its stride is never multiplied by more than 0.
        BatchAxis outer;
        for (size_t i = 0; i < layouts.size(); ++i)
        {
            outer.strides[i] = axes.empty() ? rows[i] * layouts[i]->row : axes.front().strides[i] * axes.front().extent;
        }
        axes.insert(axes.begin(), outer);
    }
    std::array<SdpaOperand, 4> operands{};
    for (size_t i = 0; i < layouts.size(); ++i)
    {
        operands[i].dims = {axes[0].extent, axes[1].extent, rows[i], g.depth};
        operands[i].strides = {axes[0].strides[i], axes[1].strides[i], layouts[i]->row, 1};
    }
    return SdpaOperands{operands[0], operands[1], operands[2], operands[3]};
}

//! Whether the layer's parameters and tensor types are ones cuDNN's attention computes as Kiln's kernel does.
bool cudnnComputes(network::AttentionParams const& params, LayerInputs const& inputs, TensorView const& output)
{
    bool const masked = inputs.size() > 3 && inputs[3].data != nullptr;
    bool halves = output.type == nvinfer1::DataType::kHALF;
    for (size_t i = 0; i < 3 && i < inputs.size(); ++i)
    {
        halves = halves && inputs[i].type == nvinfer1::DataType::kHALF;
    }
    return halves && inputs.size() >= 3 && !masked && !params.rounds() && !params.zeroNaNProbabilities;
}

} // namespace

AttentionLayer::Choice AttentionLayer::choiceOf(plan::LayerRecord const& record)
{
    AlgorithmChoice const choice = AlgorithmChoice::decode(record.backendChoice);
    switch (choice.source)
    {
    case AlgorithmChoice::Source::kHEURISTIC: return Choice::kBY_KEYS;
    case AlgorithmChoice::Source::kGRAPH_ENGINE: return Choice::kCUDNN;
    case AlgorithmChoice::Source::kKILN_KERNEL: return Choice::kKERNEL;
    default: break;
    }
    throw std::runtime_error("attention: the plan's choice of algorithm (source "
        + std::to_string(static_cast<int32_t>(choice.source)) + ") is neither cuDNN's attention nor Kiln's kernel");
}

AttentionLayer::AttentionLayer(network::AttentionParams const& params, LayerContext const& context)
    : mParams(params)
    , mHandles(context.handles)
    , mChoice(choiceOf(context.record))
{
    if (mChoice != Choice::kKERNEL && context.dataType == nvinfer1::DataType::kHALF)
    {
        mWorkspace = DeviceBuffer(kWorkspaceBytes, "attention: cuDNN's workspace");
    }
}

AttentionLayer::ShapePlan& AttentionLayer::planFor(
    LayerInputs const& inputs, TensorView const& output, cudaStream_t stream)
{
    // Compared in place: a run at a kept shape allocates nothing.
    for (ShapePlan& kept : mPlans)
    {
        if (kept.shapes[0] == inputs[0].shape && kept.shapes[1] == inputs[1].shape && kept.shapes[2] == inputs[2].shape
            && kept.shapes[3] == output.shape)
        {
            return kept;
        }
    }
    std::array<Shape, 4> const shapes{inputs[0].shape, inputs[1].shape, inputs[2].shape, output.shape};
    Geometry const g = backend::attentionGeometry({shapes[0], shapes[1], shapes[2], nullptr, shapes[3]}, mParams);
    std::optional<SdpaOperands> const operands = sdpaOperandsOf(g);
    ShapePlan made{shapes, std::nullopt, {g.queryLayout.start, g.keyLayout.start, g.valueLayout.start}};
    if (operands && (mChoice == Choice::kCUDNN || g.keys >= kCudnnFewestKeys))
    {
        made.graph = AttentionGraph::make(
            mHandles.cudnn(stream), *operands, mParams.scale, static_cast<int64_t>(mWorkspace.size()));
    }
    ShapePlan* slot = nullptr;
    if (mPlans.size() < kShapesKept)
    {
        slot = &mPlans.emplace_back(std::move(made));
    }
    else
    {
        slot = &mPlans[mOldestPlan];
        mOldestPlan = (mOldestPlan + 1) % kShapesKept;
        *slot = std::move(made);
    }
    return *slot;
}

void AttentionLayer::run(LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream)
{
    mRanOnCudnn = false;
    TensorView const& output = outputs.at(0);
    bool const tried = mChoice != Choice::kKERNEL && mWorkspace.size() != 0 && cudnnComputes(mParams, inputs, output)
        && output.count() != 0;
    ShapePlan* const plan = tried ? &planFor(inputs, output, stream) : nullptr;
    if (plan != nullptr && plan->graph)
    {
        std::array<void const*, 3> operands{};
        for (size_t i = 0; i < operands.size(); ++i)
        {
            operands[i] = static_cast<std::byte const*>(inputs[i].data) + plan->starts[i] * kHalfBytes;
        }
        if (graphAligned(operands[0]) && graphAligned(operands[1]) && graphAligned(operands[2])
            && graphAligned(output.data))
        {
            plan->graph->execute(mHandles.cudnn(stream),
                SdpaData{operands[0], operands[1], operands[2], output.data, mWorkspace.data()});
            mRanOnCudnn = true;
            return;
        }
    }
    runAttentionKernel(mParams, inputs, outputs, stream);
}

std::unique_ptr<DeviceLayer> lower(network::AttentionParams const& params, LayerContext const& context)
{
    return std::make_unique<AttentionLayer>(params, context);
}

} // namespace kiln::cuda
