#include "backend/cuda/passes/product_tuning.h"

#include "core/dims_text.h"
#include "plan/plan_graph.h"

#include <exception>
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
//! (no GPU, or a product cuBLASLt cannot time). False with `error` on a cache miss under errorOnCacheMiss.
bool choose(plan::LayerRecord const& record, Shape const& input0, Shape const& input1, nvinfer1::DataType type,
    ProductTuning const& tuning, std::optional<AlgorithmChoice>& choice, std::string& error)
{
    auto const& params = *plan::paramsOf<network::MatrixMultiplyParams>(record);
    std::string const description = describe(params, record.epilogue, input0, input1, type);
    if (std::optional<nvinfer1::TimingCacheValue> const cached = tuning.cache.find(description))
    {
        // A tactic that is no cuBLASLt rank (a damaged cache) leaves the heuristic's first choice.
        AlgorithmChoice const stored = AlgorithmChoice::fromTactic(cached->tacticHash);
        if (stored.source == AlgorithmChoice::Source::kGEMM)
        {
            choice = stored;
        }
        return true;
    }
    if (tuning.errorOnCacheMiss)
    {
        error = backend::TimingCache::missError(record.name, description);
        return false;
    }
    if (tuning.timer == nullptr)
    {
        return true;
    }
    try
    {
        ProductAlgorithmTimer::Result const timed
            = tuning.timer->fastest(params, record.epilogue, input0, input1, type);
        choice = timed.choice;
        tuning.cache.record(
            description, nvinfer1::TimingCacheValue{timed.choice.tactic(), timed.milliseconds}, tuning.device);
    }
    catch (std::exception const&)
    {
        // The heuristic's first choice needs no timing: a product that cannot be timed here (an empty one, one
        // cuBLASLt has no algorithm for) runs it, or fails with the reason when a context prepares it.
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
