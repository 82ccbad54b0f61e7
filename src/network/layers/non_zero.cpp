#include "network/layers/non_zero.h"

#include "core/data_type.h"
#include "core/logging.h"

namespace kiln::network
{

bool NonZeroLayer::setIndicesType(nvinfer1::DataType type) noexcept
{
    if (!isIndexType(type))
    {
        logError("INonZeroLayer::setIndicesType: the indices type must be INT32 or INT64, not " + dataTypeName(type));
        return false;
    }
    network().invalidate();
    mutableParams().indicesType = type;
    return true;
}

bool NonZeroParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() != 1 || !ctx.hasInput(0))
    {
        return ctx.fail("a non-zero layer takes one input");
    }
    nvinfer1::DataType const type = ctx.input(0).type;
    if (!isNumericType(type))
    {
        return ctx.fail("a non-zero layer does not take " + dataTypeName(type)
            + " input (FLOAT, HALF, BF16, INT8, UINT8, INT32, INT64 or BOOL)");
    }
    int32_t const rank = ctx.rank(0);
    Dim elements = ctx.constant(1);
    for (int32_t axis = 0; axis < rank; ++axis)
    {
        elements = elements * ctx.dim(0, axis);
    }
    if (elements.get() == nullptr)
    {
        return ctx.fail("the input's element count could not be computed");
    }
    // Every element may be non-zero: memory is planned, and kernels tuned, for that.
    nvinfer1::IDimensionExpr const* count = ctx.builder().declareSizeTensor(1, *elements.get(), *elements.get());
    return ctx.setOutput(0, indicesType, {ctx.constant(rank), Dim(ctx.builder(), count)})
        && ctx.setOutput(1, nvinfer1::DataType::kINT64, std::vector<Dim>{});
}

} // namespace kiln::network
