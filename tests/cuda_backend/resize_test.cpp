// The CUDA backend's Resize layer against the CPU reference: kNEAREST with every rounding mode, kLINEAR and kCUBIC
// (several cubic coefficients, with and without exclude-outside), under every coordinate transformation; the
// single-pixel selector; output dimensions, given scales (which drive the mapping) and an output shape from a shape
// tensor; up- and downsampling in several dims at once, rank 1 and rank 5; FP32 (and FP16 precision), FP16 and
// BF16 input, INT32 data for nearest.
#include "backend_comparison.h"

#include <cstdint>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

using Mode = InterpolationMode;
using Transformation = ResizeCoordinateTransformation;

struct ResizeSetup
{
    Mode mode{Mode::kNEAREST};
    Transformation transformation{Transformation::kASYMMETRIC};
    ResizeSelector selector{ResizeSelector::kFORMULA};
    ResizeRoundMode rounding{ResizeRoundMode::kFLOOR};
    float cubicCoeff{-0.75F};
    bool excludeOutside{false};
};

Dims dimsOf(std::vector<int64_t> const& shape)
{
    Dims dims{static_cast<int32_t>(shape.size()), {}};
    std::copy(shape.begin(), shape.end(), dims.d);
    return dims;
}

void configure(IResizeLayer& layer, ResizeSetup const& setup)
{
    layer.setResizeMode(setup.mode);
    layer.setCoordinateTransformation(setup.transformation);
    layer.setSelectorForSinglePixel(setup.selector);
    layer.setNearestRounding(setup.rounding);
    layer.setCubicCoeff(setup.cubicCoeff);
    layer.setExcludeOutside(setup.excludeOutside);
}

//! Resizes input "x" to `output` dimensions, or by `scales` when `output` is empty.
NetworkMaker resizeOf(DataType type, std::vector<int64_t> const& input, std::vector<int64_t> const& output,
    std::vector<float> const& scales, ResizeSetup const& setup)
{
    return [=](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", type, dimsOf(input));
        IResizeLayer* layer = network.addResize(*x);
        ASSERT_NE(layer, nullptr);
        if (output.empty())
        {
            layer->setScales(scales.data(), static_cast<int32_t>(scales.size()));
        }
        else
        {
            layer->setOutputDimensions(dimsOf(output));
        }
        configure(*layer, setup);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
}

size_t volumeOf(std::vector<int64_t> const& shape)
{
    size_t v = 1;
    for (int64_t extent : shape)
    {
        v *= static_cast<size_t>(extent);
    }
    return v;
}

//! Uneven values (not a linear ramp, which linear interpolation would reproduce whatever the weights).
std::vector<float> bumpyValues(size_t count)
{
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i)
    {
        values[i] = static_cast<float>((i * 37) % 19) * 0.37F - 3.1F + static_cast<float>(i % 3) * 0.01F;
    }
    return values;
}

HostTensor floatInput(std::vector<int64_t> const& shape)
{
    return fromFloats(shape, bumpyValues(volumeOf(shape)));
}

std::string shapeText(std::vector<int64_t> const& shape)
{
    std::string text;
    for (int64_t extent : shape)
    {
        text += (text.empty() ? "" : "x") + std::to_string(extent);
    }
    return text;
}

std::string describe(ResizeSetup const& s)
{
    return "mode " + std::to_string(static_cast<int32_t>(s.mode)) + " transformation "
        + std::to_string(static_cast<int32_t>(s.transformation)) + " selector "
        + std::to_string(static_cast<int32_t>(s.selector)) + " rounding "
        + std::to_string(static_cast<int32_t>(s.rounding)) + " cubic " + std::to_string(s.cubicCoeff)
        + (s.excludeOutside ? " exclude-outside" : "");
}

Transformation const kTransformations[]
    = {Transformation::kALIGN_CORNERS, Transformation::kASYMMETRIC, Transformation::kHALF_PIXEL};

TEST(CudaBackendResize, NearestEveryRoundingAndTransformation)
{
    SKIP_WITHOUT_GPU();
    std::vector<int64_t> const input{1, 2, 5, 7};
    HostTensor const x = floatInput(input);
    std::vector<int32_t> ints(volumeOf(input));
    for (size_t i = 0; i < ints.size(); ++i)
    {
        ints[i] = static_cast<int32_t>(i * 7919 % 1000) - 500;
    }
    HostTensor const xInt = fromElements(input, ints, DataType::kINT32);
    // Up in one dim and down in the other, up by an exact factor (coordinates on .5), and down to one pixel.
    std::vector<int64_t> const outputs[] = {{1, 2, 9, 4}, {1, 2, 10, 14}, {1, 3, 3, 13}, {1, 2, 1, 3}};
    for (auto const& output : outputs)
    {
        for (Transformation transformation : kTransformations)
        {
            for (ResizeRoundMode rounding : {ResizeRoundMode::kHALF_UP, ResizeRoundMode::kHALF_DOWN,
                     ResizeRoundMode::kFLOOR, ResizeRoundMode::kCEIL})
            {
                for (ResizeSelector selector : {ResizeSelector::kFORMULA, ResizeSelector::kUPPER})
                {
                    ResizeSetup setup;
                    setup.transformation = transformation;
                    setup.rounding = rounding;
                    setup.selector = selector;
                    std::string const what = "to " + shapeText(output) + " " + describe(setup);
                    expectBackendsAgree(resizeOf(DataType::kFLOAT, input, output, {}, setup), {{"x", x}}, false, what);
                    expectBackendsAgree(
                        resizeOf(DataType::kINT32, input, output, {}, setup), {{"x", xInt}}, false, what + " INT32");
                }
            }
        }
    }
    ResizeSetup halfUp;
    halfUp.rounding = ResizeRoundMode::kHALF_UP;
    halfUp.transformation = Transformation::kHALF_PIXEL;
    expectBackendsAgree(resizeOf(DataType::kFLOAT, input, {1, 2, 9, 4}, {}, halfUp), {{"x", x}}, true, "nearest fp16");
}

TEST(CudaBackendResize, LinearEveryTransformation)
{
    SKIP_WITHOUT_GPU();
    std::vector<int64_t> const input{2, 3, 4, 5};
    HostTensor const x = floatInput(input);
    // Only the last two dims, then every dim at once (the CPU interpolates every dim whose extent changes).
    std::vector<int64_t> const outputs[] = {{2, 3, 7, 3}, {2, 3, 8, 10}, {3, 5, 6, 9}, {1, 2, 1, 1}};
    for (auto const& output : outputs)
    {
        for (Transformation transformation : kTransformations)
        {
            for (ResizeSelector selector : {ResizeSelector::kFORMULA, ResizeSelector::kUPPER})
            {
                ResizeSetup setup;
                setup.mode = Mode::kLINEAR;
                setup.transformation = transformation;
                setup.selector = selector;
                std::string const what = "to " + shapeText(output) + " " + describe(setup);
                expectBackendsAgree(resizeOf(DataType::kFLOAT, input, output, {}, setup), {{"x", x}}, false, what);
                expectBackendsAgree(
                    resizeOf(DataType::kFLOAT, input, output, {}, setup), {{"x", x}}, true, what + " fp16");
            }
        }
    }
}

TEST(CudaBackendResize, CubicCoefficientsAndExcludeOutside)
{
    SKIP_WITHOUT_GPU();
    std::vector<int64_t> const input{1, 2, 6, 5};
    HostTensor const x = floatInput(input);
    std::vector<int64_t> const outputs[] = {{1, 2, 11, 8}, {1, 2, 3, 2}, {1, 2, 12, 10}, {1, 2, 1, 7}};
    for (auto const& output : outputs)
    {
        for (Transformation transformation : kTransformations)
        {
            for (float coefficient : {-0.75F, -0.5F, -0.6F})
            {
                for (bool excludeOutside : {false, true})
                {
                    ResizeSetup setup;
                    setup.mode = Mode::kCUBIC;
                    setup.transformation = transformation;
                    setup.cubicCoeff = coefficient;
                    setup.excludeOutside = excludeOutside;
                    std::string const what = "to " + shapeText(output) + " " + describe(setup);
                    expectBackendsAgree(resizeOf(DataType::kFLOAT, input, output, {}, setup), {{"x", x}}, false, what);
                }
            }
        }
    }
    ResizeSetup cubic;
    cubic.mode = Mode::kCUBIC;
    cubic.transformation = Transformation::kHALF_PIXEL;
    cubic.excludeOutside = true;
    expectBackendsAgree(resizeOf(DataType::kFLOAT, input, {1, 2, 11, 8}, {}, cubic), {{"x", x}}, true, "cubic fp16");
}

TEST(CudaBackendResize, GivenScalesDriveTheMapping)
{
    SKIP_WITHOUT_GPU();
    std::vector<int64_t> const input{1, 3, 7, 10};
    HostTensor const x = floatInput(input);
    // floor(7 * 1.7) = 11 and floor(10 * 0.45) = 4: the mapping uses 1.7 and 0.45, not 11 / 7 and 4 / 10.
    std::vector<float> const scales{1.0F, 1.0F, 1.7F, 0.45F};
    for (Mode mode : {Mode::kNEAREST, Mode::kLINEAR, Mode::kCUBIC})
    {
        for (Transformation transformation : kTransformations)
        {
            ResizeSetup setup;
            setup.mode = mode;
            setup.transformation = transformation;
            setup.rounding = ResizeRoundMode::kHALF_DOWN;
            expectBackendsAgree(
                resizeOf(DataType::kFLOAT, input, {}, scales, setup), {{"x", x}}, false, "scales " + describe(setup));
        }
    }
}

TEST(CudaBackendResize, OutputShapeFromAShapeTensor)
{
    SKIP_WITHOUT_GPU();
    for (Mode mode : {Mode::kNEAREST, Mode::kLINEAR, Mode::kCUBIC})
    {
        NetworkMaker const maker = [mode](INetworkDefinition& network) {
            ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{3, {2, 4, 6}});
            ITensor* like = network.addInput("like", DataType::kFLOAT, Dims{3, {3, 9, 4}});
            IShapeLayer* shape = network.addShape(*like);
            ASSERT_NE(shape, nullptr);
            IResizeLayer* layer = network.addResize(*x);
            ASSERT_NE(layer, nullptr);
            layer->setInput(1, *shape->getOutput(0));
            ResizeSetup setup;
            setup.mode = mode;
            setup.transformation = Transformation::kHALF_PIXEL;
            configure(*layer, setup);
            layer->getOutput(0)->setName("y");
            network.markOutput(*layer->getOutput(0));
        };
        HostTensor const like = fromFloats({3, 9, 4}, std::vector<float>(108, 0.0F));
        expectBackendsAgree(maker, {{"x", floatInput({2, 4, 6})}, {"like", like}}, false,
            "shape tensor, mode " + std::to_string(static_cast<int32_t>(mode)));
    }
}

TEST(CudaBackendResize, OddRanksAndSixteenBitInputs)
{
    SKIP_WITHOUT_GPU();
    ResizeSetup linear;
    linear.mode = Mode::kLINEAR;
    linear.transformation = Transformation::kHALF_PIXEL;
    ResizeSetup cubic = linear;
    cubic.mode = Mode::kCUBIC;
    ResizeSetup nearest;
    nearest.rounding = ResizeRoundMode::kHALF_UP;
    nearest.transformation = Transformation::kALIGN_CORNERS;
    // Rank 1, and rank 5 with three dims resized at once (up to 8 linear or 64 cubic taps per output element).
    for (ResizeSetup const& setup : {linear, cubic, nearest})
    {
        expectBackendsAgree(resizeOf(DataType::kFLOAT, {9}, {4}, {}, setup), {{"x", floatInput({9})}}, false,
            "rank 1 " + describe(setup));
        expectBackendsAgree(resizeOf(DataType::kFLOAT, {1, 2, 3, 4, 5}, {1, 2, 5, 2, 7}, {}, setup),
            {{"x", floatInput({1, 2, 3, 4, 5})}}, false, "rank 5 " + describe(setup));
        expectBackendsAgree(resizeOf(DataType::kFLOAT, {1, 1, 1, 1}, {1, 1, 3, 2}, {}, setup),
            {{"x", floatInput({1, 1, 1, 1})}}, false, "one pixel " + describe(setup));
    }
    // 16-bit inputs and outputs, compared bit for bit: FP16 bits of values in [0.5, 2), BF16 bits of [1, 4).
    std::vector<uint16_t> halves(4 * 6);
    std::vector<uint16_t> bfloats(halves.size());
    for (size_t i = 0; i < halves.size(); ++i)
    {
        halves[i] = static_cast<uint16_t>(0x3800 + (i * 331) % 0x0800);
        bfloats[i] = static_cast<uint16_t>(0x3F80 + (i * 29) % 0x0100);
    }
    for (ResizeSetup const& setup : {linear, cubic, nearest})
    {
        expectBackendsAgree(resizeOf(DataType::kHALF, {4, 6}, {7, 9}, {}, setup),
            {{"x", fromElements({4, 6}, halves, DataType::kHALF)}}, false, "FP16 " + describe(setup));
        expectBackendsAgree(resizeOf(DataType::kBF16, {4, 6}, {3, 11}, {}, setup),
            {{"x", fromElements({4, 6}, bfloats, DataType::kBF16)}}, false, "BF16 " + describe(setup));
    }
}

} // namespace
