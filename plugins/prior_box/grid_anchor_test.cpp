// GridAnchor_TRT and GridAnchorRect_TRT against anchors worked out by hand; with a GPU, CUDA against the CPU.
#include "expect_close.h"
#include "plugin_harness.h"

#include <cmath>

namespace kiln::test
{
namespace
{

PluginCall gridAnchor(char const* name, std::vector<int32_t> const& shapes)
{
    PluginCall call{name, "1", {}};
    call.fields.add("minSize", 0.2F)
        .add("maxSize", 0.6F)
        .add("aspectRatios", std::vector<float>{1.F, 4.F, 0.25F})
        .add("featureMapShapes", shapes)
        .add("variance", std::vector<float>{0.1F, 0.1F, 0.2F, 0.2F})
        .add("numLayers", 2);
    return call;
}

std::vector<float> withVariances(std::vector<float> boxes)
{
    size_t const count = boxes.size() / 4;
    for (size_t i = 0; i < count; ++i)
    {
        boxes.insert(boxes.end(), {0.1F, 0.1F, 0.2F, 0.2F});
    }
    return boxes;
}

TEST(GridAnchorPlugin, MatchesHandComputedAnchors)
{
    // Two layers, scales s0 = 0.2, s1 = 0.6 (evenly from minSize to maxSize), and 1 after the last.
    // Layer 0 (2 x 2): the first three ratios 1, 4, 1/4 at scales 0.1, s0, s0; width = s sqrt(r), height = s / sqrt(r):
    // 0.1 x 0.1, 0.4 x 0.1, 0.1 x 0.4. Cells are 0.5 wide, centred at 0.25 and 0.75.
    // Layer 1 (1 x 1): ratios 1, 4, 1/4 at s1 = 0.6: 0.6 x 0.6, 1.2 x 0.3, 0.3 x 1.2; then ratio 1 at
    // sqrt(0.6 * 1) = 0.7745967: half 0.3872983, centred at 0.5.
    PluginCall call = gridAnchor("GridAnchor_TRT", {2, 1});
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, {});
    ASSERT_EQ(out.size(), 2U);
    EXPECT_EQ(out[0].shape, (Shape{1, 2, 48, 1}));
    EXPECT_EQ(out[1].shape, (Shape{1, 2, 16, 1}));
    expectClose(out[0].floats(),
        withVariances({0.2F, 0.2F, 0.3F, 0.3F, 0.05F, 0.2F, 0.45F, 0.3F, 0.2F, 0.05F, 0.3F, 0.45F, // (0.25, 0.25)
            0.7F, 0.2F, 0.8F, 0.3F, 0.55F, 0.2F, 0.95F, 0.3F, 0.7F, 0.05F, 0.8F, 0.45F,            // (0.75, 0.25)
            0.2F, 0.7F, 0.3F, 0.8F, 0.05F, 0.7F, 0.45F, 0.8F, 0.2F, 0.55F, 0.3F, 0.95F,            // (0.25, 0.75)
            0.7F, 0.7F, 0.8F, 0.8F, 0.55F, 0.7F, 0.95F, 0.8F, 0.7F, 0.55F, 0.8F, 0.95F}),          // (0.75, 0.75)
        1e-6F, "layer 0");
    float const half = std::sqrt(0.6F) / 2.F;
    expectClose(out[1].floats(),
        withVariances({0.2F, 0.2F, 0.8F, 0.8F, -0.1F, 0.35F, 1.1F, 0.65F, 0.35F, -0.1F, 0.65F, 1.1F, 0.5F - half,
            0.5F - half, 0.5F + half, 0.5F + half}),
        1e-6F, "layer 1");
}

TEST(GridAnchorPlugin, RectReadsHeightWidthPairs)
{
    // Layer 0 is 1 high and 2 wide: cells 1 tall (centre y 0.5) and 0.5 wide (centres x 0.25, 0.75).
    PluginCall call = gridAnchor("GridAnchorRect_TRT", {1, 2, 1, 1});
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, {});
    ASSERT_EQ(out.size(), 2U);
    EXPECT_EQ(out[0].shape, (Shape{1, 2, 24, 1}));
    expectClose(out[0].floats(),
        withVariances({0.2F, 0.45F, 0.3F, 0.55F, 0.05F, 0.45F, 0.45F, 0.55F, 0.2F, 0.3F, 0.3F, 0.7F, // (0.25, 0.5)
            0.7F, 0.45F, 0.8F, 0.55F, 0.55F, 0.45F, 0.95F, 0.55F, 0.7F, 0.3F, 0.8F, 0.7F}),          // (0.75, 0.5)
        1e-6F);
}

TEST(GridAnchorPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    // NVIDIA's README example: SSD's six layers.
    for (char const* name : {"GridAnchor_TRT", "GridAnchorRect_TRT"})
    {
        bool const rect = std::string(name) == "GridAnchorRect_TRT";
        PluginCall call{name, "1", {}};
        call.fields.add("minSize", 0.2F)
            .add("maxSize", 0.95F)
            .add("aspectRatios", std::vector<float>{1.F, 2.F, 0.5F, 3.F, 0.33F})
            .add("featureMapShapes",
                rect ? std::vector<int32_t>{19, 19, 10, 10, 5, 5, 3, 3, 2, 2, 1, 1}
                     : std::vector<int32_t>{19, 10, 5, 3, 2, 1})
            .add("variance", std::vector<float>{0.1F, 0.1F, 0.2F, 0.2F})
            .add("numLayers", 6);
        std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, {});
        std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, {});
        ASSERT_EQ(cuda.size(), 6U);
        for (size_t i = 0; i < cuda.size(); ++i)
        {
            expectClose(cuda[i].floats(), cpu[i].floats(), 1e-6F, "layer " + std::to_string(i));
        }
    }
}

TEST(GridAnchorPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall missing{"GridAnchor_TRT", "1", {}};
    missing.fields.add("aspectRatios", std::vector<float>{1.F, 2.F, 0.5F}).add("numLayers", 1);
    missing.fields.add("variance", std::vector<float>{0.1F, 0.1F, 0.2F, 0.2F});
    EXPECT_NE(creationErrors(missing).find("GridAnchor_TRT: the required field 'featureMapShapes' is missing"),
        std::string::npos);

    PluginCall odd = gridAnchor("GridAnchorRect_TRT", {1, 2, 1});
    EXPECT_NE(creationErrors(odd).find("GridAnchorRect_TRT: field 'featureMapShapes' holds 3 values; expected a "
                                       "height and a width for each of the 2 layers"),
        std::string::npos);

    PluginCall typed{"GridAnchor_TRT", "1", {}};
    typed.fields.add("aspectRatios", std::vector<float>{1.F, 2.F, 0.5F});
    typed.fields.add("featureMapShapes", std::vector<int32_t>{1});
    typed.fields.add("variance", std::vector<float>{0.1F, 0.1F, 0.2F, 0.2F}).add("numLayers", 1.F);
    EXPECT_NE(creationErrors(typed).find("GridAnchor_TRT: field 'numLayers' holds kFLOAT32 data; expected integers"),
        std::string::npos);

    PluginCall zero = gridAnchor("GridAnchor_TRT", {0, 1});
    EXPECT_NE(creationErrors(zero).find("GridAnchor_TRT: field 'featureMapShapes' holds 0; expected positive"),
        std::string::npos);
}

} // namespace
} // namespace kiln::test
