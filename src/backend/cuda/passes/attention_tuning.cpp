#include "backend/cuda/passes/attention_tuning.h"

#include "core/dims_text.h"
#include "core/logging.h"
#include "plan/plan_graph.h"

#include <exception>
#include <optional>
#include <sstream>

namespace kiln::cuda
{
namespace
{

//! Permutation `axes` of an operand stored in `storedRank` axes, one of them its pick's where `pick` picks, as text.
std::string axesText(nvinfer1::Permutation const& axes, size_t storedRank, network::AttentionPick const& pick = {})
{
    std::string text;
    size_t const rank = storedRank - (pick.picks() && storedRank > 0 ? 1 : 0);
    for (size_t i = 0; i < rank; ++i)
    {
        text += (i == 0 ? "" : ",") + std::to_string(axes.order[i]);
    }
    if (pick.picks())
    {
        text += " pick " + std::to_string(pick.axis) + ":" + std::to_string(pick.index);
    }
    return text;
}

//! Everything that decides which is faster (not the operands' values, nor the scale).
std::string describe(network::AttentionParams const& params, AttentionOperandShapes const& shapes)
{
    std::ostringstream text;
    text << "attention type " << static_cast<int32_t>(nvinfer1::DataType::kHALF) << " query " << shapeSpec(shapes[0])
         << " axes " << axesText(params.queryAxes, shapes[0].size(), params.queryPick) << " keys "
         << shapeSpec(shapes[1]) << " axes " << axesText(params.keyAxes, shapes[1].size(), params.keyPick) << " by row "
         << params.keysByRow << " values " << shapeSpec(shapes[2]) << " axes "
         << axesText(params.valueAxes, shapes[2].size(), params.valuePick) << " output " << shapeSpec(shapes[3])
         << " axes " << axesText(params.outputAxes, shapes[3].size());
    return text.str();
}

//! What the timing of `record` found: its cached or timed choice; none where neither answers, the layer cannot be
//! timed, or the cache holds a tactic no attention runs (a damaged cache). False with `error` on a cache miss under
//! errorOnCacheMiss.
bool timedChoice(plan::LayerRecord const& record, network::AttentionParams const& params,
    AttentionOperandShapes const& shapes, AttentionTuning const& tuning, std::optional<AlgorithmChoice>& choice,
    std::string& error)
{
    std::function<nvinfer1::TimingCacheValue()> time;
    if (tuning.timer != nullptr)
    {
        time = [&] {
            AttentionAlgorithmTimer::Result const timed = tuning.timer->fastest(params, shapes);
            return nvinfer1::TimingCacheValue{timed.choice.tactic(), timed.milliseconds};
        };
    }
    std::optional<nvinfer1::TimingCacheValue> value;
    try
    {
        if (!tuning.cache.cachedOrTimed(
                describe(params, shapes), record.name, tuning.errorOnCacheMiss, tuning.device, time, value, error))
        {
            return false;
        }
    }
    catch (std::exception const& e)
    {
        logVerbose("Attention \"" + record.name + "\" is not timed (" + e.what() + "); the rule by key count runs it");
        return true;
    }
    AlgorithmChoice const stored = value ? AlgorithmChoice::fromTactic(value->tacticHash) : AlgorithmChoice{};
    if (stored == AlgorithmChoice::graphEngine(0) || stored == AlgorithmChoice::kilnKernel())
    {
        choice = stored;
    }
    return true;
}

} // namespace

bool cudnnMayRunAttention(plan::LayerRecord const& record)
{
    if (record.type != network::kAttentionLayerType || record.inputs.size() < 3 || record.outputs.size() != 1)
    {
        return false;
    }
    bool const masked = record.inputs.size() > 3 && record.inputs[3] >= 0;
    auto const* params = plan::paramsOf<network::AttentionParams>(record);
    return record.precision == nvinfer1::DataType::kHALF && !masked && params != nullptr && !params->rounds()
        && !params->zeroNaNProbabilities;
}

bool tuneAttention(plan::PlanModel& model, std::function<Shape(int32_t)> const& optShape, int32_t networkTensors,
    AttentionTuning const& tuning, std::string& error)
{
    auto const evaluated = [networkTensors](int32_t tensor) { return tensor >= 0 && tensor < networkTensors; };
    size_t onCudnn = 0;
    size_t onKernel = 0;
    for (plan::LayerRecord& record : model.layers)
    {
        if (!cudnnMayRunAttention(record) || !evaluated(record.inputs[0]) || !evaluated(record.inputs[1])
            || !evaluated(record.inputs[2]) || !evaluated(record.outputs[0]))
        {
            continue;
        }
        AttentionOperandShapes const shapes{optShape(record.inputs[0]), optShape(record.inputs[1]),
            optShape(record.inputs[2]), optShape(record.outputs[0])};
        std::optional<AlgorithmChoice> choice;
        if (!timedChoice(record, *plan::paramsOf<network::AttentionParams>(record), shapes, tuning, choice, error))
        {
            return false;
        }
        record.backendChoice = choice ? choice->encode() : std::vector<uint8_t>{};
        if (choice)
        {
            ++(*choice == AlgorithmChoice::kilnKernel() ? onKernel : onCudnn);
        }
    }
    if (onCudnn + onKernel > 0)
    {
        logInfo("Attention: " + std::to_string(onCudnn) + " layers run cuDNN's fused attention, "
            + std::to_string(onKernel) + " Kiln's kernel, the faster at their shapes");
    }
    return true;
}

} // namespace kiln::cuda
