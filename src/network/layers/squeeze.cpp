#include "network/layers/squeeze.h"

#include "core/data_type.h"
#include "network/layers/constant.h"

#include <algorithm>

namespace kiln::network
{
namespace
{

//! Each of `axes` in [-rank, rank) made non-negative, none twice; false with `why`.
bool normalizeAxes(std::vector<int64_t> const& axes, int32_t rank, std::vector<int32_t>& result, std::string& why)
{
    result.clear();
    for (int64_t axis : axes)
    {
        if (axis < -rank || axis >= rank)
        {
            why = "axis " + std::to_string(axis) + " is outside [" + std::to_string(-rank) + ", " + std::to_string(rank)
                + ")";
            return false;
        }
        auto const normalized = static_cast<int32_t>(axis < 0 ? axis + rank : axis);
        if (std::find(result.begin(), result.end(), normalized) != result.end())
        {
            why = "axis " + std::to_string(normalized) + " is given twice";
            return false;
        }
        result.push_back(normalized);
    }
    return true;
}

} // namespace

bool constantAxes(nvinfer1::ITensor const& tensor, std::vector<int64_t>& axes, std::string& why)
{
    Layer const* producer = static_cast<Tensor const&>(tensor).producer();
    auto const* constant = producer != nullptr ? dynamic_cast<ConstantLayer const*>(producer) : nullptr;
    if (constant == nullptr)
    {
        why = "the axes \"" + std::string(tensor.getName())
            + "\" must be the output of an IConstantLayer (Kiln reads them when the layer is added)";
        return false;
    }
    nvinfer1::Weights const weights = constant->getWeights();
    nvinfer1::Dims const dims = constant->getDimensions();
    if (dims.nbDims > 1)
    {
        why = "the axes must be a 0-D or 1-D tensor, not of rank " + std::to_string(dims.nbDims);
        return false;
    }
    axes.clear();
    for (int64_t i = 0; i < weights.count; ++i)
    {
        if (weights.type == nvinfer1::DataType::kINT32)
        {
            axes.push_back(static_cast<int32_t const*>(weights.values)[i]);
        }
        else if (weights.type == nvinfer1::DataType::kINT64)
        {
            axes.push_back(static_cast<int64_t const*>(weights.values)[i]);
        }
        else
        {
            why = "the axes must be INT32 or INT64, not " + dataTypeName(weights.type);
            return false;
        }
    }
    return true;
}

bool squeezeShuffle(int32_t rank, std::vector<int64_t> const& axes, ShuffleParams& params, std::string& why)
{
    std::vector<int32_t> removed;
    if (!normalizeAxes(axes, rank, removed, why))
    {
        return false;
    }
    std::sort(removed.begin(), removed.end());
    params = ShuffleParams{};
    int32_t next = 0;
    for (int32_t axis = 0; axis < rank; ++axis)
    {
        if (!std::binary_search(removed.begin(), removed.end(), axis))
        {
            params.firstTranspose.order[next++] = axis;
        }
    }
    // What the reshape keeps: every axis but the removed ones, which the transpose moved past the kept ones.
    nvinfer1::Dims kept{};
    kept.nbDims = next;
    for (int32_t axis : removed)
    {
        params.firstTranspose.order[next++] = axis;
    }
    params.reshape = kept; // all 0: each kept extent copied from the transposed input
    return true;
}

bool unsqueezeShuffle(int32_t rank, std::vector<int64_t> const& axes, ShuffleParams& params, std::string& why)
{
    auto const outputRank = static_cast<int32_t>(rank + static_cast<int64_t>(axes.size()));
    if (outputRank > nvinfer1::Dims::MAX_DIMS)
    {
        why = "the output would have rank " + std::to_string(outputRank) + ", more than "
            + std::to_string(nvinfer1::Dims::MAX_DIMS);
        return false;
    }
    std::vector<int32_t> inserted;
    if (!normalizeAxes(axes, outputRank, inserted, why))
    {
        return false;
    }
    std::sort(inserted.begin(), inserted.end());
    params = ShuffleParams{};
    nvinfer1::Dims reshape{};
    reshape.nbDims = outputRank;
    for (int32_t axis = 0; axis < outputRank; ++axis)
    {
        reshape.d[axis] = axis < rank ? 0 : 1; // the input's extents (copied), then the new unit axes
    }
    params.reshape = reshape;
    int32_t nextKept = 0;
    int32_t nextNew = rank;
    for (int32_t axis = 0; axis < outputRank; ++axis)
    {
        bool const isNew = std::binary_search(inserted.begin(), inserted.end(), axis);
        params.secondTranspose.order[axis] = isNew ? nextNew++ : nextKept++;
    }
    return true;
}

} // namespace kiln::network
