#include "backend/cpu/kernels/nn/normalization.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/nn/broadcast.h"
#include "backend/cpu/kernels/nn/element_access.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace kiln::cpu
{
namespace
{

// With one weight per group, scale and bias are read as if they held one weight per channel.
ConstTensorView perGroupAsPerChannel(
    ConstTensorView const& weights, int64_t groups, int64_t channels, std::vector<float>& storage)
{
    if (groups <= 1 || weights.rank() < 2 || weights.shape[1] != groups || groups == channels)
    {
        return weights;
    }
    Shape expanded = weights.shape;
    expanded[1] = channels;
    int64_t const channelsPerGroup = channels / groups;
    int64_t const inner = volume(Shape(weights.shape.begin() + 2, weights.shape.end()));
    int64_t const outer = weights.shape[0];
    storage.resize(static_cast<size_t>(volume(expanded)));
    for (int64_t o = 0; o < outer; ++o)
    {
        for (int64_t c = 0; c < channels; ++c)
        {
            for (int64_t i = 0; i < inner; ++i)
            {
                storage[static_cast<size_t>((o * channels + c) * inner + i)]
                    = loadFloat(weights, (o * groups + c / channelsPerGroup) * inner + i);
            }
        }
    }
    return ConstTensorView(nvinfer1::DataType::kFLOAT, expanded, storage.data());
}

void checkNormalization(network::NormalizationParams const& params, ConstTensorView const& input,
    ConstTensorView const& scale, ConstTensorView const& bias, TensorView const& output)
{
    requireShape(output.shape, input.shape, "normalization output");
    requireFloatingPoint(input, "normalization input");
    requireFloatingPoint(scale, "normalization scale");
    requireFloatingPoint(bias, "normalization bias");
    requireFloatingPoint(output, "normalization output");
    int32_t const rank = input.rank();
    if (rank < 32 && (params.axes >> rank) != 0)
    {
        throw std::invalid_argument("normalization: axes mask " + std::to_string(params.axes)
            + " names an axis beyond rank " + std::to_string(rank));
    }
    if (params.nbGroups > 1 && (rank < 2 || input.shape[1] % params.nbGroups != 0))
    {
        throw std::invalid_argument("normalization: " + std::to_string(params.nbGroups)
            + " groups do not divide the channels of " + shapeText(input.shape));
    }
}

//! The statistics bucket of each of the `count` elements of a tensor of `shape`: the element's index over the axes
//! that are not reduced, with the channel replaced by its group when grouped. `bucketExtents` gets the extents of
//! that index.
std::vector<int64_t> statisticsBuckets(network::NormalizationParams const& params, Shape const& shape, int64_t count,
    int64_t channels, Shape& bucketExtents)
{
    auto const rank = static_cast<int32_t>(shape.size());
    bool const grouped = params.nbGroups > 1;
    bucketExtents = shape;
    for (int32_t axis = 0; axis < rank; ++axis)
    {
        if ((params.axes >> axis) & 1U)
        {
            bucketExtents[static_cast<size_t>(axis)] = 1;
        }
    }
    int64_t const channelsPerGroup = grouped ? channels / params.nbGroups : 1;
    if (grouped)
    {
        bucketExtents[1] = params.nbGroups;
    }
    Shape const bucketStrides = contiguousStrides(bucketExtents);
    std::vector<int64_t> bucketOf(static_cast<size_t>(count));
    Shape index(static_cast<size_t>(rank), 0);
    for (int64_t i = 0; i < count; ++i, advanceIndex(index, shape))
    {
        int64_t bucket = 0;
        for (size_t axis = 0; axis < static_cast<size_t>(rank); ++axis)
        {
            int64_t coordinate = bucketExtents[axis] == 1 ? 0 : index[axis];
            if (grouped && axis == 1)
            {
                coordinate = index[1] / channelsPerGroup;
            }
            bucket += coordinate * bucketStrides[axis];
        }
        bucketOf[static_cast<size_t>(i)] = bucket;
    }
    return bucketOf;
}

//! Each bucket's mean, and the inverse of its standard deviation.
void bucketStatistics(ConstTensorView const& input, std::vector<int64_t> const& bucketOf, size_t buckets, float epsilon,
    std::vector<double>& mean, std::vector<double>& inverseDeviation)
{
    // Two passes (mean, then squared deviations) avoid the cancellation of sum-of-squares formulas.
    int64_t const count = input.count();
    mean.assign(buckets, 0.0);
    inverseDeviation.assign(buckets, 0.0); // holds the sum of squared deviations until the last pass
    std::vector<int64_t> members(buckets, 0);
    for (int64_t i = 0; i < count; ++i)
    {
        size_t const b = static_cast<size_t>(bucketOf[static_cast<size_t>(i)]);
        mean[b] += loadFloat(input, i);
        ++members[b];
    }
    for (size_t b = 0; b < buckets; ++b)
    {
        mean[b] /= static_cast<double>(members[b]);
    }
    for (int64_t i = 0; i < count; ++i)
    {
        size_t const b = static_cast<size_t>(bucketOf[static_cast<size_t>(i)]);
        double const deviation = loadFloat(input, i) - mean[b];
        inverseDeviation[b] += deviation * deviation;
    }
    for (size_t b = 0; b < buckets; ++b)
    {
        double const variance = inverseDeviation[b] / static_cast<double>(members[b]);
        inverseDeviation[b] = 1.0 / std::sqrt(variance + epsilon);
    }
}

} // namespace

void runNormalization(network::NormalizationParams const& params, ConstTensorView const& input,
    ConstTensorView const& scale, ConstTensorView const& bias, TensorView const& output)
{
    checkNormalization(params, input, scale, bias, output);
    std::vector<float> scaleStorage;
    std::vector<float> biasStorage;
    int64_t const channels = input.rank() >= 2 ? input.shape[1] : 1;
    ConstTensorView const scaleView = perGroupAsPerChannel(scale, params.nbGroups, channels, scaleStorage);
    ConstTensorView const biasView = perGroupAsPerChannel(bias, params.nbGroups, channels, biasStorage);
    BroadcastWalker walker(input.shape, {scaleView.shape, biasView.shape});
    int64_t const count = input.count();
    if (count == 0)
    {
        return;
    }
    Shape bucketExtents;
    std::vector<int64_t> const bucketOf = statisticsBuckets(params, input.shape, count, channels, bucketExtents);
    std::vector<double> mean;
    std::vector<double> inverseDeviation;
    bucketStatistics(
        input, bucketOf, static_cast<size_t>(volume(bucketExtents)), params.epsilon, mean, inverseDeviation);
    for (int64_t i = 0; i < count; ++i, walker.next())
    {
        size_t const b = static_cast<size_t>(bucketOf[static_cast<size_t>(i)]);
        double const normalized = (loadFloat(input, i) - mean[b]) * inverseDeviation[b];
        double const result
            = normalized * loadFloat(scaleView, walker.offset(0)) + loadFloat(biasView, walker.offset(1));
        storeFloat(output, i, static_cast<float>(result));
    }
}

void run(network::NormalizationParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs)
{
    runNormalization(params, inputs[0], inputs[1], inputs[2], outputs[0]);
}

} // namespace kiln::cpu
