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

//! A RoiAlign node over X [1, 1, 4, 4], two ROIs and their batch indices; its values are checked against ONNX's node
//! tests (onnx_conformance); here, how its attributes reach ROIAlign_TRT.
ModelBuilder roiAlignModel()
{
    ModelBuilder m(16);
    m.input("x", kFloat, {1, 1, 4, 4});
    m.floats("rois", {2, 4}, {0, 0, 2, 2, 1, 1, 3, 3});
    m.int64s("batch_indices", {2}, {0, 0});
    m.node("RoiAlign", {"x", "rois", "batch_indices"}, {"y"}, "roi");
    m.output("y", kFloat);
    return m;
}

TEST_F(CollectionPlugins, RoiAlignImportsAsTheROIAlignPlugin)
{
    ModelBuilder m = roiAlignModel();
    auto& node = *m.model.mutable_graph()->mutable_node(0);
    setInt(node, "output_height", 2);
    setInt(node, "output_width", 3);
    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    nvinfer1::ILayer* last = h.network->getLayer(h.network->getNbLayers() - 1);
    auto* plugin = dynamic_cast<nvinfer1::IPluginV2Layer*>(last);
    ASSERT_NE(plugin, nullptr);
    EXPECT_STREQ(plugin->getPlugin().getPluginType(), "ROIAlign_TRT");
    EXPECT_EQ(plugin->getInput(2)->getType(), nvinfer1::DataType::kINT32);
    nvinfer1::Dims const dims = plugin->getOutput(0)->getDimensions();
    EXPECT_EQ(std::vector<int64_t>(dims.d, dims.d + dims.nbDims), (std::vector<int64_t>{2, 1, 2, 3}));
}

TEST_F(CollectionPlugins, RoiAlignModesOutsideONNXsAreNamed)
{
    ModelBuilder m = roiAlignModel();
    setString(*m.model.mutable_graph()->mutable_node(0), "mode", "median");
    OnnxHarness h;
    EXPECT_FALSE(h.parse(m.bytes()));
    EXPECT_NE(h.parserErrors().find("RoiAlign's mode \"median\" is none of \"avg\" and \"max\""), std::string::npos)
        << h.parserErrors();
}

} // namespace
} // namespace kiln::test
