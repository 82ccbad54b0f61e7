// Region_TRT against hand-computed values and a plain loop of logistic and softmax written below; with a GPU, CUDA
// against the CPU.
#include "expect_close.h"
#include "plugin_harness.h"

#include <cmath>

namespace kiln::test
{
namespace
{

PluginCall region(int32_t num, int32_t classes)
{
    PluginCall call{"Region_TRT", "1", {}};
    call.fields.add("num", num).add("coords", 4).add("classes", classes);
    return call;
}

std::vector<float> pattern(size_t count)
{
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i)
    {
        values[i] = static_cast<float>(static_cast<int64_t>((i * 37) % 101) - 50) / 12.F;
    }
    return values;
}

TEST(RegionPlugin, MatchesHandComputedValues)
{
    // One box of one cell: [tx, ty, tw, th, to, d1, d2] = [0, 0, 1.5, -2, ln 4, 0, ln 3].
    // logistic(0) = 0.5; tw, th unchanged; logistic(ln 4) = 4 / (4 + 1) = 0.8;
    // softmax(0, ln 3) = (1, 3) / 4 = (0.25, 0.75).
    PluginCall call = region(1, 2);
    std::vector<float> const x{0.F, 0.F, 1.5F, -2.F, std::log(4.F), 0.F, std::log(3.F)};
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, {fromFloats({1, 7, 1, 1}, x)});
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{1, 7, 1, 1}));
    expectClose(out[0].floats(), {0.5F, 0.5F, 1.5F, -2.F, 0.8F, 0.25F, 0.75F}, 1e-6F);
}

TEST(RegionPlugin, MatchesAPlainLoopOverBoxesAndCells)
{
    int const batch = 2, num = 3, classes = 4, h = 2, w = 3, entries = 4 + 1 + classes;
    std::vector<float> const x = pattern(static_cast<size_t>(batch * num * entries * h * w));
    std::vector<float> expected = x;
    for (int b = 0; b < batch; ++b)
        for (int n = 0; n < num; ++n)
            for (int cell = 0; cell < h * w; ++cell)
            {
                auto at = [&](int e) { return static_cast<size_t>(((b * num + n) * entries + e) * h * w + cell); };
                for (int e : {0, 1, 4})
                {
                    expected[at(e)] = static_cast<float>(1.0 / (1.0 + std::exp(-double{x[at(e)]})));
                }
                double sum = 0.0;
                for (int c = 0; c < classes; ++c)
                {
                    sum += std::exp(double{x[at(5 + c)]});
                }
                for (int c = 0; c < classes; ++c)
                {
                    expected[at(5 + c)] = static_cast<float>(std::exp(double{x[at(5 + c)]}) / sum);
                }
            }
    PluginCall call = region(num, classes);
    std::vector<HostTensor> const out
        = runPlugin(kiln::Backend::kCPU, call, {fromFloats({batch, num * entries, h, w}, x)});
    ASSERT_EQ(out.size(), 1U);
    expectClose(out[0].floats(), expected, {1e-6, 1e-6});
}

TEST(RegionPlugin, RefusesChannelsThatDoNotFitTheFields)
{
    PluginCall call = region(2, 3);
    std::string errors;
    std::vector<HostTensor> const out
        = runPlugin(kiln::Backend::kCPU, call, {fromFloats({1, 15, 1, 1}, pattern(15))}, false, &errors);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(
        errors.find("Region_TRT: the input has 15 channels; num * (coords + 1 + classes) is 16"), std::string::npos)
        << errors;
}

TEST(RegionPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    PluginCall call = region(5, 20);
    std::vector<HostTensor> const inputs{fromFloats({2, 125, 13, 13}, pattern(2 * 125 * 13 * 13))};
    std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs);
    std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs);
    ASSERT_EQ(cuda.size(), 1U);
    expectClose(cuda[0].floats(), cpu[0].floats(), {1e-6, 1e-5});
}

TEST(RegionPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall missing{"Region_TRT", "1", {}};
    missing.fields.add("num", 5);
    EXPECT_NE(creationErrors(missing).find("Region_TRT: the required field 'classes' is missing"), std::string::npos);

    PluginCall coords{"Region_TRT", "1", {}};
    coords.fields.add("num", 5).add("coords", 3).add("classes", 20);
    EXPECT_NE(creationErrors(coords).find("Region_TRT: field 'coords' is 3; expected 4"), std::string::npos);

    PluginCall wrongType{"Region_TRT", "1", {}};
    wrongType.fields.add("num", 5.F).add("classes", 20);
    EXPECT_NE(creationErrors(wrongType).find("Region_TRT: field 'num' holds kFLOAT32 data; expected integers"),
        std::string::npos);

    PluginCall zero = region(0, 20);
    EXPECT_NE(
        creationErrors(zero).find("Region_TRT: field 'num' is 0; expected a positive integer"), std::string::npos);
}

} // namespace
} // namespace kiln::test
