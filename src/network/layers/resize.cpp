#include "network/layers/resize.h"

#include "core/logging.h"
#include "network/layers/shape_input.h"
#include "core/data_type.h"

#include <algorithm>
#include <cmath>

namespace kiln::network
{
namespace
{

template <typename E>
bool inRange(E value)
{
    return static_cast<int32_t>(value) >= 0 && static_cast<int32_t>(value) < nvinfer1::EnumMax<E>();
}

//! floor(extent * scale), as the CPU kernel computes it (in double). A float is an integer times a power of two,
//! so for an extent known only at run time the product is floorDiv(extent * numerator, 2^shift), exactly.
Dim scaledExtent(InferenceContext& ctx, Dim const& extent, float scale, int32_t axis)
{
    if (extent.isConstant())
    {
        double const scaled = std::floor(static_cast<double>(extent.constant()) * scale);
        if (!(scaled < 0x1p63)) // converting a double past int64 is undefined: the scale comes from the model
        {
            ctx.fail("resize scale " + std::to_string(scale) + " of axis " + std::to_string(axis) + " makes extent "
                + std::to_string(extent.constant()) + " larger than int64 holds");
            return {};
        }
        return ctx.constant(static_cast<int64_t>(scaled));
    }
    int exponent = 0;
    double const mantissa = std::frexp(static_cast<double>(scale), &exponent); // scale = mantissa * 2^exponent
    auto numerator = static_cast<int64_t>(std::ldexp(mantissa, 24));           // exact: 24 significant bits
    int shift = 24 - exponent;                                                 // scale = numerator / 2^shift
    while (shift > 0 && numerator % 2 == 0)
    {
        numerator /= 2;
        --shift;
    }
    if (shift < 0 || shift > 40)
    {
        ctx.fail("resize scale " + std::to_string(scale) + " of axis " + std::to_string(axis)
            + " is too far from 1 to apply to an extent known only at run time");
        return {};
    }
    return (extent * numerator).floorDiv(int64_t{1} << shift);
}

bool outputShape(ResizeParams const& p, InferenceContext& ctx, std::vector<Dim>& dims)
{
    int32_t const rank = ctx.rank(0);
    dims.clear();
    if (ctx.hasInput(1))
    {
        if (!shapeInputValues(ctx, 1, 1, "the resize output shape", dims))
        {
            return false;
        }
        if (static_cast<int32_t>(dims.size()) != rank)
        {
            return ctx.fail("the resize output shape (input 1) has " + std::to_string(dims.size())
                + " values but the input has rank " + std::to_string(rank));
        }
    }
    else if (p.hasOutputDimensions)
    {
        if (p.outputDimensions.nbDims != rank)
        {
            return ctx.fail("the resize output dimensions have rank " + std::to_string(p.outputDimensions.nbDims)
                + " but the input has rank " + std::to_string(rank));
        }
        for (int32_t i = 0; i < rank; ++i)
        {
            dims.push_back(ctx.constant(p.outputDimensions.d[i]));
        }
    }
    else if (!p.scales.empty())
    {
        if (static_cast<int32_t>(p.scales.size()) != rank)
        {
            return ctx.fail(
                std::to_string(p.scales.size()) + " resize scales for an input of rank " + std::to_string(rank));
        }
        for (int32_t i = 0; i < rank; ++i)
        {
            float const scale = p.scales[static_cast<size_t>(i)];
            if (!std::isfinite(scale) || !(scale > 0.0F))
            {
                return ctx.fail("resize scale " + std::to_string(i) + " is " + std::to_string(scale)
                    + "; scales must be positive and finite");
            }
            dims.push_back(scaledExtent(ctx, ctx.dim(0, i), scale, i));
            if (dims.back().get() == nullptr)
            {
                return false;
            }
        }
    }
    else
    {
        for (int32_t i = 0; i < rank; ++i)
        {
            dims.push_back(ctx.dim(0, i));
        }
    }
    for (int32_t i = 0; i < rank; ++i)
    {
        if (dims[i].isConstant() && dims[i].constant() < 0)
        {
            return ctx.fail("resize output extent " + std::to_string(i) + " is negative ("
                + std::to_string(dims[i].constant()) + ")");
        }
    }
    return true;
}

} // namespace

void ResizeLayer::setOutputDimensions(nvinfer1::Dims const& dimensions) noexcept
{
    ResizeParams& p = change();
    p.hasOutputDimensions = true;
    p.outputDimensions = dimensions;
    p.scales.clear();
    clearLayerInput(1);
}

nvinfer1::Dims ResizeLayer::getOutputDimensions() const noexcept
{
    if (!typedParams().hasOutputDimensions || getInput(1) != nullptr)
    {
        nvinfer1::Dims none{};
        none.nbDims = -1;
        return none;
    }
    return typedParams().outputDimensions;
}

void ResizeLayer::setScales(float const* scales, int32_t nbScales) noexcept
{
    if (nbScales < 1 || nbScales > nvinfer1::Dims::MAX_DIMS || scales == nullptr)
    {
        logError("IResizeLayer::setScales on layer \"" + name() + "\": needs 1 to "
            + std::to_string(nvinfer1::Dims::MAX_DIMS) + " scales (got " + std::to_string(nbScales)
            + (scales == nullptr ? ", scales is null)" : ")"));
        return;
    }
    ResizeParams& p = change();
    p.scales.assign(scales, scales + nbScales);
    p.hasOutputDimensions = false;
    clearLayerInput(1);
}

int32_t ResizeLayer::getScales(int32_t size, float* scales) const noexcept
{
    std::vector<float> const& set = typedParams().scales;
    if (set.empty() || getInput(1) != nullptr)
    {
        return -1;
    }
    if (scales != nullptr && size > 0)
    {
        std::copy_n(set.begin(), std::min(static_cast<size_t>(size), set.size()), scales);
    }
    return static_cast<int32_t>(set.size());
}

bool ResizeParams::infer(InferenceContext& ctx) const
{
    if (!ctx.hasInput(0) || ctx.nbInputs() > 2)
    {
        return ctx.fail("a resize takes a data input and an optional output-shape input");
    }
    if (ctx.rank(0) < 1)
    {
        return ctx.fail("a resize needs an input of rank 1 or more");
    }
    if (!inRange(resizeMode) || !inRange(coordinateTransformation) || !inRange(selectorForSinglePixel)
        || !inRange(nearestRounding))
    {
        return ctx.fail("a resize mode, coordinate transformation, selector or nearest rounding is out of range");
    }
    nvinfer1::DataType const type = ctx.input(0).type;
    if (resizeMode != nvinfer1::InterpolationMode::kNEAREST && !isFloatType(type))
    {
        return ctx.fail("kLINEAR and kCUBIC resize FLOAT, HALF or BF16 input, not " + dataTypeName(type));
    }
    if (type == nvinfer1::DataType::kINT4 || type == nvinfer1::DataType::kFP4)
    {
        return ctx.fail("a resize does not take " + dataTypeName(type) + " input (not byte-addressable)");
    }
    std::vector<Dim> dims;
    return outputShape(*this, ctx, dims) && ctx.setOutput(0, type, dims);
}

} // namespace kiln::network
