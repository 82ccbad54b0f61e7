#include "backend/cuda/passes/product_tuning.h"

#include "core/data_type.h"
#include "core/dims_text.h"
#include "core/logging.h"
#include "network/layers/constant.h"
#include "plan/plan_graph.h"

#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>

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

//! The timing of `record`'s product as `params` describes it, of inputs shaped `input0` and `input1`: the cache's,
//! else timed and recorded in the cache; none where neither can answer (no GPU, a product cuBLASLt cannot time).
//! False with `error` on a cache miss under errorOnCacheMiss.
bool timing(plan::LayerRecord const& record, network::MatrixMultiplyParams const& params, Shape const& input0,
    Shape const& input1, nvinfer1::DataType type, ProductTuning const& tuning,
    std::optional<nvinfer1::TimingCacheValue>& value, std::string& error)
{
    std::function<nvinfer1::TimingCacheValue()> time;
    if (tuning.timer != nullptr)
    {
        time = [&] {
            ProductAlgorithmTimer::Result const timed
                = tuning.timer->fastest(params, record.epilogue, input0, input1, type);
            return nvinfer1::TimingCacheValue{timed.choice.tactic(), timed.milliseconds};
        };
    }
    try
    {
        return tuning.cache.cachedOrTimed(describe(params, record.epilogue, input0, input1, type), record.name,
            tuning.errorOnCacheMiss, tuning.device, time, value, error);
    }
    catch (std::exception const&)
    {
        // The heuristic's first choice needs no timing: a product that cannot be timed here (an empty one, one
        // cuBLASLt has no algorithm for) runs it, or fails with the reason when a context prepares it.
        value.reset();
        return true;
    }
}

//! The cuBLASLt rank `value` holds; none where there is no timing or its tactic is no rank (a damaged cache): the
//! heuristic's first choice runs then.
std::optional<AlgorithmChoice> rankOf(std::optional<nvinfer1::TimingCacheValue> const& value)
{
    AlgorithmChoice const stored = value ? AlgorithmChoice::fromTactic(value->tacticHash) : AlgorithmChoice{};
    return stored.source == AlgorithmChoice::Source::kGEMM ? std::optional<AlgorithmChoice>(stored) : std::nullopt;
}

//! The constant layer writing `product`'s second operand where the pass may store its values transposed: fixed
//! floating-point values of two axes or more, all but the last two of extent 1, that only this product reads as a
//! matrix and the application does not see. Nullptr otherwise.
plan::LayerRecord* transposableWeights(plan::PlanModel& model, std::vector<int64_t> const& producers,
    std::vector<std::vector<size_t>> const& readers, plan::LayerRecord const& product)
{
    int32_t const weights = product.inputs[1];
    int64_t const producer = producers[weights];
    bool const matrix = plan::paramsOf<network::MatrixMultiplyParams>(product)->op1
        != nvinfer1::MatrixOperation::kVECTOR;
    if (!matrix || producer < 0 || readers[weights].size() != 1 || plan::isObserved(model.tensors[weights]))
    {
        return nullptr;
    }
    plan::LayerRecord& constant = model.layers[producer];
    network::ConstantParams const* params = plan::fixedConstant(constant);
    if (params == nullptr || !isFloatType(params->weights.type()))
    {
        return nullptr;
    }
    nvinfer1::Dims const& dims = params->dimensions;
    for (int32_t axis = 0; axis + 2 < dims.nbDims; ++axis)
    {
        if (dims.d[axis] != 1)
        {
            return nullptr;
        }
    }
    return dims.nbDims >= 2 ? &constant : nullptr;
}

//! The operation that reads weights stored transposed as `op` read them as stored.
nvinfer1::MatrixOperation transposeOf(nvinfer1::MatrixOperation op)
{
    return op == nvinfer1::MatrixOperation::kNONE ? nvinfer1::MatrixOperation::kTRANSPOSE
                                                  : nvinfer1::MatrixOperation::kNONE;
}

//! `shape` with its last two extents swapped.
Shape transposedShape(Shape shape)
{
    std::swap(shape[shape.size() - 2], shape[shape.size() - 1]);
    return shape;
}

//! Stores `constant`'s values (transposableWeights) transposed in their last two axes, and makes `product`, their
//! only reader, read them through the other operation, so that it computes what it did.
void storeTransposed(plan::PlanModel& model, plan::LayerRecord& constant, plan::LayerRecord& product)
{
    auto const& params = *plan::paramsOf<network::ConstantParams>(constant);
    nvinfer1::Dims dims = params.dimensions;
    int64_t const rows = dims.d[dims.nbDims - 2];
    int64_t const columns = dims.d[dims.nbDims - 1];
    size_t const size = elementSize(params.weights.type());
    auto const* from = static_cast<uint8_t const*>(params.weights.data());
    std::vector<uint8_t> to(static_cast<size_t>(params.weights.count()) * size);
    for (int64_t r = 0; r < rows; ++r)
    {
        for (int64_t c = 0; c < columns; ++c)
        {
            std::memcpy(&to[(c * rows + r) * size], &from[(r * columns + c) * size], size);
        }
    }
    std::swap(dims.d[dims.nbDims - 2], dims.d[dims.nbDims - 1]);
    auto transposed = std::make_shared<network::ConstantParams>(params);
    transposed->dimensions = dims;
    transposed->weights
        = network::WeightsBuffer(nvinfer1::Weights{params.weights.type(), to.data(), params.weights.count()});
    constant.params = std::move(transposed);

    std::vector<int32_t>& extents = model.tensors[product.inputs[1]].dims;
    std::swap(extents[extents.size() - 2], extents[extents.size() - 1]);

    auto reading
        = std::make_shared<network::MatrixMultiplyParams>(*plan::paramsOf<network::MatrixMultiplyParams>(product));
    reading->op1 = transposeOf(reading->op1);
    product.params = std::move(reading);
}

} // namespace

bool tuneProducts(plan::PlanModel& model, std::function<Shape(int32_t)> const& optShape, int32_t networkTensors,
    ProductTuning const& tuning, std::string& error)
{
    auto const evaluated = [networkTensors](int32_t tensor) { return tensor >= 0 && tensor < networkTensors; };
    std::vector<std::vector<size_t>> const readers = plan::readersOf(model);
    std::vector<int64_t> const producers = plan::producersOf(model);
    size_t storedTransposed = 0;
    for (plan::LayerRecord& record : model.layers)
    {
        bool const product = record.type == nvinfer1::LayerType::kMATRIX_MULTIPLY && record.inputs.size() == 2;
        if (!product || !evaluated(record.inputs[0]) || !evaluated(record.inputs[1]))
        {
            continue;
        }
        auto const& params = *plan::paramsOf<network::MatrixMultiplyParams>(record);
        Shape const input0 = optShape(record.inputs[0]);
        Shape const input1 = optShape(record.inputs[1]);
        nvinfer1::DataType const type = plan::slotType(model, record, 0);
        std::optional<nvinfer1::TimingCacheValue> asStored;
        if (!timing(record, params, input0, input1, type, tuning, asStored, error))
        {
            return false;
        }
        // Weights the model alone holds may be stored either way round: cuBLASLt's fastest kernels for one layout
        // can be much faster than for the other (a Linear layer's [out, in] weights are what cuBLAS is tuned for).
        plan::LayerRecord* const weights = transposableWeights(model, producers, readers, record);
        std::optional<nvinfer1::TimingCacheValue> transposed;
        if (weights != nullptr && asStored)
        {
            network::MatrixMultiplyParams other = params;
            other.op1 = transposeOf(params.op1);
            if (!timing(record, other, input0, transposedShape(input1), type, tuning, transposed, error))
            {
                return false;
            }
        }
        bool const transpose = rankOf(transposed) && transposed->timingMSec < asStored->timingMSec;
        if (transpose)
        {
            storeTransposed(model, *weights, record);
            logVerbose("Matrix multiply \"" + record.name + "\": its weights are stored transposed, as cuBLASLt "
                + "multiplies them faster so (" + std::to_string(transposed->timingMSec) + " ms against "
                + std::to_string(asStored->timingMSec) + ")");
            ++storedTransposed;
        }
        std::optional<AlgorithmChoice> const choice = rankOf(transpose ? transposed : asStored);
        record.backendChoice = choice ? choice->encode() : std::vector<uint8_t>{};
    }
    if (storedTransposed > 0)
    {
        logInfo("Matrix multiplies: " + std::to_string(storedTransposed)
            + " store their weights transposed, the layout cuBLASLt multiplies faster at their shapes");
    }
    return true;
}

} // namespace kiln::cuda
