#include "backend/shared/sliding_window.h"

#include "core/dims_text.h"
#include "network/layers/layer_utils.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace kiln::backend
{
namespace
{

// Integer division rounding toward negative / positive infinity (C++ truncates toward zero).
int64_t floorDiv(int64_t numerator, int64_t denominator)
{
    int64_t const quotient = numerator / denominator;
    return (numerator % denominator != 0 && (numerator < 0) != (denominator < 0)) ? quotient - 1 : quotient;
}

int64_t ceilDiv(int64_t numerator, int64_t denominator)
{
    return -floorDiv(-numerator, denominator);
}

void checkRanks(
    Shape const& inputSize, Shape const& window, Shape const& stride, Shape const& prePadding, Shape const& postPadding)
{
    size_t const rank = inputSize.size();
    if (window.size() != rank || stride.size() != rank || prePadding.size() != rank || postPadding.size() != rank)
    {
        throw std::invalid_argument("sliding window: window, stride and padding need one entry per spatial axis ("
            + std::to_string(rank) + ")");
    }
    for (size_t axis = 0; axis < rank; ++axis)
    {
        if (stride[axis] < 1 || window[axis] < 1)
        {
            throw std::invalid_argument("sliding window: stride and window extents must be positive, got stride "
                + shapeText(stride) + " and window " + shapeText(window));
        }
    }
}

bool isSame(nvinfer1::PaddingMode mode)
{
    return mode == nvinfer1::PaddingMode::kSAME_UPPER || mode == nvinfer1::PaddingMode::kSAME_LOWER;
}

// Splits a total padding P as the SAME mode asks: kSAME_UPPER puts the odd element after the data.
void splitSamePadding(nvinfer1::PaddingMode mode, int64_t total, int64_t& pre, int64_t& post)
{
    int64_t const half = total / 2;
    pre = mode == nvinfer1::PaddingMode::kSAME_UPPER ? half : total - half;
    post = total - pre;
}

} // namespace

Shape spatialParameter(nvinfer1::Dims const& values, size_t rank, int64_t defaultValue, char const* name)
{
    Shape const given = network::dimsToVector(values);
    if (given.empty())
    {
        return Shape(rank, defaultValue);
    }
    if (given.size() != rank)
    {
        throw std::invalid_argument(std::string(name) + ": " + std::to_string(given.size()) + " entries for "
            + std::to_string(rank) + " spatial axes");
    }
    return given;
}

Shape dilatedWindow(Shape const& windowSize, Shape const& dilation)
{
    Shape extent(windowSize.size());
    for (size_t axis = 0; axis < windowSize.size(); ++axis)
    {
        if (dilation[axis] < 1)
        {
            throw std::invalid_argument("dilation must be positive, got " + shapeText(dilation));
        }
        extent[axis] = 1 + dilation[axis] * (windowSize[axis] - 1);
    }
    return extent;
}

WindowGeometry forwardWindowGeometry(Shape const& inputSize, Shape const& window, Shape const& stride,
    Shape const& prePadding, Shape const& postPadding, nvinfer1::PaddingMode mode)
{
    checkRanks(inputSize, window, stride, prePadding, postPadding);
    size_t const rank = inputSize.size();
    WindowGeometry geometry{Shape(rank), prePadding, postPadding};
    for (size_t axis = 0; axis < rank; ++axis)
    {
        int64_t const in = inputSize[axis];
        int64_t const s = stride[axis];
        int64_t const dk = window[axis];
        if (isSame(mode))
        {
            int64_t const total = std::max<int64_t>(0, floorDiv(in - 1, s) * s + dk - in);
            splitSamePadding(mode, total, geometry.prePadding[axis], geometry.postPadding[axis]);
            geometry.outputSize[axis] = ceilDiv(in, s);
            continue;
        }
        if (in == 0)
        {
            geometry.outputSize[axis] = 0;
            continue;
        }
        int64_t const span = in + prePadding[axis] + postPadding[axis] - dk;
        if (span < 0)
        {
            throw std::invalid_argument("sliding window: window extent " + std::to_string(dk)
                + " exceeds the padded input " + std::to_string(span + dk) + " on spatial axis "
                + std::to_string(axis));
        }
        bool const roundUp = mode == nvinfer1::PaddingMode::kEXPLICIT_ROUND_UP;
        geometry.outputSize[axis] = (roundUp ? ceilDiv(span, s) : floorDiv(span, s)) + 1;
    }
    return geometry;
}

WindowGeometry transposedWindowGeometry(Shape const& inputSize, Shape const& window, Shape const& stride,
    Shape const& prePadding, Shape const& postPadding, nvinfer1::PaddingMode mode)
{
    checkRanks(inputSize, window, stride, prePadding, postPadding);
    size_t const rank = inputSize.size();
    WindowGeometry geometry{Shape(rank), prePadding, postPadding};
    for (size_t axis = 0; axis < rank; ++axis)
    {
        int64_t const in = inputSize[axis];
        int64_t const s = stride[axis];
        int64_t const dk = window[axis];
        int64_t const fullOutput = (in - 1) * s + dk;
        if (isSame(mode))
        {
            int64_t const total = std::max<int64_t>(dk - s, 0);
            splitSamePadding(mode, total, geometry.prePadding[axis], geometry.postPadding[axis]);
            geometry.outputSize[axis] = in == 0 ? 0 : std::min(in * s, fullOutput);
            continue;
        }
        int64_t const out = in == 0 ? 0 : fullOutput - prePadding[axis] - postPadding[axis];
        if (out < 0)
        {
            throw std::invalid_argument("deconvolution: padding " + std::to_string(prePadding[axis]) + " + "
                + std::to_string(postPadding[axis]) + " exceeds the output extent " + std::to_string(fullOutput)
                + " on spatial axis " + std::to_string(axis));
        }
        geometry.outputSize[axis] = out;
    }
    return geometry;
}

} // namespace kiln::backend
