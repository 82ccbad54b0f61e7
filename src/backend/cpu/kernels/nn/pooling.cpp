#include "backend/cpu/kernels/nn/pooling.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/nn/broadcast.h"
#include "backend/cpu/kernels/nn/element_access.h"
#include "backend/shared/pooling_geometry.h"
#include "network/layers/layer_utils.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace kiln::cpu
{
namespace
{

using backend::PoolingGeometry;

//! One output position's window clipped to the input.
struct ClippedWindow
{
    Shape first;
    Shape extent;
    int64_t inputCount{1};  //!< elements inside the input
    int64_t paddedCount{1}; //!< elements inside the padded input
};

void clipWindow(PoolingGeometry const& geometry, Shape const& windowSize, Shape const& inputSize,
    Shape const& outputIndex, ClippedWindow& window)
{
    Shape const& pre = geometry.window.prePadding;
    Shape const& post = geometry.window.postPadding;
    window.paddedCount = 1;
    window.inputCount = 1;
    for (size_t axis = 0; axis < windowSize.size(); ++axis)
    {
        int64_t const start = outputIndex[axis] * geometry.stride[axis] - pre[axis];
        int64_t const end = start + windowSize[axis];
        int64_t const paddedEnd = std::min(end, inputSize[axis] + post[axis]);
        window.paddedCount *= std::max<int64_t>(0, paddedEnd - std::max(start, -pre[axis]));
        window.first[axis] = std::max<int64_t>(start, 0);
        window.extent[axis] = std::max<int64_t>(0, std::min(end, inputSize[axis]) - window.first[axis]);
        window.inputCount *= window.extent[axis];
    }
}

//! Adds up the window's elements in the plane at `planeOffset` and finds their maximum; the window is not empty.
void accumulateWindow(ConstTensorView const& input, int64_t planeOffset, ClippedWindow const& window,
    Shape const& inputStrides, Shape& windowIndex, double& sum, float& maximum)
{
    std::fill(windowIndex.begin(), windowIndex.end(), 0);
    do
    {
        int64_t offset = planeOffset;
        for (size_t axis = 0; axis < windowIndex.size(); ++axis)
        {
            offset += (window.first[axis] + windowIndex[axis]) * inputStrides[axis];
        }
        float const value = loadFloat(input, offset);
        sum += value;
        // NaN propagates through max, as it does through the average.
        if (!std::isnan(maximum) && (std::isnan(value) || value > maximum))
        {
            maximum = value;
        }
    } while (advanceIndex(windowIndex, window.extent));
}

float pooledValue(network::PoolingParams const& params, int64_t inputCount, int64_t divisor, double sum, float maximum)
{
    float const maxPart = inputCount > 0 ? maximum : 0.0F;
    float const averagePart = divisor > 0 ? static_cast<float>(sum / static_cast<double>(divisor)) : 0.0F;
    float result = maxPart;
    if (params.poolingType == nvinfer1::PoolingType::kAVERAGE)
    {
        result = averagePart;
    }
    else if (params.poolingType == nvinfer1::PoolingType::kMAX_AVERAGE_BLEND)
    {
        result = (1.0F - params.blendFactor) * maxPart + params.blendFactor * averagePart;
    }
    return result;
}

} // namespace

void runPooling(network::PoolingParams const& params, ConstTensorView const& input, TensorView const& output)
{
    PoolingGeometry const geometry = backend::poolingGeometry(input.shape, params);
    requireShape(output.shape, geometry.outputShape, "pooling output");
    // INT8 max pooling: the maximum of INT8 values (stored exactly in float) is one of them.
    bool const int8Maximum = params.poolingType == nvinfer1::PoolingType::kMAX
        && input.type == nvinfer1::DataType::kINT8 && output.type == nvinfer1::DataType::kINT8;
    if (!int8Maximum)
    {
        requireFloatingPoint(input, "pooling input");
        requireFloatingPoint(output, "pooling output");
    }
    if (output.count() == 0)
    {
        return;
    }

    Shape const windowSize = network::dimsToVector(params.windowSize);
    size_t const spatialRank = windowSize.size();
    size_t const leadingRank = input.shape.size() - spatialRank;
    Shape const inputSize(input.shape.begin() + static_cast<std::ptrdiff_t>(leadingRank), input.shape.end());
    Shape const inputStrides = contiguousStrides(inputSize);
    Shape const& outputSize = geometry.window.outputSize;
    int64_t const inputPlane = volume(inputSize);
    int64_t const outputPlane = volume(outputSize);
    int64_t const planes = output.count() / outputPlane;

    // Per output position: the window clipped to the input and its count over the padded input.
    ClippedWindow window{Shape(spatialRank), Shape(spatialRank)};
    Shape windowIndex(spatialRank);
    Shape outputIndex(spatialRank, 0);
    for (int64_t position = 0; position < outputPlane; ++position, advanceIndex(outputIndex, outputSize))
    {
        clipWindow(geometry, windowSize, inputSize, outputIndex, window);
        int64_t const divisor = params.averageCountExcludesPadding ? window.inputCount : window.paddedCount;
        for (int64_t plane = 0; plane < planes; ++plane)
        {
            double sum = 0.0;
            float maximum = -std::numeric_limits<float>::infinity();
            if (window.inputCount > 0)
            {
                accumulateWindow(input, plane * inputPlane, window, inputStrides, windowIndex, sum, maximum);
            }
            float const pooled = pooledValue(params, window.inputCount, divisor, sum, maximum);
            if (int8Maximum)
            {
                output.as<int8_t>()[plane * outputPlane + position] = static_cast<int8_t>(pooled);
                continue;
            }
            storeFloat(output, plane * outputPlane + position, pooled);
        }
    }
}

void run(network::PoolingParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs)
{
    runPooling(params, inputs[0], outputs[0]);
}

} // namespace kiln::cpu
