#include "network/layers/lrn.h"

#include "core/data_type.h"
#include "core/logging.h"

#include <sstream>

namespace kiln::network
{
namespace
{

//! "" where lo <= value <= hi (false for NaN), else the parameter's name, its value and the range. The bounds are
//! the floats nearest TensorRT's, which is what applications pass at the ends (0.01F lies just above 0.01, 1e20F
//! just above 1e20).
std::string rangeError(char const* name, float value, float lo, float hi)
{
    if (value >= lo && value <= hi)
    {
        return "";
    }
    std::ostringstream text;
    text << "the " << name << " must lie in [" << lo << ", " << hi << "], not " << value;
    return text.str();
}

} // namespace

std::string LRNParams::windowError(int64_t window)
{
    if (window >= 1 && window <= 15 && window % 2 == 1)
    {
        return "";
    }
    return "the window must be odd and in [1, 15], not " + std::to_string(window);
}

std::string LRNParams::alphaError(float alpha)
{
    return rangeError("alpha", alpha, -1.0e20F, 1.0e20F);
}

std::string LRNParams::betaError(float beta)
{
    return rangeError("beta", beta, 0.01F, 1.0e5F);
}

std::string LRNParams::kError(float k)
{
    return rangeError("k", k, 1.0e-5F, 1.0e10F);
}

std::string LRNParams::parameterError() const
{
    for (std::string error : {windowError(window), alphaError(alpha), betaError(beta), kError(k)})
    {
        if (!error.empty())
        {
            return error;
        }
    }
    return "";
}

bool LRNParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() != 1 || !ctx.hasInput(0))
    {
        return ctx.fail("an LRN layer takes one input");
    }
    nvinfer1::DataType const type = ctx.input(0).type;
    if (!isFloatType(type))
    {
        return ctx.fail("the LRN input must be FLOAT, HALF or BF16, not " + dataTypeName(type));
    }
    if (ctx.rank(0) < 3)
    {
        return ctx.fail("the LRN input must have rank 3 or more (its channels are the third axis from the end), not "
            + std::to_string(ctx.rank(0)));
    }
    // Setters refuse bad values; a plan's are read unchecked.
    std::string const error = parameterError();
    if (!error.empty())
    {
        return ctx.fail(error);
    }
    return ctx.setOutput(0, type, ctx.input(0).dims);
}

template <typename T>
void LRNLayer::set(char const* setter, std::string const& error, T LRNParams::*field, T value)
{
    if (!error.empty())
    {
        logError(std::string("ILRNLayer::") + setter + ": layer \"" + name() + "\": " + error);
        return;
    }
    network().invalidate();
    mutableParams().*field = value;
}

void LRNLayer::setWindowSize(int64_t windowSize) noexcept
{
    set("setWindowSize", LRNParams::windowError(windowSize), &LRNParams::window, windowSize);
}

void LRNLayer::setAlpha(float alpha) noexcept
{
    set("setAlpha", LRNParams::alphaError(alpha), &LRNParams::alpha, alpha);
}

void LRNLayer::setBeta(float beta) noexcept
{
    set("setBeta", LRNParams::betaError(beta), &LRNParams::beta, beta);
}

void LRNLayer::setK(float k) noexcept
{
    set("setK", LRNParams::kError(k), &LRNParams::k, k);
}

} // namespace kiln::network
