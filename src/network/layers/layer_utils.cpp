#include "network/layers/layer_utils.h"

#include "core/checked_size.h"
#include "core/logging.h"

#include <algorithm>

namespace kiln::network
{

bool checkWeights(nvinfer1::Weights const& weights, char const* method, char const* what)
{
    if (weights.count < 0)
    {
        logError(std::string("INetworkDefinition::") + method + ": " + what + " weights have a negative count ("
            + std::to_string(weights.count) + ")");
        return false;
    }
    if (weights.count > 0 && weights.values == nullptr)
    {
        logError(std::string("INetworkDefinition::") + method + ": " + what + " weights have count "
            + std::to_string(weights.count) + " but null values");
        return false;
    }
    return true;
}

bool checkDims(nvinfer1::Dims const& dims, char const* method, char const* what, int32_t minRank, int32_t maxRank,
    int64_t minValue)
{
    std::string const prefix = std::string("INetworkDefinition::") + method + ": " + what;
    if (dims.nbDims < minRank || dims.nbDims > maxRank)
    {
        logError(prefix + " has " + std::to_string(dims.nbDims) + " dimensions; expected " + std::to_string(minRank)
            + " to " + std::to_string(maxRank));
        return false;
    }
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (dims.d[i] < minValue)
        {
            logError(prefix + " entry " + std::to_string(i) + " is " + std::to_string(dims.d[i]) + "; must be at least "
                + std::to_string(minValue));
            return false;
        }
    }
    return true;
}

nvinfer1::Dims filledDims(int32_t rank, int64_t value)
{
    nvinfer1::Dims dims{};
    dims.nbDims = rank;
    for (int32_t i = 0; i < rank; ++i)
    {
        dims.d[i] = value;
    }
    return dims;
}

int64_t dimsVolume(nvinfer1::Dims const& dims)
{
    return checkedElementCount(dims.d, dims.d + std::clamp(dims.nbDims, 0, nvinfer1::Dims::MAX_DIMS)).value_or(-1);
}

std::vector<int64_t> dimsToVector(nvinfer1::Dims const& dims)
{
    return std::vector<int64_t>(dims.d, dims.d + std::max(dims.nbDims, 0));
}

namespace
{

std::string windowOverflow(int64_t window, int64_t stride, int64_t prePadding, int64_t postPadding, int32_t axis)
{
    return "the output extent on spatial axis " + std::to_string(axis) + " overflows int64 (window "
        + std::to_string(window) + ", stride " + std::to_string(stride) + ", padding " + std::to_string(prePadding)
        + " + " + std::to_string(postPadding) + ")";
}

} // namespace

Dim slidingWindowExtent(InferenceContext& ctx, Dim input, int64_t window, int64_t stride, int64_t prePadding,
    int64_t postPadding, nvinfer1::PaddingMode mode, int32_t axis)
{
    using nvinfer1::PaddingMode;
    if (mode == PaddingMode::kSAME_UPPER || mode == PaddingMode::kSAME_LOWER)
    {
        return input.ceilDiv(stride);
    }
    // Padding and window come from the model: their sum must not wrap, nor the expression's (which then is null).
    int64_t padding = 0;
    int64_t offset = 0;
    bool const wraps = __builtin_add_overflow(prePadding, postPadding, &padding)
        || __builtin_sub_overflow(padding, window, &offset);
    Dim const span = wraps ? Dim() : input + offset;
    if (span.get() == nullptr)
    {
        ctx.fail(windowOverflow(window, stride, prePadding, postPadding, axis));
        return {};
    }
    if (span.isConstant() && span.constant() < 0)
    {
        if (!ctx.building())
        {
            // The padding that makes the window fit may be set after the layer is added (as the ONNX parser and
            // TensorRT applications do): until the build, the output extent is the one of a window that just fits.
            return ctx.constant(1);
        }
        ctx.fail("the window extent " + std::to_string(window) + " exceeds the padded input extent "
            + std::to_string(span.constant() + window) + " on spatial axis " + std::to_string(axis));
        return {};
    }
    Dim const steps = mode == PaddingMode::kEXPLICIT_ROUND_UP ? span.ceilDiv(stride) : span.floorDiv(stride);
    Dim const extent = steps + 1;
    if (extent.get() == nullptr)
    {
        ctx.fail(windowOverflow(window, stride, prePadding, postPadding, axis));
    }
    return extent;
}

Dim transposedWindowExtent(InferenceContext& ctx, Dim input, int64_t window, int64_t stride, int64_t prePadding,
    int64_t postPadding, nvinfer1::PaddingMode mode, int32_t axis)
{
    using nvinfer1::PaddingMode;
    Dim const full = (input - 1) * stride + window;
    bool const same = mode == PaddingMode::kSAME_UPPER || mode == PaddingMode::kSAME_LOWER;
    int64_t padding = 0;
    bool const wraps = __builtin_add_overflow(prePadding, postPadding, &padding);
    Dim const extent = same ? (input * stride).min(full) : wraps ? Dim() : full - padding;
    if (extent.get() == nullptr)
    {
        ctx.fail(windowOverflow(window, stride, prePadding, postPadding, axis));
        return {};
    }
    if (same)
    {
        return extent;
    }
    if (extent.isConstant() && extent.constant() < 0)
    {
        if (!ctx.building())
        {
            // A padding set after the layer was added may yet be corrected before the build, as above.
            return ctx.constant(0);
        }
        ctx.fail("the padding " + std::to_string(prePadding) + " + " + std::to_string(postPadding)
            + " exceeds the output extent on spatial axis " + std::to_string(axis));
        return {};
    }
    return extent;
}

int32_t normalizeAxis(int64_t axis, int32_t rank)
{
    if (axis < -rank || axis >= rank)
    {
        return -1;
    }
    return static_cast<int32_t>(axis < 0 ? axis + rank : axis);
}

std::optional<std::vector<int64_t>> constantExtents(std::vector<Dim> const& dims)
{
    std::vector<int64_t> extents;
    for (Dim const& dim : dims)
    {
        if (!dim.isConstant())
        {
            return std::nullopt;
        }
        extents.push_back(dim.constant());
    }
    return extents;
}

std::optional<std::vector<int64_t>> constantExtents(nvinfer1::DimsExprs const& dims)
{
    std::vector<int64_t> extents;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (dims.d[i] == nullptr || !dims.d[i]->isConstant())
        {
            return std::nullopt;
        }
        extents.push_back(dims.d[i]->getConstantValue());
    }
    return extents;
}

} // namespace kiln::network
