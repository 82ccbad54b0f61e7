#include "network/layers/convolution.h"

#include "network/layers/layer_utils.h"
#include "core/checked_size.h"
#include "core/data_type.h"

#include <optional>

namespace kiln::network
{

namespace
{

//! The filter's input has the rank it needs, and its parameters one entry per spatial axis.
bool checkFilterInput(InferenceContext& ctx, WindowedFilterParams const& p, char const* kind)
{
    int32_t const spatial = p.kernelSize.nbDims;
    if (ctx.rank(0) != spatial + 2)
    {
        return ctx.fail("the input has rank " + std::to_string(ctx.rank(0)) + "; a " + std::to_string(spatial) + "-d "
            + kind + " needs rank " + std::to_string(spatial + 2) + " (N, C, spatial...)");
    }
    if (p.stride.nbDims != spatial || p.prePadding.nbDims != spatial || p.postPadding.nbDims != spatial
        || p.dilation.nbDims != spatial)
    {
        return ctx.fail(
            "stride, padding and dilation need " + std::to_string(spatial) + " entries (one per spatial axis)");
    }
    for (int32_t axis = 0; axis < spatial; ++axis)
    {
        if (p.stride.d[axis] < 1 || p.dilation.d[axis] < 1 || p.kernelSize.d[axis] < 1)
        {
            return ctx.fail("kernel size, stride and dilation must be positive on every spatial axis");
        }
    }
    return true;
}

//! The input's channels, known at build time, and the output maps divide into the filter's groups.
bool checkFilterGroups(InferenceContext& ctx, WindowedFilterParams const& p, char const* kind, int64_t& channels)
{
    if (p.nbGroups < 1 || p.nbOutputMaps < 1)
    {
        return ctx.fail("the number of output maps and of groups must be positive");
    }
    Dim const channelDim = ctx.dim(0, 1);
    if (!channelDim.isConstant())
    {
        return ctx.fail(std::string("the channel dimension of a ") + kind + " input must be known at build time");
    }
    channels = channelDim.constant();
    if (channels % p.nbGroups != 0)
    {
        return ctx.fail("the input's " + std::to_string(channels) + " channels are not divisible by the " + kind + "'s "
            + std::to_string(p.nbGroups) + " groups");
    }
    if (p.nbOutputMaps % p.nbGroups != 0)
    {
        return ctx.fail("the " + std::to_string(p.nbOutputMaps) + " output maps are not divisible by the " + kind
            + "'s " + std::to_string(p.nbGroups) + " groups");
    }
    return true;
}

//! The number of kernel weights for `groups` groups: [K, C / groups, k...] (deconvolution: [C, K / groups, k...]);
//! none when it overflows int64, which no real weights count reaches.
std::optional<int64_t> kernelCount(WindowedFilterParams const& p, int64_t c, bool transposed, int64_t groups)
{
    std::optional<int64_t> const window = checkedElementCount(p.kernelSize.d, p.kernelSize.d + p.kernelSize.nbDims);
    std::optional<int64_t> const maps = transposed ? checkedMultiply(c, p.nbOutputMaps / groups)
                                                   : checkedMultiply(p.nbOutputMaps, c / groups);
    return window && maps ? checkedMultiply(*maps, *window) : std::nullopt;
}

//! The group count other than 1 that the kernel weights' count fits, when there is one: the count is the product of
//! the extents, one of which is divided by the groups, so the count itself gives the groups without trying each.
std::optional<int64_t> groupsOfWeights(WindowedFilterParams const& p, int64_t c, bool transposed)
{
    std::optional<int64_t> const ungrouped = kernelCount(p, c, transposed, 1); // the count for one group
    int64_t const count = p.kernel.count();
    if (!ungrouped || count <= 0 || *ungrouped % count != 0)
    {
        return std::nullopt;
    }
    int64_t const groups = *ungrouped / count;
    bool const divides = groups > 1 && c % groups == 0 && p.nbOutputMaps % groups == 0;
    return divides && kernelCount(p, c, transposed, groups) == count ? std::optional<int64_t>(groups) : std::nullopt;
}

bool checkFilterWeights(InferenceContext& ctx, WindowedFilterParams const& p, int64_t c, bool transposed)
{
    // TensorRT applications add the layer with weights for their group count and call setNbGroups afterwards, and
    // shapes are inferred when a layer is added: while the count is the default 1, weights that fit some count
    // dividing C and K pass (the kernels check the exact count: filterWeightsView on the CPU); a count the application
    // set must fit exactly.
    std::optional<int64_t> const expected = kernelCount(p, c, transposed, p.nbGroups);
    bool const fits = p.kernel.count() == expected || (p.nbGroups == 1 && groupsOfWeights(p, c, transposed));
    if (!fits)
    {
        return ctx.fail("the kernel weights have " + std::to_string(p.kernel.count()) + " values; expected "
            + (expected ? std::to_string(*expected) : std::string("more than int64 counts")) + " for "
            + std::to_string(p.nbGroups) + " group(s)");
    }
    if (!p.bias.empty() && p.bias.count() != p.nbOutputMaps)
    {
        return ctx.fail("the bias weights have " + std::to_string(p.bias.count()) + " values; expected 0 or "
            + std::to_string(p.nbOutputMaps));
    }
    return true;
}

} // namespace

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
    if (!isFloatType(ctx.input(0).type))
    {
        return ctx.fail(std::string(kind) + " takes FLOAT, HALF or BF16 input, not " + dataTypeName(ctx.input(0).type));
    }
    return inferFilterWindow(ctx, transposed, ctx.input(0).type);
}

bool WindowedFilterParams::inferFilterWindow(InferenceContext& ctx, bool transposed, nvinfer1::DataType type) const
{
    char const* const kind = transposed ? "deconvolution" : "convolution";
    int64_t channels = 0;
    if (!checkFilterInput(ctx, *this, kind) || !checkFilterGroups(ctx, *this, kind, channels)
        || !checkFilterWeights(ctx, *this, channels, transposed))
    {
        return false;
    }
    std::vector<Dim> dims{ctx.dim(0, 0), ctx.constant(nbOutputMaps)};
    for (int32_t axis = 0; axis < kernelSize.nbDims; ++axis)
    {
        // The dilated window, 1 + dilation * (kernel - 1), from a model's values: an overflow is an error.
        std::optional<int64_t> const dilated = checkedMultiply(dilation.d[axis], kernelSize.d[axis] - 1);
        std::optional<int64_t> const windowExtent = dilated ? checkedAdd(*dilated, 1) : std::nullopt;
        if (!windowExtent)
        {
            return ctx.fail("the dilated kernel extent on spatial axis " + std::to_string(axis)
                + " overflows int64 (kernel " + std::to_string(kernelSize.d[axis]) + ", dilation "
                + std::to_string(dilation.d[axis]) + ")");
        }
        int64_t const window = *windowExtent;
        Dim const in = ctx.dim(0, axis + 2);
        Dim const out = transposed ? transposedWindowExtent(
                            ctx, in, window, stride.d[axis], prePadding.d[axis], postPadding.d[axis], paddingMode, axis)
                                   : slidingWindowExtent(ctx, in, window, stride.d[axis], prePadding.d[axis],
                                       postPadding.d[axis], paddingMode, axis);
        if (out.get() == nullptr)
        {
            return false;
        }
        dims.push_back(out);
    }
    return ctx.setOutput(0, type, dims);
}

} // namespace kiln::network
