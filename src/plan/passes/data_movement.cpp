#include "plan/passes/data_movement.h"

#include "network/layers/concatenation.h"
#include "network/layers/pooling.h"
#include "network/layers/shuffle.h"
#include "network/layers/slice.h"
#include "plan/plan_graph.h"

#include <functional>
#include <numeric>
#include <vector>

namespace kiln::plan
{
namespace
{

int64_t product(std::vector<int64_t> const& dims, size_t end)
{
    return std::accumulate(
        dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(end), int64_t{1}, std::multiplies<int64_t>());
}

//! Where `order[i] == value` (the axis a permutation moves `value` to), among the first `rank` entries.
std::optional<size_t> positionOf(nvinfer1::Permutation const& order, size_t rank, int32_t value)
{
    for (size_t i = 0; i < rank; ++i)
    {
        if (order.order[i] == value)
        {
            return i;
        }
    }
    return std::nullopt;
}

//! A shuffle is a transpose, a row-major reshape and a transpose. The axis survives the reshape where the elements
//! before it number the same on both sides and it keeps its extent: then each of its indices still selects the same
//! elements.
std::optional<int32_t> shuffledAxis(PlanModel const& model, LayerRecord const& layer, int32_t inputAxis)
{
    auto const& params = *paramsOf<network::ShuffleParams>(layer);
    std::optional<std::vector<int64_t>> const in = constantDims(model, layer.inputs[0]);
    std::optional<std::vector<int64_t>> const out = constantDims(model, layer.outputs[0]);
    if (!in || !out)
    {
        return std::nullopt;
    }
    std::vector<int64_t> transposed(in->size());
    std::vector<int64_t> reshaped(out->size());
    for (size_t i = 0; i < in->size(); ++i)
    {
        int32_t const from = params.firstTranspose.order[i];
        if (from < 0 || static_cast<size_t>(from) >= in->size())
        {
            return std::nullopt;
        }
        transposed[i] = (*in)[from];
    }
    for (size_t j = 0; j < out->size(); ++j)
    {
        int32_t const from = params.secondTranspose.order[j];
        if (from < 0 || static_cast<size_t>(from) >= out->size())
        {
            return std::nullopt;
        }
        reshaped[from] = (*out)[j];
    }
    std::optional<size_t> const before = positionOf(params.firstTranspose, in->size(), inputAxis);
    if (!before)
    {
        return std::nullopt;
    }
    for (size_t q = 0; q < reshaped.size(); ++q)
    {
        if (reshaped[q] == transposed[*before] && product(reshaped, q) == product(transposed, *before))
        {
            std::optional<size_t> const after
                = positionOf(params.secondTranspose, out->size(), static_cast<int32_t>(q));
            return after ? std::optional<int32_t>(static_cast<int32_t>(*after)) : std::nullopt;
        }
    }
    return std::nullopt;
}

//! A slice keeps an axis whole where it reads all of it, from its start, one index after the other.
std::optional<int32_t> slicedAxis(PlanModel const& model, LayerRecord const& layer, int32_t inputAxis)
{
    auto const& params = *paramsOf<network::SliceParams>(layer);
    for (size_t slot = 1; slot < layer.inputs.size(); ++slot)
    {
        if (layer.inputs[slot] >= 0)
        {
            return std::nullopt; // bounds given at run time
        }
    }
    std::optional<int64_t> const extent = constantExtent(model, layer.inputs[0], static_cast<size_t>(inputAxis));
    bool const whole = inputAxis < params.start.nbDims && inputAxis < params.size.nbDims
        && inputAxis < params.stride.nbDims && params.start.d[inputAxis] == 0 && params.stride.d[inputAxis] == 1
        && extent && params.size.d[inputAxis] == *extent;
    return whole ? std::optional<int32_t>(inputAxis) : std::nullopt;
}

} // namespace

bool movesDataOnly(LayerRecord const& layer)
{
    if (layer.outputs.size() != 1 || layer.inputs.empty() || layer.inputs[0] < 0 || layer.epilogue.any())
    {
        return false;
    }
    if (auto const* slice = paramsOf<network::SliceParams>(layer))
    {
        return slice->mode != nvinfer1::SampleMode::kFILL;
    }
    if (auto const* pooling = paramsOf<network::PoolingParams>(layer))
    {
        return pooling->poolingType == nvinfer1::PoolingType::kMAX && layer.inputs.size() == 1;
    }
    return paramsOf<network::ShuffleParams>(layer) != nullptr
        || paramsOf<network::ConcatenationParams>(layer) != nullptr;
}

std::optional<int32_t> carriedAxis(PlanModel const& model, LayerRecord const& layer, size_t input, int32_t inputAxis)
{
    auto const rank = static_cast<int32_t>(model.tensors[layer.inputs[input]].dims.size());
    if (inputAxis < 0 || inputAxis >= rank)
    {
        return std::nullopt;
    }
    if (paramsOf<network::ShuffleParams>(layer) != nullptr)
    {
        return shuffledAxis(model, layer, inputAxis);
    }
    if (paramsOf<network::SliceParams>(layer) != nullptr)
    {
        return slicedAxis(model, layer, inputAxis);
    }
    if (auto const* concatenation = paramsOf<network::ConcatenationParams>(layer))
    {
        int32_t const joined = concatenation->axis < 0 ? concatenation->axis + rank : concatenation->axis;
        return inputAxis != joined ? std::optional<int32_t>(inputAxis) : std::nullopt;
    }
    if (auto const* pooling = paramsOf<network::PoolingParams>(layer))
    {
        bool const pooled = inputAxis >= rank - pooling->windowSize.nbDims;
        return pooled ? std::nullopt : std::optional<int32_t>(inputAxis);
    }
    return std::nullopt;
}

} // namespace kiln::plan
