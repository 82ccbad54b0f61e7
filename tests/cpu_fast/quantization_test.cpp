// The fast path's quantize and dequantize layers of one scale (fast/quantization.cpp) against the reference kernels:
// the same bits, for values within rounding of a half-way point between two INT8 steps, saturating ones, infinities,
// NaN and -0, and for channels-last data quantized into row-major codes.
#include "fast_path_comparison.h"
#include "qdq_builder.h"

#include "plan/plan_format.h"

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace kiln::test
{
namespace
{

TEST(FastQuantization, QuantizeAndDequantizeGiveTheReferencesBits)
{
    Shape const shape{1, 4, 32, 33};
    auto maker = [&](INetworkDefinition& network) {
        Builder build(network);
        ITensor& y = build.pair(build.input("x", shape), {0.1F}, "x");
        y.setName("y");
        network.markOutput(y);
    };
    // Steps of 0.05 by a scale of 0.1 put every other value within rounding of a tie (x / 0.1 lands on either side
    // of it), from far below the codes' range to far above; every ninth value is one of the specials.
    float const infinity = std::numeric_limits<float>::infinity();
    std::vector<float> const specials{std::numeric_limits<float>::quiet_NaN(), infinity, -infinity, 1e30F, -1e30F,
        -0.0F, 12.75F, -12.85F, 12.749999F, -12.850001F};
    std::vector<float> values(static_cast<size_t>(volume(shape)));
    for (size_t i = 0; i < values.size(); ++i)
    {
        values[i] = i % 9 == 0 ? specials[(i / 9) % specials.size()] : static_cast<float>(i % 4000) * 0.05F - 100.0F;
    }
    std::map<std::string, bool> const layers
        = expectFastMatchesReference(maker, {{{"x", fromFloats(shape, values)}}}, Tolerance(0.0));
    EXPECT_EQ(layersNamed(layers, {"q x", "dq x"}), (std::map<std::string, bool>{{"q x", true}, {"dq x", true}}));
}

TEST(FastQuantization, ValuesBesideHalfWayPointsOfAnyScaleGiveTheReferencesBits)
{
    // Values on, and a few ulps to 1e-3 steps beside, half-way points of scales that are not powers of two (whose
    // quotients round), mixed with values far from them, and a scale whose inverse is subnormal: the fast path's
    // vectorised rounding gives the reference's codes for each (a quantization by the product with the scale's
    // inverse, which would be faster, rounds some of these otherwise).
    for (float const scale : {0.0137F, 1.0F / 3.0F, 7.5e-4F, 0.3F, 3e38F})
    {
        std::vector<float> values;
        for (int k = -140; k <= 140; ++k)
        {
            for (float const offset : {0.0F, 1e-7F, -1e-7F, 1e-6F, -2e-6F, 1e-4F, -1e-3F})
            {
                values.push_back((static_cast<float>(k) + 0.5F + offset) * scale);
            }
            values.push_back((static_cast<float>(k) + 0.25F) * scale);
            values.push_back(std::nextafter(values.back(), 0.0F));
        }
        Shape const shape{1, static_cast<int64_t>(values.size())};
        auto maker = [&](INetworkDefinition& network) {
            Builder build(network);
            ITensor& y = build.pair(build.input("x", shape), {scale}, "x");
            y.setName("y");
            network.markOutput(y);
        };
        std::map<std::string, bool> const layers
            = expectFastMatchesReference(maker, {{{"x", fromFloats(shape, values)}}}, Tolerance(0.0));
        EXPECT_TRUE(layersNamed(layers, {"q x"}).at("q x")) << scale;
    }
}

TEST(FastQuantization, ChannelsLastDataQuantizesIntoRowMajorCodes)
{
    // A convolution's channels-last FP32 output quantized into the network's row-major INT8 output: the kernel
    // transposes tile by tile as it quantizes (37 channels and 65 positions: partial tiles both ways). The 1x1
    // convolution copies input channel m into map m (weight 1, the rest 0), exactly on either path, so that the codes
    // are the quantization's alone; its inputs lie on and beside half-way points (steps of 0.05 by a scale of 0.1) and
    // beyond the codes' range.
    Shape const shape{2, 37, 5, 13};
    int64_t const channels = shape[1];
    std::vector<float> copies(static_cast<size_t>(channels * channels), 0.0F);
    for (int64_t m = 0; m < channels; ++m)
    {
        copies[static_cast<size_t>(m * channels + m)] = 1.0F;
    }
    std::vector<float> const noBias(static_cast<size_t>(channels), 0.0F);
    auto maker = [&](INetworkDefinition& network) {
        Builder build(network);
        IConvolutionLayer* copy = network.addConvolutionNd(
            build.input("x", shape), channels, DimsHW{1, 1}, weightsOf(copies), weightsOf(noBias));
        copy->getOutput(0)->setName("copied");
        ITensor& q = build.quantize(*copy->getOutput(0), {0.1F}, "copied");
        q.setName("q");
        network.markOutput(q);
    };
    std::vector<float> values(static_cast<size_t>(volume(shape)));
    for (size_t i = 0; i < values.size(); ++i)
    {
        values[i] = static_cast<float>(i % 4001) * 0.05F - 100.0F;
    }
    std::map<std::string, bool> const layers
        = expectFastMatchesReference(maker, {{{"x", fromFloats(shape, values)}}}, Tolerance(0.0));
    EXPECT_EQ(layersNamed(layers, {"q copied"}), (std::map<std::string, bool>{{"q copied", true}}));
    plan::PlanModel model;
    std::string error;
    std::vector<uint8_t> const blob = buildCpuPlan(maker, CpuKernels::kFAST);
    ASSERT_TRUE(plan::readPlan(blob.data(), blob.size(), model, error)) << error;
    for (plan::TensorRecord const& tensor : model.tensors)
    {
        if (tensor.name == "copied" || tensor.name == "q")
        {
            EXPECT_EQ(tensor.format, tensor.name == "q" ? TensorFormat::kLINEAR : TensorFormat::kHWC) << tensor.name;
        }
    }
}

TEST(FastQuantization, Int8ConcatenationCopiesTheCodes)
{
    // Two quantized inputs of one scale joined along the channels: propagation moves their dequantizations after the
    // concatenation, which then joins INT8 codes on the fast path, the same bits as the reference.
    auto maker = [&](INetworkDefinition& network) {
        Builder build(network);
        ITensor& a = build.pair(build.input("a", {2, 5, 6, 7}), {0.1F}, "a");
        ITensor& b = build.pair(build.input("b", {2, 3, 6, 7}), {0.1F}, "b");
        ITensor& joined = build.concatenation({&a, &b}, 1);
        joined.setName("y");
        network.markOutput(joined);
    };
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        maker, {{{"a", randomTensor({2, 5, 6, 7}, 1)}, {"b", randomTensor({2, 3, 6, 7}, 2)}}}, Tolerance(0.0));
    EXPECT_TRUE(layers.at("concatenation"));
    plan::PlanModel model;
    std::string error;
    std::vector<uint8_t> const blob = buildCpuPlan(maker, CpuKernels::kFAST);
    ASSERT_TRUE(plan::readPlan(blob.data(), blob.size(), model, error)) << error;
    for (plan::LayerRecord const& layer : model.layers)
    {
        if (layer.name == "concatenation")
        {
            EXPECT_EQ(model.tensors[layer.outputs[0]].type, DataType::kINT8);
        }
    }
}

TEST(FastQuantization, Int8SlicesCopyTheCodes)
{
    // A quantized convolution's output sliced: propagation moves the dequantization after the slice, which then
    // copies INT8 codes on the fast path, the same bits as the reference, reading them channels-last as the
    // convolution stores them for it. The input's dequantized values, which the convolution reads too, are sliced in
    // FP32, row-major, the window starting inside three axes.
    auto maker = [&](INetworkDefinition& network) {
        Builder build(network);
        ITensor& x = build.pair(build.input("x", {2, 6, 9, 7}), {0.1F}, "x");
        ITensor& maps = build.pair(build.convolution(x, 16), {0.25F}, "maps");
        ISliceLayer* inputSlice = network.addSlice(x, Dims4{0, 2, 1, 3}, Dims4{2, 3, 7, 4}, Dims4{1, 1, 1, 1});
        inputSlice->setName("input slice");
        inputSlice->getOutput(0)->setName("a");
        network.markOutput(*inputSlice->getOutput(0));
        ISliceLayer* mapSlice = network.addSlice(maps, Dims4{0, 8, 0, 0}, Dims4{2, 8, 9, 7}, Dims4{1, 1, 1, 1});
        mapSlice->setName("map slice");
        mapSlice->getOutput(0)->setName("b");
        network.markOutput(*mapSlice->getOutput(0));
    };
    // The fused convolution sums its INT8 products exactly where the reference sums dequantized ones in FP32: an
    // output may take the neighbouring step of its scale.
    std::map<std::string, bool> const layers
        = expectFastMatchesReference(maker, {{{"x", randomTensor({2, 6, 9, 7}, 3)}}}, Tolerance(0.25 * 1.001));
    EXPECT_TRUE(layers.at("input slice"));
    EXPECT_TRUE(layers.at("map slice"));
    plan::PlanModel model;
    std::string error;
    std::vector<uint8_t> const blob = buildCpuPlan(maker, CpuKernels::kFAST);
    ASSERT_TRUE(plan::readPlan(blob.data(), blob.size(), model, error)) << error;
    for (plan::LayerRecord const& layer : model.layers)
    {
        if (layer.name == "map slice")
        {
            EXPECT_EQ(model.tensors[layer.outputs[0]].type, DataType::kINT8);
            EXPECT_EQ(model.tensors[layer.inputs[0]].format, TensorFormat::kHWC);
        }
    }
}

} // namespace
} // namespace kiln::test
