#include "network/layers/pooling.h"

#include "network/layers/layer_utils.h"
#include "core/data_type.h"

namespace kiln::network
{

bool PoolingParams::infer(InferenceContext& ctx) const
{
    if (!ctx.hasInput(0) || ctx.nbInputs() != 1)
    {
        return ctx.fail("a pooling layer takes one input");
    }
    int32_t const spatial = windowSize.nbDims;
    int32_t const rank = ctx.rank(0);
    if (rank < spatial + 1)
    {
        return ctx.fail("the input has rank " + std::to_string(rank) + "; a " + std::to_string(spatial)
            + "-d pooling needs at least rank " + std::to_string(spatial + 1));
    }
    // The maximum of INT8 values is that of their dequantized values, in the same scale: the quantized fusion moves
    // a max pooling between a DQ and a Q of one scale onto the INT8 tensor (plan/passes/quantized_fusion.h).
    bool const int8Maximum = ctx.input(0).type == nvinfer1::DataType::kINT8
        && poolingType == nvinfer1::PoolingType::kMAX;
    if (!isFloatType(ctx.input(0).type) && !int8Maximum)
    {
        return ctx.fail("pooling takes FLOAT, HALF or BF16 input (or INT8 for max pooling), not "
            + dataTypeName(ctx.input(0).type));
    }
    if (stride.nbDims != spatial || prePadding.nbDims != spatial || postPadding.nbDims != spatial)
    {
        return ctx.fail("stride and padding need " + std::to_string(spatial) + " entries (one per spatial axis)");
    }
    std::vector<Dim> dims;
    for (int32_t axis = 0; axis < rank - spatial; ++axis)
    {
        dims.push_back(ctx.dim(0, axis));
    }
    for (int32_t axis = 0; axis < spatial; ++axis)
    {
        if (stride.d[axis] < 1 || windowSize.d[axis] < 1)
        {
            return ctx.fail("window size and stride must be positive on every spatial axis");
        }
        Dim const out = slidingWindowExtent(ctx, ctx.dim(0, rank - spatial + axis), windowSize.d[axis], stride.d[axis],
            prePadding.d[axis], postPadding.d[axis], paddingMode, axis);
        if (out.get() == nullptr)
        {
            return false;
        }
        dims.push_back(out);
    }
    return ctx.setOutput(0, ctx.input(0).type, dims);
}

} // namespace kiln::network
