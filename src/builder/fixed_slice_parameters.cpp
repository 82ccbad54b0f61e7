#include "builder/fixed_slice_parameters.h"

#include "network/layers/slice.h"
#include "plan/plan_graph.h"

#include <memory>
#include <optional>
#include <tuple>
#include <vector>

namespace kiln::builder
{
namespace
{

constexpr size_t kStartInput = 1;
constexpr size_t kStrideInput = 3;

//! The values of the shape tensor that `layer` reads at `index` where no run changes them (`fixed`, by expression
//! node: plan::valuesNoRunChanges), one per axis of a rank-`rank` input.
std::optional<nvinfer1::Dims> fixedArgument(plan::PlanModel const& model,
    std::vector<std::optional<int64_t>> const& fixed, plan::LayerRecord const& layer, size_t index, size_t rank)
{
    if (index >= layer.inputs.size() || layer.inputs[index] < 0)
    {
        return std::nullopt;
    }
    std::optional<std::vector<int32_t>> const& values = model.tensors[layer.inputs[index]].values;
    if (!values || values->size() != rank || rank > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
    {
        return std::nullopt;
    }
    nvinfer1::Dims dims{};
    dims.nbDims = static_cast<int32_t>(rank);
    for (size_t axis = 0; axis < rank; ++axis)
    {
        std::optional<int64_t> const value = fixed[static_cast<size_t>((*values)[axis])];
        if (!value)
        {
            return std::nullopt;
        }
        dims.d[axis] = *value;
    }
    return dims;
}

} // namespace

size_t fixSliceParameters(plan::PlanModel& model)
{
    std::vector<std::optional<int64_t>> const known = plan::valuesNoRunChanges(model);
    size_t changed = 0;
    for (plan::LayerRecord& layer : model.layers)
    {
        auto const* slice = plan::paramsOf<network::SliceParams>(layer);
        if (slice == nullptr || layer.inputs.empty() || layer.inputs[0] < 0)
        {
            continue;
        }
        size_t const rank = model.tensors[layer.inputs[0]].dims.size();
        std::optional<nvinfer1::Dims> const start = fixedArgument(model, known, layer, kStartInput, rank);
        std::optional<nvinfer1::Dims> const stride = fixedArgument(model, known, layer, kStrideInput, rank);
        if (!start && !stride)
        {
            continue;
        }
        // The parameters may be shared with the network's layer: the plan's record gets its own.
        auto fixed = std::make_shared<network::SliceParams>(*slice);
        for (auto const& [index, values, parameter] :
            {std::tuple{kStartInput, start, &fixed->start}, std::tuple{kStrideInput, stride, &fixed->stride}})
        {
            if (values)
            {
                *parameter = *values;
                layer.inputs[index] = -1;
            }
        }
        layer.params = std::move(fixed);
        ++changed;
    }
    return changed;
}

} // namespace kiln::builder
