// Custom ops reach plugins through the ONNX parser as in onnx-tensorrt: looked up by op_type,
// plugin_version and plugin_namespace, attributes filtered by the creator's getFieldNames(), V2 and V3
// creators, and the TRT_PluginV2 op carrying a serialized plugin. Uses the seed plugins
// (examples/seed_plugins), which register themselves with REGISTER_TENSORRT_PLUGIN.
#include "expect_close.h"
#include "onnx_harness.h"

#include "MyCustomPlugin.h"
#include "ScaledAddPlugin.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln::test
{
namespace
{

constexpr int32_t kFloat = ::onnx::TensorProto::FLOAT;

//! MyCustomPlugin: y[n, c, i] = x[n, c, i] * weight[c] + bias[c] on x [1, 2, 2].
ModelBuilder myCustomModel(std::string const& pluginNamespace = "")
{
    ModelBuilder m;
    m.input("x", kFloat, {1, 2, 2});
    auto& node = m.node("MyCustomPlugin", {"x"}, {"y"}, "custom");
    node.set_domain("my.custom.domain"); // a custom op's domain: looked up by name, version and namespace
    setInt(node, "in_channel", 2);
    setFloats(node, "weight", {2.0F, -1.0F});
    setFloats(node, "bias", {0.5F, 1.0F});
    setString(node, "not_a_field", "ignored because getFieldNames does not list it");
    if (!pluginNamespace.empty())
    {
        setString(node, "plugin_namespace", pluginNamespace);
    }
    m.output("y", kFloat);
    return m;
}

void expectMyCustomResult(OnnxHarness& h)
{
    ASSERT_TRUE(h.build());
    std::vector<float> const x{1.0F, 2.0F, 3.0F, 4.0F};
    std::vector<float> y(4);
    ASSERT_TRUE(h.run({{"x", x.data()}}, {{"y", y.data()}}));
    expectClose(y, {2.5F, 4.5F, -2.0F, -3.0F}, 1e-5F);
}

TEST(OnnxPlugins, UnknownOpBecomesAV2PluginWithItsFields)
{
    OnnxHarness h;
    ASSERT_TRUE(h.parse(myCustomModel().bytes())) << h.parserErrors();
    ASSERT_EQ(h.network->getNbLayers(), 1);
    EXPECT_EQ(h.network->getLayer(0)->getType(), nvinfer1::LayerType::kPLUGIN_V2);
    EXPECT_STREQ(h.network->getLayer(0)->getName(), "custom");
    expectMyCustomResult(h);
}

TEST(OnnxPlugins, PluginNamespaceAttributeSelectsTheCreator)
{
    // A second creator under a namespace; only the node's plugin_namespace attribute reaches it.
    static kiln_seed::MyCustomPluginCreator namespaced;
    namespaced.setPluginNamespace("onnx_test_ns");
    static bool const registered = getPluginRegistry()->registerCreator(namespaced, "onnx_test_ns");
    ASSERT_TRUE(registered);
    {
        OnnxHarness h;
        ASSERT_TRUE(h.parse(myCustomModel("onnx_test_ns").bytes())) << h.parserErrors();
        ASSERT_EQ(h.network->getNbLayers(), 1);
        auto* layer = dynamic_cast<nvinfer1::IPluginV2Layer*>(h.network->getLayer(0));
        ASSERT_NE(layer, nullptr);
        EXPECT_STREQ(layer->getPlugin().getPluginNamespace(), "onnx_test_ns");
        expectMyCustomResult(h);
    }
    // One harness at a time: Kiln logs through the logger of the last builder created, so a second harness
    // destroyed first would leave the first one's layers logging into a freed logger.
    OnnxHarness missing;
    EXPECT_FALSE(missing.parse(myCustomModel("no_such_ns").bytes()));
    std::string const errors = missing.parserErrors();
    EXPECT_NE(errors.find("namespace \"no_such_ns\""), std::string::npos) << errors;
    EXPECT_NE(errors.find("MyCustomPlugin"), std::string::npos) << errors;
}

TEST(OnnxPlugins, V3CreatorWithPluginVersionAttribute)
{
    ModelBuilder m;
    m.input("a", kFloat, {3});
    m.input("b", kFloat, {3});
    auto& node = m.node("ScaledAdd", {"a", "b"}, {"y"}, "scaled_add");
    setFloat(node, "alpha", 0.5F);
    setString(node, "plugin_version", "1");
    m.output("y", kFloat);
    {
        OnnxHarness h;
        ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
        EXPECT_EQ(h.network->getLayer(0)->getType(), nvinfer1::LayerType::kPLUGIN_V3);
        ASSERT_TRUE(h.build());
        std::vector<float> const a{1.0F, 2.0F, 3.0F};
        std::vector<float> const b{4.0F, 6.0F, -2.0F};
        std::vector<float> y(3);
        ASSERT_TRUE(h.run({{"a", a.data()}, {"b", b.data()}}, {{"y", y.data()}}));
        expectClose(y, {3.0F, 5.0F, 2.0F}, 1e-5F);
    }

    setString(*m.model.mutable_graph()->mutable_node(0), "plugin_version", "2");
    OnnxHarness wrongVersion;
    // The later plugin_version attribute wins; version "2" is not registered.
    EXPECT_FALSE(wrongVersion.parse(m.bytes()));
    EXPECT_NE(wrongVersion.parserErrors().find("version \"2\""), std::string::npos) << wrongVersion.parserErrors();
}

TEST(OnnxPlugins, TrtPluginV2NodeCarriesASerializedPlugin)
{
    kiln_seed::MyCustomPluginCreator creator;
    std::vector<nvinfer1::PluginField> fields;
    int32_t const channels = 2;
    float const weight[] = {2.0F, -1.0F};
    float const bias[] = {0.5F, 1.0F};
    fields.emplace_back("in_channel", &channels, nvinfer1::PluginFieldType::kINT32, 1);
    fields.emplace_back("weight", weight, nvinfer1::PluginFieldType::kFLOAT32, 2);
    fields.emplace_back("bias", bias, nvinfer1::PluginFieldType::kFLOAT32, 2);
    nvinfer1::PluginFieldCollection const fc{static_cast<int32_t>(fields.size()), fields.data()};
    nvinfer1::IPluginV2* plugin = creator.createPlugin("serialized", &fc);
    ASSERT_NE(plugin, nullptr);
    std::string data(plugin->getSerializationSize(), '\0');
    plugin->serialize(data.data());
    plugin->destroy();

    ModelBuilder m;
    m.input("x", kFloat, {1, 2, 2});
    auto& node = m.node("TRT_PluginV2", {"x"}, {"y"}, "from_bytes");
    setString(node, "name", "MyCustomPlugin");
    setString(node, "version", "1");
    setString(node, "namespace", "");
    setString(node, "data", data);
    m.output("y", kFloat);
    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    EXPECT_EQ(h.network->getLayer(0)->getType(), nvinfer1::LayerType::kPLUGIN_V2);
    expectMyCustomResult(h);
}

//! A V3 creator registered under the name of a built-in op, making ScaledAdd plugins.
class AddOverrideCreator final : public nvinfer1::IPluginCreatorV3One
{
public:
    nvinfer1::AsciiChar const* getPluginName() const noexcept override
    {
        return "Add";
    }
    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override
    {
        return "1";
    }
    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override
    {
        return "";
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override
    {
        return mInner.getFieldNames();
    }
    nvinfer1::IPluginV3* createPlugin(nvinfer1::AsciiChar const* name, nvinfer1::PluginFieldCollection const* fc,
        nvinfer1::TensorRTPhase phase) noexcept override
    {
        return mInner.createPlugin(name, fc, phase);
    }

private:
    kiln_seed::ScaledAddPluginCreator mInner;
};

TEST(OnnxPlugins, PluginOverrideFlagReplacesABuiltInOp)
{
    static AddOverrideCreator creator;
    static bool const registered = getPluginRegistry()->registerCreator(creator, "");
    ASSERT_TRUE(registered);
    ModelBuilder m;
    m.input("a", kFloat, {3});
    m.input("b", kFloat, {3});
    m.node("Add", {"a", "b"}, {"y"});
    m.output("y", kFloat);

    {
        OnnxHarness builtIn;
        ASSERT_TRUE(builtIn.parse(m.bytes())) << builtIn.parserErrors();
        EXPECT_EQ(builtIn.network->getLayer(0)->getType(), nvinfer1::LayerType::kELEMENTWISE);
    }
    {
        OnnxHarness overridden;
        overridden.parser->setFlag(nvonnxparser::OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE);
        ASSERT_TRUE(overridden.parse(m.bytes())) << overridden.parserErrors();
        EXPECT_EQ(overridden.network->getLayer(0)->getType(), nvinfer1::LayerType::kPLUGIN_V3);
    }
    getPluginRegistry()->deregisterCreator(creator);
}

TEST(OnnxPlugins, MisspelledOpNamesTheClosestRegisteredPlugins)
{
    ModelBuilder m;
    m.input("x", kFloat, {1, 2, 2});
    m.node("MyCustomPlugn", {"x"}, {"y"}, "typo");
    m.output("y", kFloat);
    OnnxHarness h;
    EXPECT_FALSE(h.parse(m.bytes()));
    ASSERT_EQ(h.parser->getNbErrors(), 1);
    std::string const desc = h.parser->getError(0)->desc();
    EXPECT_EQ(h.parser->getError(0)->code(), nvonnxparser::ErrorCode::kUNSUPPORTED_NODE);
    EXPECT_NE(desc.find("\"MyCustomPlugn\""), std::string::npos) << desc;
    EXPECT_NE(desc.find("\"typo\""), std::string::npos) << desc;
    EXPECT_NE(desc.find("Closest registered"), std::string::npos) << desc;
    EXPECT_NE(desc.find("\"MyCustomPlugin\""), std::string::npos) << desc;
}

//! A V3 creator making ScaledAdd plugins that also names Kiln's __kiln_input_ranks field, and records what it got.
class RankProbeCreator final : public nvinfer1::IPluginCreatorV3One
{
public:
    RankProbeCreator()
    {
        mFields[0] = nvinfer1::PluginField{"alpha", nullptr, nvinfer1::PluginFieldType::kFLOAT32, 1};
        mFields[1] = nvinfer1::PluginField{"__kiln_input_ranks", nullptr, nvinfer1::PluginFieldType::kINT32, 0};
        mCollection = nvinfer1::PluginFieldCollection{2, mFields};
    }
    nvinfer1::AsciiChar const* getPluginName() const noexcept override
    {
        return "RankProbe";
    }
    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override
    {
        return "1";
    }
    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override
    {
        return "";
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override
    {
        return &mCollection;
    }
    nvinfer1::IPluginV3* createPlugin(nvinfer1::AsciiChar const* name, nvinfer1::PluginFieldCollection const* fc,
        nvinfer1::TensorRTPhase phase) noexcept override
    {
        for (int32_t i = 0; i < fc->nbFields; ++i)
        {
            nvinfer1::PluginField const& field = fc->fields[i];
            if (std::string(field.name) == "__kiln_input_ranks" && field.type == nvinfer1::PluginFieldType::kINT32)
            {
                auto const* ranks = static_cast<int32_t const*>(field.data);
                ranksSeen.assign(ranks, ranks + field.length);
            }
        }
        return mInner.createPlugin(name, fc, phase);
    }

    std::vector<int32_t> ranksSeen;

private:
    nvinfer1::PluginField mFields[2];
    nvinfer1::PluginFieldCollection mCollection{};
    kiln_seed::ScaledAddPluginCreator mInner;
};

TEST(OnnxPlugins, AV3CreatorThatNamesTheInputRanksFieldGetsTheNodesInputRanks)
{
    static RankProbeCreator creator;
    static bool const registered = getPluginRegistry()->registerCreator(creator, "");
    ASSERT_TRUE(registered);
    ModelBuilder m;
    m.input("a", kFloat, {2, 1, 3});
    m.input("b", kFloat, {2, 1, 3});
    auto& node = m.node("RankProbe", {"a", "b"}, {"y"}, "probe");
    setFloat(node, "alpha", 2.0F);
    m.output("y", kFloat);
    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    EXPECT_EQ(creator.ranksSeen, (std::vector<int32_t>{3, 3}));
    getPluginRegistry()->deregisterCreator(creator);
}

TEST(OnnxPlugins, V3ShapeInputIndicesMustNameInputs)
{
    ModelBuilder m;
    m.input("a", kFloat, {3});
    m.input("b", kFloat, {3});
    auto& node = m.node("ScaledAdd", {"a", "b"}, {"y"}, "bad_indices");
    setInts(node, "tensorrt_plugin_shape_input_indices", {5});
    m.output("y", kFloat);
    OnnxHarness h;
    EXPECT_FALSE(h.parse(m.bytes()));
    EXPECT_NE(h.parserErrors().find("tensorrt_plugin_shape_input_indices names input 5"), std::string::npos)
        << h.parserErrors();
}

} // namespace
} // namespace kiln::test
