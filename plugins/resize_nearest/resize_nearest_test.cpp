// ResizeNearest_TRT against hand-worked values and a plain loop written here, on the CPU and, with a GPU, on CUDA
// against the CPU.
#include "expect_close.h"
#include "plugin_harness.h"

namespace kiln::test
{
namespace
{

PluginCall resizeNearest(float scale)
{
    PluginCall call{"ResizeNearest_TRT", "1", {}};
    call.fields.add("scale", scale);
    return call;
}

TEST(ResizeNearestPlugin, DoublesEachRowAndColumnWithScaleTwo)
{
    PluginCall call = resizeNearest(2.F);
    // [N=1, C=1, H=2, W=3]: rows {0 1 2}, {3 4 5}.
    std::vector<HostTensor> const out
        = runPlugin(kiln::Backend::kCPU, call, {fromFloats({1, 1, 2, 3}, {0, 1, 2, 3, 4, 5})});
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{1, 1, 4, 6}));
    // Output (oy, ox) reads (int(oy / 2), int(ox / 2)): each value becomes a 2x2 block.
    expectClose(out[0].floats(), {0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 3, 3, 4, 4, 5, 5}, 0.F);
}

TEST(ResizeNearestPlugin, TruncatesTheSourceIndexForAFractionalScale)
{
    PluginCall call = resizeNearest(1.5F);
    // 2x2 -> int(2 * 1.5) = 3 per axis; sources int(0 / 1.5) = 0, int(1 / 1.5) = int(0.67) = 0,
    // int(2 / 1.5) = int(1.33) = 1.
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, {fromFloats({1, 1, 2, 2}, {1, 2, 3, 4})});
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{1, 1, 3, 3}));
    expectClose(out[0].floats(), {1, 1, 2, 1, 1, 2, 3, 3, 4}, 0.F);
}

//! The resize written directly: every output element of every plane reads its source element.
std::vector<float> referenceResize(std::vector<float> const& x, int32_t planes, int32_t h, int32_t w, float scale)
{
    auto const oh = static_cast<int32_t>(static_cast<float>(h) * scale);
    auto const ow = static_cast<int32_t>(static_cast<float>(w) * scale);
    std::vector<float> y;
    for (int32_t p = 0; p < planes; ++p)
    {
        for (int32_t oy = 0; oy < oh; ++oy)
        {
            for (int32_t ox = 0; ox < ow; ++ox)
            {
                auto const iy = static_cast<int32_t>(static_cast<float>(oy) / scale);
                auto const ix = static_cast<int32_t>(static_cast<float>(ox) / scale);
                y.push_back(x[(static_cast<size_t>(p) * h + iy) * w + ix]);
            }
        }
    }
    return y;
}

std::vector<float> ramp(size_t count)
{
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i)
    {
        values[i] = static_cast<float>(static_cast<int64_t>(i % 101) - 50) / 7.F;
    }
    return values;
}

TEST(ResizeNearestPlugin, ResizesEveryChannelOfEveryBatchItem)
{
    PluginCall call = resizeNearest(2.F);
    std::vector<float> const x = ramp(2 * 3 * 4 * 5);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, {fromFloats({2, 3, 4, 5}, x)});
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{2, 3, 8, 10}));
    expectClose(out[0].floats(), referenceResize(x, 6, 4, 5, 2.F), 0.F);
}

TEST(ResizeNearestPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    for (float scale : {2.F, 0.5F, 3.F})
    {
        PluginCall call = resizeNearest(scale);
        std::vector<HostTensor> const inputs{fromFloats({2, 16, 33, 40}, ramp(2 * 16 * 33 * 40))};
        std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs);
        std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs);
        ASSERT_EQ(cuda.size(), 1U);
        EXPECT_EQ(cuda[0].shape, cpu[0].shape);
        expectClose(cuda[0].floats(), cpu[0].floats(), 0.F);
    }
}

TEST(ResizeNearestPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall missing{"ResizeNearest_TRT", "1", {}};
    EXPECT_NE(
        creationErrors(missing).find("ResizeNearest_TRT: the required field 'scale' is missing"), std::string::npos);

    PluginCall outOfRange = resizeNearest(-2.F);
    EXPECT_NE(creationErrors(outOfRange).find("ResizeNearest_TRT: field 'scale' is -2.000000; expected a finite"),
        std::string::npos);

    PluginCall wrongType{"ResizeNearest_TRT", "1", {}};
    wrongType.fields.add("scale", std::string("two"));
    EXPECT_NE(creationErrors(wrongType).find("ResizeNearest_TRT: field 'scale' holds kCHAR data; expected"),
        std::string::npos);
}

TEST(ResizeNearestPlugin, AnInputOfRankOneIsAnErrorNamingThePlugin)
{
    PluginCall call = resizeNearest(2.F);
    std::string errors;
    std::vector<HostTensor> const out
        = runPlugin(kiln::Backend::kCPU, call, {fromFloats({1, 4}, {1, 2, 3, 4})}, false, &errors);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(errors.find("ResizeNearest_TRT: expected one input of rank 2 or more"), std::string::npos) << errors;
}

} // namespace
} // namespace kiln::test
