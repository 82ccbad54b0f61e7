#include "network/layers/top_k.h"

#include "core/logging.h"
#include "network/layers/shape_input.h"
#include "core/data_type.h"

#include <bit>

namespace kiln::network
{

bool TopKLayer::setIndicesType(nvinfer1::DataType type) noexcept
{
    if (type != nvinfer1::DataType::kINT32 && type != nvinfer1::DataType::kINT64)
    {
        logError("ITopKLayer::setIndicesType: the indices type must be INT32 or INT64, not " + dataTypeName(type));
        return false;
    }
    change().indicesType = type;
    return true;
}

bool TopKParams::infer(InferenceContext& ctx) const
{
    if (!ctx.hasInput(0) || ctx.nbInputs() > 2)
    {
        return ctx.fail("a top-k layer takes one data input and an optional k input");
    }
    nvinfer1::DataType const type = ctx.input(0).type;
    if (!isFloatType(type) && !isIndexType(type))
    {
        return ctx.fail("a top-k layer does not take " + dataTypeName(type) + " input");
    }
    int32_t const rank = ctx.rank(0);
    if (std::popcount(reduceAxes) != 1 || std::countr_zero(reduceAxes) >= rank)
    {
        return ctx.fail("top-k reduce axes " + std::to_string(reduceAxes)
            + " must name exactly one axis of the input's rank " + std::to_string(rank));
    }
    int32_t const axis = std::countr_zero(reduceAxes);
    Dim kDim = ctx.constant(k);
    if (ctx.hasInput(1))
    {
        std::vector<Dim> values;
        if (!shapeInputValues(ctx, 1, 0, "the top-k k", values))
        {
            return false;
        }
        kDim = values.at(0);
    }
    // A k known only at run time is checked by the kernel; a known one is checked now.
    if (kDim.isConstant() && kDim.constant() < 1)
    {
        return ctx.fail("top-k k is " + std::to_string(kDim.constant()) + "; must be positive");
    }
    Dim const extent = ctx.dim(0, axis);
    if (kDim.isConstant() && extent.isConstant() && kDim.constant() > extent.constant())
    {
        return ctx.fail("top-k k " + std::to_string(kDim.constant()) + " exceeds the extent "
            + std::to_string(extent.constant()) + " of axis " + std::to_string(axis));
    }
    std::vector<Dim> dims;
    for (int32_t i = 0; i < rank; ++i)
    {
        dims.push_back(i == axis ? kDim : ctx.dim(0, i));
    }
    return ctx.setOutput(0, type, dims) && ctx.setOutput(1, indicesType, dims);
}

} // namespace kiln::network
