// ONNX files that name the plugins of Kiln's collection (plugins/) import through the plugin fallback, their
// attributes becoming fields, as they do under TensorRT with libnvinfer_plugin loaded.
#include "expect_close.h"
#include "onnx_harness.h"

#include <NvInferPlugin.h>

#include <gtest/gtest.h>

namespace kiln::test
{
namespace
{

constexpr int32_t kFloat = ::onnx::TensorProto::FLOAT;

class CollectionPlugins : public ::testing::Test
{
protected:
    void SetUp() override
    {
        initLibNvInferPlugins(nullptr, "");
    }
};

// NVIDIA's BERT exports carry GELU as a node of the plugin's name, its bias an attribute.
TEST_F(CollectionPlugins, GeluNodeWithBiasAttribute)
{
    ModelBuilder m;
    m.input("x", kFloat, {2, 2});
    auto& node = m.node("CustomGeluPluginDynamic", {"x"}, {"y"}, "gelu");
    setInt(node, "type_id", 0);
    setFloats(node, "bias", {0.25F, -0.75F});
    setString(node, "plugin_version", "1");
    m.output("y", kFloat);

    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    ASSERT_EQ(h.network->getNbLayers(), 1);
    EXPECT_EQ(h.network->getLayer(0)->getType(), nvinfer1::LayerType::kPLUGIN_V2);
    ASSERT_TRUE(h.build());
    std::vector<float> const x{1.F, 1.F, -2.F, 0.5F};
    std::vector<float> y(4);
    ASSERT_TRUE(h.run({{"x", x.data()}}, {{"y", y.data()}}));
    // torch.nn.functional.gelu(x + [0.25, -0.75], approximate="tanh").
    expectClose(y, {1.1177142029697147F, 0.149675350701685F, -0.0702046176587487F, -0.100324649298315F}, 1e-6F);
}

TEST_F(CollectionPlugins, BadAttributeNamesPluginAndField)
{
    ModelBuilder m;
    m.input("x", kFloat, {4});
    auto& node = m.node("CustomGeluPluginDynamic", {"x"}, {"y"}, "gelu");
    setInt(node, "type_id", 7);
    m.output("y", kFloat);

    OnnxHarness h;
    EXPECT_FALSE(h.parse(m.bytes()) && h.build());
    std::string const errors = h.parserErrors() + h.logger.errors();
    EXPECT_NE(errors.find("CustomGeluPluginDynamic: field 'type_id' is 7"), std::string::npos) << errors;
}

} // namespace
} // namespace kiln::test
