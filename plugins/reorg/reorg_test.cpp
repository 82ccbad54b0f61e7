// Reorg_TRT, versions 1 (IPluginV2Ext) and 2 (IPluginV2DynamicExt) alike, against the example in NVIDIA's README
// (input [2, 4, 6, 6] holding 0..287, stride 2) and against darknet's reorg loop written out below; with a GPU,
// CUDA against the CPU.
#include "expect_close.h"
#include "plugin_harness.h"

#include <numeric>

namespace kiln::test
{
namespace
{

char const* const kVersions[] = {"1", "2"};

PluginCall reorg(int32_t stride, char const* version)
{
    PluginCall call{"Reorg_TRT", version, {}};
    call.fields.add("stride", stride);
    return call;
}

std::vector<float> iota(size_t count)
{
    std::vector<float> values(count);
    std::iota(values.begin(), values.end(), 0.F);
    return values;
}

// The first sample of the README's output [2, 16, 3, 3], channel after channel; the second is the same plus 144.
std::vector<float> const kReadmeFirstSample{0, 2, 4, 6, 8, 10, 24, 26, 28, 30, 32, 34, 48, 50, 52, 54, 56, 58, 72, 74,
    76, 78, 80, 82, 96, 98, 100, 102, 104, 106, 120, 122, 124, 126, 128, 130, 1, 3, 5, 7, 9, 11, 25, 27, 29, 31, 33, 35,
    49, 51, 53, 55, 57, 59, 73, 75, 77, 79, 81, 83, 97, 99, 101, 103, 105, 107, 121, 123, 125, 127, 129, 131, 12, 14,
    16, 18, 20, 22, 36, 38, 40, 42, 44, 46, 60, 62, 64, 66, 68, 70, 84, 86, 88, 90, 92, 94, 108, 110, 112, 114, 116,
    118, 132, 134, 136, 138, 140, 142, 13, 15, 17, 19, 21, 23, 37, 39, 41, 43, 45, 47, 61, 63, 65, 67, 69, 71, 85, 87,
    89, 91, 93, 95, 109, 111, 113, 115, 117, 119, 133, 135, 137, 139, 141, 143};

TEST(ReorgPlugin, MatchesTheReadmeExample)
{
    std::vector<float> expected = kReadmeFirstSample;
    for (float const value : kReadmeFirstSample)
    {
        expected.push_back(value + 144.F);
    }
    for (char const* version : kVersions)
    {
        PluginCall call = reorg(2, version);
        std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, {fromFloats({2, 4, 6, 6}, iota(288))});
        ASSERT_EQ(out.size(), 1U) << version;
        EXPECT_EQ(out[0].shape, (Shape{2, 16, 3, 3})) << version;
        expectClose(out[0].floats(), expected, 0.F, version);
    }
}

// darknet's reorg_cpu(x, w, h, c, batch, stride, forward = 0, out), as TensorRT calls it with the input's shape.
std::vector<float> darknetReorg(std::vector<float> const& x, int batch, int c, int h, int w, int stride)
{
    std::vector<float> out(x.size());
    int const outC = c / (stride * stride);
    for (int b = 0; b < batch; ++b)
        for (int k = 0; k < c; ++k)
            for (int j = 0; j < h; ++j)
                for (int i = 0; i < w; ++i)
                {
                    int const inIndex = i + w * (j + h * (k + c * b));
                    int const c2 = k % outC;
                    int const offset = k / outC;
                    int const w2 = i * stride + offset % stride;
                    int const h2 = j * stride + offset / stride;
                    int const outIndex = w2 + w * stride * (h2 + h * stride * (c2 + outC * b));
                    out[inIndex] = x[outIndex];
                }
    return out;
}

TEST(ReorgPlugin, MatchesDarknetsLoopForStrideThreeAndSeveralGroups)
{
    std::vector<float> const x = iota(2 * 18 * 6 * 9);
    for (char const* version : kVersions)
    {
        PluginCall call = reorg(3, version);
        std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, {fromFloats({2, 18, 6, 9}, x)});
        ASSERT_EQ(out.size(), 1U) << version;
        EXPECT_EQ(out[0].shape, (Shape{2, 162, 2, 3})) << version;
        expectClose(out[0].floats(), darknetReorg(x, 2, 18, 6, 9, 3), 0.F, version);
    }
}

TEST(ReorgPlugin, RefusesAnInputTheStrideDoesNotDivide)
{
    for (char const* version : kVersions)
    {
        PluginCall call = reorg(2, version);
        std::string errors;
        std::vector<HostTensor> const out
            = runPlugin(kiln::Backend::kCPU, call, {fromFloats({1, 4, 5, 6}, iota(120))}, false, &errors);
        EXPECT_TRUE(out.empty()) << version;
        EXPECT_NE(errors.find("Reorg_TRT: the input's C, H, W (4, 5, 6) must be divisible"), std::string::npos)
            << errors;
    }
}

TEST(ReorgPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    std::vector<HostTensor> const inputs{fromFloats({3, 16, 26, 26}, iota(3 * 16 * 26 * 26))};
    for (char const* version : kVersions)
    {
        PluginCall call = reorg(2, version);
        std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs);
        std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs);
        ASSERT_EQ(cuda.size(), 1U) << version;
        EXPECT_EQ(cuda[0].shape, cpu[0].shape) << version;
        expectClose(cuda[0].floats(), cpu[0].floats(), 0.F, version);
    }
}

TEST(ReorgPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    for (char const* version : kVersions)
    {
        PluginCall missing{"Reorg_TRT", version, {}};
        EXPECT_NE(creationErrors(missing).find("Reorg_TRT: the required field 'stride' is missing"), std::string::npos)
            << version;

        PluginCall zero = reorg(0, version);
        EXPECT_NE(
            creationErrors(zero).find("Reorg_TRT: field 'stride' is 0; expected a positive integer"), std::string::npos)
            << version;

        PluginCall wrongType{"Reorg_TRT", version, {}};
        wrongType.fields.add("stride", 2.F);
        EXPECT_NE(creationErrors(wrongType).find("Reorg_TRT: field 'stride' holds kFLOAT32 data; expected integers"),
            std::string::npos)
            << version;
    }
}

} // namespace
} // namespace kiln::test
