#include "network/layers/convolution.h"

#include "network/layers/layer_utils.h"
#include "core/data_type.h"

namespace kiln::network
{

void WindowedFilterParams::setDefaults(nvinfer1::Dims const& size)
{
    kernelSize = size;
    stride = filledDims(size.nbDims, 1);
    prePadding = filledDims(size.nbDims, 0);
    postPadding = filledDims(size.nbDims, 0);
    dilation = filledDims(size.nbDims, 1);
}

bool WindowedFilterParams::inferFilter(InferenceContext& ctx, bool transposed) const
{
    char const* const kind = transposed ? "deconvolution" : "convolution";
    if (!ctx.hasInput(0) || ctx.nbInputs() != 1)
    {
        return ctx.fail(std::string("a ") + kind + " takes one input (kernel and bias as weights)");
    }
    int32_t const spatial = kernelSize.nbDims;
    if (ctx.rank(0) != spatial + 2)
    {
        return ctx.fail("the input has rank " + std::to_string(ctx.rank(0)) + "; a " + std::to_string(spatial)
            + "-d " + kind + " needs rank " + std::to_string(spatial + 2) + " (N, C, spatial...)");
    }
    if (!isFloatType(ctx.input(0).type))
    {
        return ctx.fail(std::string(kind) + " takes FLOAT, HALF or BF16 input, not " + dataTypeName(ctx.input(0).type));
    }
    if (stride.nbDims != spatial || prePadding.nbDims != spatial || postPadding.nbDims != spatial
        || dilation.nbDims != spatial)
    {
        return ctx.fail("stride, padding and dilation need " + std::to_string(spatial) + " entries (one per spatial axis)");
    }
    if (nbGroups < 1 || nbOutputMaps < 1)
    {
        return ctx.fail("the number of output maps and of groups must be positive");
    }
    Dim const channels = ctx.dim(0, 1);
    if (!channels.isConstant())
    {
        return ctx.fail(std::string("the channel dimension of a ") + kind + " input must be known at build time");
    }
    int64_t const c = channels.constant();
    if (c % nbGroups != 0)
    {
        return ctx.fail("the input's " + std::to_string(c) + " channels are not divisible by the " + kind + "'s "
            + std::to_string(nbGroups) + " groups");
    }
    if (nbOutputMaps % nbGroups != 0)
    {
        return ctx.fail("the " + std::to_string(nbOutputMaps) + " output maps are not divisible by the " + kind + "'s "
            + std::to_string(nbGroups) + " groups");
    }
    auto kernelCount = [&](int64_t groups) {
        return (transposed ? c * (nbOutputMaps / groups) : nbOutputMaps * (c / groups)) * dimsVolume(kernelSize);
    };
    // TensorRT applications add the layer with weights for their group count and call setNbGroups afterwards, and
    // shapes are inferred when a layer is added: while the count is the default 1, weights that fit some count
    // dividing C and K pass (the CPU runner checks the exact count); a count the application set must fit exactly.
    bool fits = kernel.count() == kernelCount(nbGroups);
    for (int64_t groups = 2; groups <= c && !fits && nbGroups == 1; ++groups)
    {
        fits = c % groups == 0 && nbOutputMaps % groups == 0 && kernel.count() == kernelCount(groups);
    }
    if (!fits)
    {
        return ctx.fail("the kernel weights have " + std::to_string(kernel.count()) + " values; expected "
            + std::to_string(kernelCount(nbGroups)) + " for " + std::to_string(nbGroups) + " group(s)");
    }
    if (!bias.empty() && bias.count() != nbOutputMaps)
    {
        return ctx.fail("the bias weights have " + std::to_string(bias.count()) + " values; expected 0 or "
            + std::to_string(nbOutputMaps));
    }
    std::vector<Dim> dims{ctx.dim(0, 0), ctx.constant(nbOutputMaps)};
    for (int32_t axis = 0; axis < spatial; ++axis)
    {
        if (stride.d[axis] < 1 || dilation.d[axis] < 1 || kernelSize.d[axis] < 1)
        {
            return ctx.fail("kernel size, stride and dilation must be positive on every spatial axis");
        }
        int64_t const window = 1 + dilation.d[axis] * (kernelSize.d[axis] - 1);
        Dim const in = ctx.dim(0, axis + 2);
        Dim const out = transposed
            ? transposedWindowExtent(ctx, in, window, stride.d[axis], prePadding.d[axis], postPadding.d[axis],
                paddingMode, axis)
            : slidingWindowExtent(ctx, in, window, stride.d[axis], prePadding.d[axis], postPadding.d[axis],
                paddingMode, axis);
        if (out.get() == nullptr)
        {
            return false;
        }
        dims.push_back(out);
    }
    return ctx.setOutput(0, ctx.input(0).type, dims);
}

} // namespace kiln::network
