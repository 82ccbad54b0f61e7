#include "backend/cuda/passes/product_tuning.h"

#include "core/dims_text.h"
#include "plan/plan_graph.h"

#include <exception>
#include <functional>
#include <optional>
#include <sstream>

namespace kiln::cuda
{
namespace
{

//! Everything that decides which algorithm is fastest (not the operands' values).
std::string describe(network::MatrixMultiplyParams const& params, plan::Epilogue const& epilogue, Shape const& input0,
    Shape const& input1, nvinfer1::DataType type)
{
    std::ostringstream text;
    text << "matrix multiply type " << static_cast<int32_t>(type) << " input0 " << shapeSpec(input0) << " op0 "
         << static_cast<int32_t>(params.op0) << " input1 " << shapeSpec(input1) << " op1 "
         << static_cast<int32_t>(params.op1) << " bias " << epilogue.bias.count() << " relu " << epilogue.relu();
    return text.str();
}

//! The rank to run for `record`: the cache's, else timed and recorded in the cache; none where neither can answer
//! (no GPU, a product cuBLASLt cannot time, a tactic that is no cuBLASLt rank). False with `error` on a cache miss
//! under errorOnCacheMiss.
bool choose(plan::LayerRecord const& record, Shape const& input0, Shape const& input1, nvinfer1::DataType type,
    ProductTuning const& tuning, std::optional<AlgorithmChoice>& choice, std::string& error)
{
    auto const& params = *plan::paramsOf<network::MatrixMultiplyParams>(record);
    std::function<nvinfer1::TimingCacheValue()> time;
    if (tuning.timer != nullptr)
    {
        time = [&] {
            ProductAlgorithmTimer::Result const timed
                = tuning.timer->fastest(params, record.epilogue, input0, input1, type);
            return nvinfer1::TimingCacheValue{timed.choice.tactic(), timed.milliseconds};
        };
    }
    std::optional<nvinfer1::TimingCacheValue> value;
    try
    {
        if (!tuning.cache.cachedOrTimed(describe(params, record.epilogue, input0, input1, type), record.name,
                tuning.errorOnCacheMiss, tuning.device, time, value, error))
        {
            return false;
        }
    }
    catch (std::exception const&)
    {
        // The heuristic's first choice needs no timing: a product that cannot be timed here (an empty one, one
        // cuBLASLt has no algorithm for) runs it, or fails with the reason when a context prepares it.
        return true;
    }
    // A tactic that is no cuBLASLt rank (a damaged cache) leaves the heuristic's first choice.
    AlgorithmChoice const stored = value ? AlgorithmChoice::fromTactic(value->tacticHash) : AlgorithmChoice{};
    if (stored.source == AlgorithmChoice::Source::kGEMM)
    {
        choice = stored;
    }
    return true;
}

} // namespace

bool tuneProducts(plan::PlanModel& model, std::function<Shape(int32_t)> const& optShape, int32_t networkTensors,
    ProductTuning const& tuning, std::string& error)
{
    auto const evaluated = [networkTensors](int32_t tensor) { return tensor >= 0 && tensor < networkTensors; };
    for (plan::LayerRecord& record : model.layers)
    {
        bool const product = record.type == nvinfer1::LayerType::kMATRIX_MULTIPLY && record.inputs.size() == 2;
        if (!product || !evaluated(record.inputs[0]) || !evaluated(record.inputs[1]))
        {
            continue;
        }
        std::optional<AlgorithmChoice> choice;
        if (!choose(record, optShape(record.inputs[0]), optShape(record.inputs[1]), plan::slotType(model, record, 0),
                tuning, choice, error))
        {
            return false;
        }
        record.backendChoice = choice ? choice->encode() : std::vector<uint8_t>{};
    }
    return true;
}

} // namespace kiln::cuda
