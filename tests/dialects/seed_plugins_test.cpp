// The seed documents' plugins (examples/seed_plugins), found through the registry that
// their REGISTER_TENSORRT_PLUGIN initialisers filled when libkiln_seed_plugins loaded.
#include "PluginTestUtils.h"

#include <CustomPlugin.h>
#include <FooPlugin.h>
#include <MyCustomPlugin.h>
#include <ScaledAddPlugin.h>

#include <kiln/ShapeExprTesting.h>

#include <cfloat>
#include <cstring>
#include <string>
#include <vector>

using namespace nvinfer1;
using namespace kiln_test;

namespace
{

int32_t pluginFamily(IPluginV2 const& plugin)
{
    return static_cast<int32_t>(static_cast<uint32_t>(plugin.getTensorRTVersion()) >> 24U);
}

IPluginCreator* v2Creator(char const* name)
{
    IPluginCreator* creator = getPluginRegistry()->getPluginCreator(name, "1");
    EXPECT_NE(creator, nullptr) << name;
    return creator;
}

IPluginCreatorV3One* v3Creator(char const* name)
{
    IPluginCreatorInterface* creator = getPluginRegistry()->getCreator(name, "1");
    EXPECT_NE(creator, nullptr) << name;
    return dynamic_cast<IPluginCreatorV3One*>(creator);
}

void expectFields(IPluginCreatorInterface& creator, PluginFieldCollection const* fc,
    std::vector<std::pair<std::string, PluginFieldType>> const& expected)
{
    ASSERT_NE(fc, nullptr);
    ASSERT_EQ(fc->nbFields, static_cast<int32_t>(expected.size()));
    for (size_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_EQ(std::string(fc->fields[i].name), expected[i].first) << i;
        EXPECT_EQ(fc->fields[i].type, expected[i].second) << expected[i].first;
    }
    (void) creator;
}

//! Restores a V2 creator's namespace to "" when a test is done with it.
struct NamespaceGuard
{
    explicit NamespaceGuard(IPluginCreator& c)
        : creator(c)
    {
    }
    ~NamespaceGuard()
    {
        creator.setPluginNamespace("");
    }
    IPluginCreator& creator;
};

// --- MyCustomPlugin ----------------------------------------------------------------------------------------------

V2Ptr<IPluginV2DynamicExt> makeMyCustom(std::vector<float> weight = {0.5F, -2.0F, 3.0F},
    std::vector<float> bias = {1.0F, 0.0F, -1.0F}, int32_t channels = 3)
{
    FieldCollection fields;
    fields.addInt("in_channel", channels).addFloats("weight", std::move(weight)).addFloats("bias", std::move(bias));
    IPluginV2* plugin = v2Creator("MyCustomPlugin")->createPlugin("layer0", fields.get());
    return own(dynamic_cast<IPluginV2DynamicExt*>(plugin));
}

} // namespace

TEST(SeedPlugins, AllCreatorsAreRegisteredUnderTheEmptyNamespace)
{
    for (char const* name : {"MyCustomPlugin", "FooPlugin", "CustomPlugin"})
    {
        IPluginCreator* creator = getPluginRegistry()->getPluginCreator(name, "1", "");
        ASSERT_NE(creator, nullptr) << name;
        EXPECT_STREQ(creator->getPluginName(), name);
        EXPECT_STREQ(creator->getPluginVersion(), "1");
        EXPECT_STREQ(creator->getPluginNamespace(), "");
        EXPECT_EQ(getPluginRegistry()->getCreator(name, "1", ""), static_cast<IPluginCreatorInterface*>(creator));
        EXPECT_STREQ(creator->getInterfaceInfo().kind, "PLUGIN CREATOR_V1");
    }
    IPluginCreatorInterface* v3 = getPluginRegistry()->getCreator("ScaledAdd", "1", "");
    ASSERT_NE(v3, nullptr);
    EXPECT_STREQ(v3->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE");
    auto* scaledAdd = dynamic_cast<IPluginCreatorV3One*>(v3);
    ASSERT_NE(scaledAdd, nullptr);
    EXPECT_STREQ(scaledAdd->getPluginName(), "ScaledAdd");
    EXPECT_STREQ(scaledAdd->getPluginVersion(), "1");
    EXPECT_STREQ(scaledAdd->getPluginNamespace(), "");
    // A V3 creator is not an IPluginCreator, so the V2 look-up does not return it.
    EXPECT_EQ(getPluginRegistry()->getPluginCreator("ScaledAdd", "1"), nullptr);
    // Wrong version or namespace finds nothing.
    EXPECT_EQ(getPluginRegistry()->getPluginCreator("FooPlugin", "2"), nullptr);
    EXPECT_EQ(getPluginRegistry()->getPluginCreator("FooPlugin", "1", "elsewhere"), nullptr);
}

TEST(SeedPlugins, FieldNamesDescribeTheAttributes)
{
    IPluginCreator* myCustom = v2Creator("MyCustomPlugin");
    ASSERT_NE(myCustom, nullptr);
    expectFields(*myCustom, myCustom->getFieldNames(),
        {{"in_channel", PluginFieldType::kINT32}, {"weight", PluginFieldType::kFLOAT32},
            {"bias", PluginFieldType::kFLOAT32}});
    EXPECT_EQ(myCustom->getFieldNames()->fields[0].length, 1);

    IPluginCreator* foo = v2Creator("FooPlugin");
    ASSERT_NE(foo, nullptr);
    expectFields(*foo, foo->getFieldNames(), {{"alpha", PluginFieldType::kFLOAT32}});

    IPluginCreator* custom = v2Creator("CustomPlugin");
    ASSERT_NE(custom, nullptr);
    expectFields(
        *custom, custom->getFieldNames(), {{"min", PluginFieldType::kFLOAT32}, {"max", PluginFieldType::kFLOAT32}});

    IPluginCreatorV3One* scaledAdd = v3Creator("ScaledAdd");
    ASSERT_NE(scaledAdd, nullptr);
    expectFields(*scaledAdd, scaledAdd->getFieldNames(), {{"alpha", PluginFieldType::kFLOAT32}});
}

TEST(MyCustomPlugin, IdentityAndFormats)
{
    auto plugin = makeMyCustom();
    ASSERT_NE(plugin, nullptr);
    EXPECT_STREQ(plugin->getPluginType(), "MyCustomPlugin");
    EXPECT_STREQ(plugin->getPluginVersion(), "1");
    EXPECT_STREQ(plugin->getPluginNamespace(), "");
    EXPECT_EQ(plugin->getNbOutputs(), 1);
    EXPECT_EQ(pluginFamily(*plugin), static_cast<int32_t>(PluginVersion::kV2_DYNAMICEXT));
    EXPECT_NE(dynamic_cast<kiln::IHostPlugin*>(plugin.get()), nullptr);

    DataType const half = DataType::kHALF;
    EXPECT_EQ(plugin->getOutputDataType(0, &half, 1), DataType::kHALF);

    auto check
        = [&](DataType inType, TensorFormat inFormat, DataType outType, TensorFormat outFormat, bool in, bool out) {
              PluginTensorDesc io[2]
                  = {makeDesc(makeDims({2, 3}), inType, inFormat), makeDesc(makeDims({2, 3}), outType, outFormat)};
              EXPECT_EQ(plugin->supportsFormatCombination(0, io, 1, 1), in);
              EXPECT_EQ(plugin->supportsFormatCombination(1, io, 1, 1), out);
          };
    check(DataType::kFLOAT, TensorFormat::kLINEAR, DataType::kFLOAT, TensorFormat::kLINEAR, true, true);
    check(DataType::kHALF, TensorFormat::kLINEAR, DataType::kHALF, TensorFormat::kLINEAR, true, true);
    check(DataType::kHALF, TensorFormat::kLINEAR, DataType::kFLOAT, TensorFormat::kLINEAR, true, false);
    check(DataType::kFLOAT, TensorFormat::kLINEAR, DataType::kFLOAT, TensorFormat::kCHW4, true, false);
    check(DataType::kINT8, TensorFormat::kLINEAR, DataType::kINT8, TensorFormat::kLINEAR, false, false);
    check(DataType::kFLOAT, TensorFormat::kHWC8, DataType::kFLOAT, TensorFormat::kLINEAR, false, true);
}

TEST(MyCustomPlugin, CreateRejectsInconsistentFields)
{
    IPluginCreator* creator = v2Creator("MyCustomPlugin");
    ASSERT_NE(creator, nullptr);
    {
        FieldCollection fields; // bias missing
        fields.addInt("in_channel", 2).addFloats("weight", {1.0F, 2.0F});
        EXPECT_EQ(creator->createPlugin("l", fields.get()), nullptr);
    }
    {
        FieldCollection fields; // weight has 3 values for 2 channels
        fields.addInt("in_channel", 2).addFloats("weight", {1.0F, 2.0F, 3.0F}).addFloats("bias", {0.0F, 0.0F});
        EXPECT_EQ(creator->createPlugin("l", fields.get()), nullptr);
    }
    {
        float const channels = 2.0F; // in_channel given as a float (seed 003's creator did that)
        FieldCollection fields;
        fields.addRaw("in_channel", &channels, PluginFieldType::kFLOAT32, 1)
            .addFloats("weight", {1.0F, 2.0F})
            .addFloats("bias", {0.0F, 0.0F});
        EXPECT_EQ(creator->createPlugin("l", fields.get()), nullptr);
    }
    {
        FieldCollection fields;
        fields.addInt("in_channel", 0)
            .addFloats("weight", std::vector<float>{})
            .addFloats("bias", std::vector<float>{});
        EXPECT_EQ(creator->createPlugin("l", fields.get()), nullptr);
    }
    EXPECT_EQ(creator->deserializePlugin("l", "abc", 3), nullptr);
}

TEST(MyCustomPlugin, OutputShapeIsTheInputShape)
{
    auto plugin = makeMyCustom();
    ASSERT_NE(plugin, nullptr);
    kiln::ShapeExprTester tester;
    DimsExprs input = tester.dims({"N", 3, "H", "W"});
    DimsExprs output = plugin->getOutputDimensions(0, &input, 1, tester.builder());
    std::optional<Dims> value = tester.evaluate(output, {{"N", 2}, {"H", 5}, {"W", 7}});
    ASSERT_TRUE(value.has_value()) << tester.lastError();
    EXPECT_TRUE(sameDims(*value, makeDims({2, 3, 5, 7})));
    EXPECT_FALSE(output.d[0]->isConstant());
    ASSERT_TRUE(output.d[1]->isConstant());
    EXPECT_EQ(output.d[1]->getConstantValue(), 3);
}

TEST(MyCustomPlugin, HostComputesChannelAffineInFp32)
{
    auto plugin = makeMyCustom();
    ASSERT_NE(plugin, nullptr);
    auto* host = dynamic_cast<kiln::IHostPlugin*>(plugin.get());
    ASSERT_NE(host, nullptr);

    // N=2, C=3, inner=2. weight {0.5, -2, 3}, bias {1, 0, -1}.
    std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    std::vector<float> y(x.size(), -999.0F);
    PluginTensorDesc const desc = makeDesc(makeDims({2, 3, 2}), DataType::kFLOAT);
    ASSERT_EQ(runHost<float>(*host, {desc}, {&x}, desc, y), 0);
    std::vector<float> const expected{1.5F, 2.0F, -6.0F, -8.0F, 14.0F, 17.0F, 4.5F, 5.0F, -18.0F, -20.0F, 32.0F, 35.0F};
    for (size_t i = 0; i < y.size(); ++i)
    {
        EXPECT_FLOAT_EQ(y[i], expected[i]) << i;
    }

    // Rank 2: inner extent 1.
    std::vector<float> x2{1, 1, 1, -2, -2, -2};
    std::vector<float> y2(x2.size());
    PluginTensorDesc const desc2 = makeDesc(makeDims({2, 3}), DataType::kFLOAT);
    ASSERT_EQ(runHost<float>(*host, {desc2}, {&x2}, desc2, y2), 0);
    std::vector<float> const expected2{1.5F, -2.0F, 2.0F, 0.0F, 4.0F, -7.0F};
    for (size_t i = 0; i < y2.size(); ++i)
    {
        EXPECT_FLOAT_EQ(y2[i], expected2[i]) << i;
    }

    // Dimension 1 must equal in_channel; rank 1 is not enough.
    PluginTensorDesc const wrong = makeDesc(makeDims({3, 2}), DataType::kFLOAT);
    EXPECT_NE(runHost<float>(*host, {wrong}, {&x2}, wrong, y2), 0);
    PluginTensorDesc const rank1 = makeDesc(makeDims({3}), DataType::kFLOAT);
    EXPECT_NE(runHost<float>(*host, {rank1}, {&x2}, rank1, y2), 0);
}

TEST(MyCustomPlugin, HostComputesChannelAffineInFp16)
{
    std::vector<float> const weight{0.3F, -1.7F, 2.2F};
    std::vector<float> const bias{0.1F, 0.05F, -0.6F};
    auto plugin = makeMyCustom(weight, bias);
    ASSERT_NE(plugin, nullptr);
    auto* host = dynamic_cast<kiln::IHostPlugin*>(plugin.get());

    std::vector<float> values;
    for (int i = 0; i < 24; ++i)
    {
        values.push_back(0.37F * static_cast<float>(i) - 3.1F);
    }
    std::vector<uint16_t> const x = toHalf(values);
    std::vector<uint16_t> y(x.size(), 0xFFFF);
    PluginTensorDesc const desc = makeDesc(makeDims({2, 3, 4}), DataType::kHALF);
    ASSERT_EQ(runHost<uint16_t>(*host, {desc}, {&x}, desc, y), 0);
    for (size_t i = 0; i < y.size(); ++i)
    {
        size_t const c = (i / 4) % 3;
        // The reference computes from the FP16-rounded input, in float, and rounds once.
        float const rounded = kiln::halfBitsToFloat(x[i]);
        uint16_t const expected = kiln::floatToHalfBits(rounded * weight[c] + bias[c]);
        EXPECT_EQ(y[i], expected) << i << ": got " << kiln::halfBitsToFloat(y[i]) << " want "
                                  << kiln::halfBitsToFloat(expected);
    }
}

TEST(MyCustomPlugin, CloneAndSerializationRoundTrip)
{
    auto plugin = makeMyCustom();
    ASSERT_NE(plugin, nullptr);
    std::vector<uint8_t> const bytes = serializeToBytes(*plugin);
    // in_channel, then each array as a count and its values.
    EXPECT_EQ(bytes.size(), sizeof(int32_t) + 2 * (sizeof(int32_t) + 3 * sizeof(float)));

    auto clone = own(plugin->clone());
    ASSERT_NE(clone, nullptr);
    EXPECT_NE(clone.get(), plugin.get());
    EXPECT_EQ(serializeToBytes(*clone), bytes);

    IPluginCreator* creator = v2Creator("MyCustomPlugin");
    auto restored = own(creator->deserializePlugin("layer0", bytes.data(), bytes.size()));
    ASSERT_NE(restored, nullptr);
    EXPECT_STREQ(restored->getPluginType(), "MyCustomPlugin");
    EXPECT_EQ(serializeToBytes(*restored), bytes);

    std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    std::vector<float> fromOriginal(x.size());
    std::vector<float> fromRestored(x.size());
    PluginTensorDesc const desc = makeDesc(makeDims({2, 3, 2}), DataType::kFLOAT);
    ASSERT_EQ(runHost<float>(*dynamic_cast<kiln::IHostPlugin*>(plugin.get()), {desc}, {&x}, desc, fromOriginal), 0);
    ASSERT_EQ(runHost<float>(*dynamic_cast<kiln::IHostPlugin*>(restored.get()), {desc}, {&x}, desc, fromRestored), 0);
    EXPECT_EQ(fromOriginal, fromRestored);

    // Truncated bytes are refused, not read past.
    EXPECT_EQ(creator->deserializePlugin("layer0", bytes.data(), bytes.size() - 1), nullptr);
}

TEST(MyCustomPlugin, NamespacePropagates)
{
    IPluginCreator* creator = v2Creator("MyCustomPlugin");
    ASSERT_NE(creator, nullptr);
    NamespaceGuard guard(*creator);
    creator->setPluginNamespace("seed_ns");
    auto plugin = makeMyCustom();
    ASSERT_NE(plugin, nullptr);
    EXPECT_STREQ(plugin->getPluginNamespace(), "seed_ns");
    auto clone = own(plugin->clone());
    EXPECT_STREQ(clone->getPluginNamespace(), "seed_ns");
    std::vector<uint8_t> const bytes = serializeToBytes(*plugin);
    auto restored = own(creator->deserializePlugin("x", bytes.data(), bytes.size()));
    ASSERT_NE(restored, nullptr);
    EXPECT_STREQ(restored->getPluginNamespace(), "seed_ns");
}

// --- FooPlugin ---------------------------------------------------------------------------------------------------

namespace
{
V2Ptr<IPluginV2IOExt> makeFoo(float alpha)
{
    FieldCollection fields;
    fields.addFloats("alpha", {alpha});
    return own(dynamic_cast<IPluginV2IOExt*>(v2Creator("FooPlugin")->createPlugin("foo", fields.get())));
}
} // namespace

TEST(FooPlugin, IdentityShapesAndFormats)
{
    auto plugin = makeFoo(0.2F);
    ASSERT_NE(plugin, nullptr);
    EXPECT_STREQ(plugin->getPluginType(), "FooPlugin");
    EXPECT_STREQ(plugin->getPluginVersion(), "1");
    EXPECT_STREQ(plugin->getPluginNamespace(), "");
    EXPECT_EQ(plugin->getNbOutputs(), 1);
    EXPECT_EQ(pluginFamily(*plugin), static_cast<int32_t>(PluginVersion::kV2_IOEXT));

    // The batch dimension is not part of these shapes: [C, H, W] in, [C, H, W] out.
    Dims const in = makeDims({3, 4, 5});
    EXPECT_TRUE(sameDims(plugin->getOutputDimensions(0, &in, 1), makeDims({3, 4, 5})));
    EXPECT_EQ(plugin->getOutputDimensions(1, &in, 1).nbDims, -1);

    DataType const types[] = {DataType::kHALF};
    EXPECT_EQ(plugin->getOutputDataType(0, types, 1), DataType::kHALF);

    PluginTensorDesc io[2] = {makeDesc(in, DataType::kFLOAT), makeDesc(in, DataType::kFLOAT)};
    EXPECT_TRUE(plugin->supportsFormatCombination(0, io, 1, 1));
    EXPECT_TRUE(plugin->supportsFormatCombination(1, io, 1, 1));
    io[0].type = DataType::kHALF;
    EXPECT_TRUE(plugin->supportsFormatCombination(0, io, 1, 1));
    EXPECT_FALSE(plugin->supportsFormatCombination(1, io, 1, 1)); // output must follow the input
    io[1].type = DataType::kHALF;
    EXPECT_TRUE(plugin->supportsFormatCombination(1, io, 1, 1));
    io[0].type = DataType::kINT32;
    EXPECT_FALSE(plugin->supportsFormatCombination(0, io, 1, 1));
    io[0] = makeDesc(in, DataType::kFLOAT, TensorFormat::kCHW32);
    EXPECT_FALSE(plugin->supportsFormatCombination(0, io, 1, 1));
}

TEST(FooPlugin, HostComputesLeakyRelu)
{
    auto plugin = makeFoo(0.2F);
    ASSERT_NE(plugin, nullptr);
    auto* host = dynamic_cast<kiln::IHostPlugin*>(plugin.get());
    ASSERT_NE(host, nullptr);

    std::vector<float> x{-2.0F, -0.5F, 0.0F, 1.5F, 3.0F, -10.0F};
    std::vector<float> y(x.size());
    PluginTensorDesc const desc = makeDesc(makeDims({2, 3}), DataType::kFLOAT); // batch 2 included
    ASSERT_EQ(runHost<float>(*host, {desc}, {&x}, desc, y), 0);
    std::vector<float> const expected{-0.4F, -0.1F, 0.0F, 1.5F, 3.0F, -2.0F};
    for (size_t i = 0; i < y.size(); ++i)
    {
        EXPECT_FLOAT_EQ(y[i], expected[i]) << i;
    }

    std::vector<float> values{-7.3F, -0.011F, 0.0F, 0.333F, 1234.5F, -65000.0F};
    std::vector<uint16_t> const hx = toHalf(values);
    std::vector<uint16_t> hy(hx.size());
    PluginTensorDesc const hdesc = makeDesc(makeDims({1, 6}), DataType::kHALF);
    ASSERT_EQ(runHost<uint16_t>(*host, {hdesc}, {&hx}, hdesc, hy), 0);
    for (size_t i = 0; i < hy.size(); ++i)
    {
        float const r = kiln::halfBitsToFloat(hx[i]);
        EXPECT_EQ(hy[i], kiln::floatToHalfBits(r >= 0.0F ? r : 0.2F * r)) << i;
    }
}

TEST(FooPlugin, DefaultAlphaAndRejectedFields)
{
    IPluginCreator* creator = v2Creator("FooPlugin");
    ASSERT_NE(creator, nullptr);
    FieldCollection none;
    auto plugin = own(creator->createPlugin("foo", none.get()));
    ASSERT_NE(plugin, nullptr);
    std::vector<float> x{-100.0F};
    std::vector<float> y(1);
    PluginTensorDesc const desc = makeDesc(makeDims({1}), DataType::kFLOAT);
    ASSERT_EQ(runHost<float>(*dynamic_cast<kiln::IHostPlugin*>(plugin.get()), {desc}, {&x}, desc, y), 0);
    EXPECT_FLOAT_EQ(y[0], -1.0F); // alpha defaults to 0.01

    int32_t const wrong = 1;
    FieldCollection bad;
    bad.addRaw("alpha", &wrong, PluginFieldType::kINT32, 1);
    EXPECT_EQ(creator->createPlugin("foo", bad.get()), nullptr);
}

TEST(FooPlugin, ConfiguredStateSurvivesCloneAndSerialization)
{
    auto plugin = makeFoo(0.25F);
    ASSERT_NE(plugin, nullptr);
    PluginTensorDesc const in = makeDesc(makeDims({3, 4}), DataType::kHALF);
    PluginTensorDesc const out = makeDesc(makeDims({3, 4}), DataType::kHALF);
    plugin->configurePlugin(&in, 1, &out, 1);
    std::vector<uint8_t> const bytes = serializeToBytes(*plugin);
    ASSERT_EQ(bytes.size(), sizeof(float) + sizeof(int32_t) + sizeof(int64_t));
    float alpha = 0.0F;
    int32_t type = -1;
    int64_t count = -1;
    std::memcpy(&alpha, bytes.data(), sizeof(alpha));
    std::memcpy(&type, bytes.data() + sizeof(float), sizeof(type));
    std::memcpy(&count, bytes.data() + sizeof(float) + sizeof(int32_t), sizeof(count));
    EXPECT_EQ(alpha, 0.25F);
    EXPECT_EQ(type, static_cast<int32_t>(DataType::kHALF));
    EXPECT_EQ(count, 12);

    auto clone = own(plugin->clone());
    ASSERT_NE(clone, nullptr);
    EXPECT_EQ(serializeToBytes(*clone), bytes);
    auto restored = own(v2Creator("FooPlugin")->deserializePlugin("foo", bytes.data(), bytes.size()));
    ASSERT_NE(restored, nullptr);
    EXPECT_EQ(serializeToBytes(*restored), bytes);
    EXPECT_EQ(pluginFamily(*restored), static_cast<int32_t>(PluginVersion::kV2_IOEXT));

    std::vector<uint16_t> const x = toHalf({-4.0F, -1.0F, 0.5F, 2.0F});
    std::vector<uint16_t> a(4);
    std::vector<uint16_t> b(4);
    PluginTensorDesc const desc = makeDesc(makeDims({1, 4}), DataType::kHALF);
    ASSERT_EQ(runHost<uint16_t>(*dynamic_cast<kiln::IHostPlugin*>(plugin.get()), {desc}, {&x}, desc, a), 0);
    ASSERT_EQ(runHost<uint16_t>(*dynamic_cast<kiln::IHostPlugin*>(restored.get()), {desc}, {&x}, desc, b), 0);
    EXPECT_EQ(a, b);
    EXPECT_EQ(fromHalf(a), (std::vector<float>{-1.0F, -0.25F, 0.5F, 2.0F}));
}

TEST(FooPlugin, NamespacePropagates)
{
    IPluginCreator* creator = v2Creator("FooPlugin");
    ASSERT_NE(creator, nullptr);
    NamespaceGuard guard(*creator);
    creator->setPluginNamespace("foo_ns");
    auto plugin = makeFoo(0.5F);
    ASSERT_NE(plugin, nullptr);
    EXPECT_STREQ(plugin->getPluginNamespace(), "foo_ns");
    EXPECT_STREQ(own(plugin->clone())->getPluginNamespace(), "foo_ns");
    std::vector<uint8_t> const bytes = serializeToBytes(*plugin);
    EXPECT_STREQ(own(creator->deserializePlugin("foo", bytes.data(), bytes.size()))->getPluginNamespace(), "foo_ns");
}

// --- CustomPlugin (plain IPluginV2, TensorRT 7 style) --------------------------------------------------------------

namespace
{
V2Ptr<IPluginV2> makeCustom(float lo, float hi)
{
    FieldCollection fields;
    fields.addFloats("min", {lo}).addFloats("max", {hi});
    return own(v2Creator("CustomPlugin")->createPlugin("clamp", fields.get()));
}
} // namespace

TEST(CustomPlugin, IdentityShapesAndFormats)
{
    auto plugin = makeCustom(-1.0F, 2.0F);
    ASSERT_NE(plugin, nullptr);
    EXPECT_STREQ(plugin->getPluginType(), "CustomPlugin");
    EXPECT_STREQ(plugin->getPluginVersion(), "1");
    EXPECT_STREQ(plugin->getPluginNamespace(), "");
    EXPECT_EQ(plugin->getNbOutputs(), 1);
    EXPECT_EQ(pluginFamily(*plugin), static_cast<int32_t>(PluginVersion::kV2));
    EXPECT_EQ(plugin->getTensorRTVersion(), NV_TENSORRT_VERSION);

    Dims const in = makeDims({3, 4});
    EXPECT_TRUE(sameDims(plugin->getOutputDimensions(0, &in, 1), makeDims({3, 4}))); // no batch dimension added
    EXPECT_EQ(plugin->getOutputDimensions(1, &in, 1).nbDims, -1);

    EXPECT_TRUE(plugin->supportsFormat(DataType::kFLOAT, PluginFormat::kLINEAR));
    EXPECT_FALSE(plugin->supportsFormat(DataType::kHALF, PluginFormat::kLINEAR));
    EXPECT_FALSE(plugin->supportsFormat(DataType::kINT8, PluginFormat::kLINEAR));
    EXPECT_FALSE(plugin->supportsFormat(DataType::kFLOAT, PluginFormat::kCHW4));
    EXPECT_FALSE(plugin->supportsFormat(DataType::kFLOAT, PluginFormat::kHWC8));
}

TEST(CustomPlugin, HostClampsIntoMinMax)
{
    auto plugin = makeCustom(-1.0F, 2.0F);
    ASSERT_NE(plugin, nullptr);
    auto* host = dynamic_cast<kiln::IHostPlugin*>(plugin.get());
    ASSERT_NE(host, nullptr);
    std::vector<float> x{-5.0F, -1.0F, -0.25F, 0.0F, 1.75F, 2.0F, 2.5F, 100.0F};
    std::vector<float> y(x.size());
    PluginTensorDesc const desc = makeDesc(makeDims({2, 2, 2}), DataType::kFLOAT); // batch 2 included
    ASSERT_EQ(runHost<float>(*host, {desc}, {&x}, desc, y), 0);
    EXPECT_EQ(y, (std::vector<float>{-1.0F, -1.0F, -0.25F, 0.0F, 1.75F, 2.0F, 2.0F, 2.0F}));

    PluginTensorDesc const halfDesc = makeDesc(makeDims({2, 2, 2}), DataType::kHALF);
    EXPECT_NE(runHost<float>(*host, {halfDesc}, {&x}, halfDesc, y), 0); // FP32 only
}

TEST(CustomPlugin, ConstructedFromWeightsAsInSeed001)
{
    float const lo = 0.0F;
    float const hi = 6.0F;
    Weights const weights[2] = {{DataType::kFLOAT, &lo, 1}, {DataType::kFLOAT, &hi, 1}};
    kiln_seed::CustomPlugin relu6(weights, 2);
    EXPECT_EQ(relu6.getMin(), 0.0F);
    EXPECT_EQ(relu6.getMax(), 6.0F);
    std::vector<float> x{-3.0F, 3.0F, 9.0F};
    std::vector<float> y(3);
    PluginTensorDesc const desc = makeDesc(makeDims({1, 3}), DataType::kFLOAT);
    ASSERT_EQ(runHost<float>(relu6, {desc}, {&x}, desc, y), 0);
    EXPECT_EQ(y, (std::vector<float>{0.0F, 3.0F, 6.0F}));

    // One weight: only the lower bound.
    kiln_seed::CustomPlugin relu(weights, 1);
    EXPECT_EQ(relu.getMin(), 0.0F);
    EXPECT_EQ(relu.getMax(), FLT_MAX);

    // min > max is refused by the creator.
    EXPECT_EQ(makeCustom(3.0F, 1.0F), nullptr);
}

TEST(CustomPlugin, ConfiguredVolumeSurvivesCloneAndSerialization)
{
    auto plugin = makeCustom(-0.5F, 0.5F);
    ASSERT_NE(plugin, nullptr);
    Dims const in = makeDims({3, 4, 5});
    Dims const out = in;
    plugin->configureWithFormat(&in, 1, &out, 1, DataType::kFLOAT, PluginFormat::kLINEAR, 8);
    std::vector<uint8_t> const bytes = serializeToBytes(*plugin);
    ASSERT_EQ(bytes.size(), 2 * sizeof(float) + sizeof(int64_t));
    int64_t count = 0;
    std::memcpy(&count, bytes.data() + 2 * sizeof(float), sizeof(count));
    EXPECT_EQ(count, 60); // per batch item

    auto clone = own(plugin->clone());
    ASSERT_NE(clone, nullptr);
    EXPECT_EQ(serializeToBytes(*clone), bytes);
    IPluginCreator* creator = v2Creator("CustomPlugin");
    auto restored = own(creator->deserializePlugin("clamp", bytes.data(), bytes.size()));
    ASSERT_NE(restored, nullptr);
    EXPECT_EQ(serializeToBytes(*restored), bytes);

    std::vector<float> x{-1.0F, -0.5F, 0.25F, 0.75F};
    std::vector<float> a(4);
    std::vector<float> b(4);
    PluginTensorDesc const desc = makeDesc(makeDims({4}), DataType::kFLOAT);
    ASSERT_EQ(runHost<float>(*dynamic_cast<kiln::IHostPlugin*>(plugin.get()), {desc}, {&x}, desc, a), 0);
    ASSERT_EQ(runHost<float>(*dynamic_cast<kiln::IHostPlugin*>(restored.get()), {desc}, {&x}, desc, b), 0);
    EXPECT_EQ(a, b);
    EXPECT_EQ(a, (std::vector<float>{-0.5F, -0.5F, 0.25F, 0.5F}));

    NamespaceGuard guard(*creator);
    creator->setPluginNamespace("clamp_ns");
    auto named = own(creator->deserializePlugin("clamp", bytes.data(), bytes.size()));
    ASSERT_NE(named, nullptr);
    EXPECT_STREQ(named->getPluginNamespace(), "clamp_ns");
    EXPECT_STREQ(own(named->clone())->getPluginNamespace(), "clamp_ns");
    auto created = makeCustom(0.0F, 1.0F);
    EXPECT_STREQ(created->getPluginNamespace(), "clamp_ns");
}

// --- ScaledAdd (IPluginV3) ---------------------------------------------------------------------------------------

namespace
{
std::unique_ptr<IPluginV3> makeScaledAdd(float alpha, TensorRTPhase phase = TensorRTPhase::kBUILD)
{
    FieldCollection fields;
    fields.addFloats("alpha", {alpha});
    return std::unique_ptr<IPluginV3>(v3Creator("ScaledAdd")->createPlugin("sa", fields.get(), phase));
}

template <typename T>
T* capability(IPluginV3& plugin, PluginCapabilityType type)
{
    return dynamic_cast<T*>(plugin.getCapabilityInterface(type));
}

std::vector<float> runScaledAdd(IPluginV3& plugin, std::vector<float> const& a, std::vector<float> const& b)
{
    auto* host = dynamic_cast<kiln::IHostPlugin*>(&plugin);
    EXPECT_NE(host, nullptr);
    std::vector<float> y(a.size(), -1.0F);
    PluginTensorDesc const desc = makeDesc(makeDims({static_cast<int64_t>(a.size())}), DataType::kFLOAT);
    EXPECT_EQ(runHost<float>(*host, {desc, desc}, {&a, &b}, desc, y), 0);
    return y;
}
} // namespace

TEST(ScaledAddPlugin, CapabilitiesAndIdentity)
{
    auto plugin = makeScaledAdd(0.5F);
    ASSERT_NE(plugin, nullptr);
    EXPECT_STREQ(plugin->getInterfaceInfo().kind, "PLUGIN");
    auto* core = capability<IPluginV3OneCore>(*plugin, PluginCapabilityType::kCORE);
    auto* build = capability<IPluginV3OneBuild>(*plugin, PluginCapabilityType::kBUILD);
    auto* runtime = capability<IPluginV3OneRuntime>(*plugin, PluginCapabilityType::kRUNTIME);
    ASSERT_NE(core, nullptr);
    ASSERT_NE(build, nullptr);
    ASSERT_NE(runtime, nullptr);
    EXPECT_STREQ(core->getInterfaceInfo().kind, "PLUGIN_V3ONE_CORE");
    EXPECT_STREQ(build->getInterfaceInfo().kind, "PLUGIN_V3ONE_BUILD");
    EXPECT_STREQ(runtime->getInterfaceInfo().kind, "PLUGIN_V3ONE_RUNTIME");
    EXPECT_STREQ(core->getPluginName(), "ScaledAdd");
    EXPECT_STREQ(core->getPluginVersion(), "1");
    EXPECT_STREQ(core->getPluginNamespace(), "");
    EXPECT_EQ(build->getNbOutputs(), 1);

    DataType const inTypes[2] = {DataType::kHALF, DataType::kHALF};
    DataType outType = DataType::kINT8;
    EXPECT_EQ(build->getOutputDataTypes(&outType, 1, inTypes, 2), 0);
    EXPECT_EQ(outType, DataType::kHALF);

    Dims const shape = makeDims({2, 3});
    DynamicPluginTensorDesc io[3] = {makeDynamicDesc(shape, DataType::kFLOAT), makeDynamicDesc(shape, DataType::kFLOAT),
        makeDynamicDesc(shape, DataType::kFLOAT)};
    EXPECT_TRUE(build->supportsFormatCombination(0, io, 2, 1));
    EXPECT_TRUE(build->supportsFormatCombination(1, io, 2, 1));
    EXPECT_TRUE(build->supportsFormatCombination(2, io, 2, 1));
    io[1].desc.type = DataType::kHALF;
    EXPECT_FALSE(build->supportsFormatCombination(1, io, 2, 1)); // b must match a
    io[0].desc.type = DataType::kHALF;
    EXPECT_TRUE(build->supportsFormatCombination(1, io, 2, 1));
    io[0].desc.type = DataType::kINT32;
    EXPECT_FALSE(build->supportsFormatCombination(0, io, 2, 1));
    io[0] = makeDynamicDesc(shape, DataType::kFLOAT, TensorFormat::kHWC);
    EXPECT_FALSE(build->supportsFormatCombination(0, io, 2, 1));

    DynamicPluginTensorDesc const good[3] = {makeDynamicDesc(shape, DataType::kFLOAT),
        makeDynamicDesc(shape, DataType::kFLOAT), makeDynamicDesc(shape, DataType::kFLOAT)};
    EXPECT_EQ(build->configurePlugin(good, 2, good + 2, 1), 0);
    DynamicPluginTensorDesc const mismatched[2]
        = {makeDynamicDesc(shape, DataType::kFLOAT), makeDynamicDesc(makeDims({2, 4}), DataType::kFLOAT)};
    EXPECT_NE(build->configurePlugin(mismatched, 2, good + 2, 1), 0);
}

TEST(ScaledAddPlugin, OutputShapeIsTheInputShape)
{
    auto plugin = makeScaledAdd(2.0F);
    ASSERT_NE(plugin, nullptr);
    auto* build = capability<IPluginV3OneBuild>(*plugin, PluginCapabilityType::kBUILD);
    ASSERT_NE(build, nullptr);
    kiln::ShapeExprTester tester;
    DimsExprs const inputs[2] = {tester.dims({"N", 4, "L"}), tester.dims({"N", 4, "L"})};
    DimsExprs output{};
    ASSERT_EQ(build->getOutputShapes(inputs, 2, nullptr, 0, &output, 1, tester.builder()), 0);
    std::optional<Dims> value = tester.evaluate(output, {{"N", 3}, {"L", 11}});
    ASSERT_TRUE(value.has_value()) << tester.lastError();
    EXPECT_TRUE(sameDims(*value, makeDims({3, 4, 11})));
}

TEST(ScaledAddPlugin, HostComputesScaledAdd)
{
    auto plugin = makeScaledAdd(0.5F);
    ASSERT_NE(plugin, nullptr);
    std::vector<float> const a{1.0F, 2.0F, 3.0F, 4.0F};
    std::vector<float> const b{10.0F, -4.0F, 0.5F, 8.0F};
    EXPECT_EQ(runScaledAdd(*plugin, a, b), (std::vector<float>{6.0F, 0.0F, 3.25F, 8.0F}));

    // FP16, against values computed from the FP16-rounded inputs.
    auto* host = dynamic_cast<kiln::IHostPlugin*>(plugin.get());
    std::vector<uint16_t> const ha = toHalf({0.1F, -3.3F, 1000.7F, 0.0007F, -65000.0F});
    std::vector<uint16_t> const hb = toHalf({0.2F, 7.9F, -0.06F, 0.0003F, -20000.0F});
    std::vector<uint16_t> hy(ha.size());
    PluginTensorDesc const desc = makeDesc(makeDims({5}), DataType::kHALF);
    ASSERT_EQ(runHost<uint16_t>(*host, {desc, desc}, {&ha, &hb}, desc, hy), 0);
    for (size_t i = 0; i < hy.size(); ++i)
    {
        float const ra = kiln::halfBitsToFloat(ha[i]);
        float const rb = kiln::halfBitsToFloat(hb[i]);
        EXPECT_EQ(hy[i], kiln::floatToHalfBits(ra + 0.5F * rb)) << i;
    }
    // -65000 + 0.5 * -20000 overflows FP16: -inf.
    EXPECT_EQ(hy[4], 0xFC00);

    // Shapes must agree.
    PluginTensorDesc const descs[2]
        = {makeDesc(makeDims({4}), DataType::kFLOAT), makeDesc(makeDims({2, 2}), DataType::kFLOAT)};
    std::vector<float> y(4);
    void const* ins[2] = {a.data(), b.data()};
    void* outs[1] = {y.data()};
    EXPECT_NE(host->enqueueHost(descs, descs, ins, outs, nullptr), 0);
}

TEST(ScaledAddPlugin, FieldsToSerializeRecreateThePluginAtRuntime)
{
    auto plugin = makeScaledAdd(-1.25F);
    ASSERT_NE(plugin, nullptr);
    auto* runtime = capability<IPluginV3OneRuntime>(*plugin, PluginCapabilityType::kRUNTIME);
    ASSERT_NE(runtime, nullptr);
    PluginFieldCollection const* fc = runtime->getFieldsToSerialize();
    ASSERT_NE(fc, nullptr);
    ASSERT_EQ(fc->nbFields, 1);
    EXPECT_STREQ(fc->fields[0].name, "alpha");
    EXPECT_EQ(fc->fields[0].type, PluginFieldType::kFLOAT32);
    EXPECT_EQ(fc->fields[0].length, 1);
    EXPECT_EQ(*static_cast<float const*>(fc->fields[0].data), -1.25F);

    std::unique_ptr<IPluginV3> restored(v3Creator("ScaledAdd")->createPlugin("sa", fc, TensorRTPhase::kRUNTIME));
    ASSERT_NE(restored, nullptr);
    auto* restoredRuntime = capability<IPluginV3OneRuntime>(*restored, PluginCapabilityType::kRUNTIME);
    ASSERT_NE(restoredRuntime, nullptr);
    PluginFieldCollection const* fc2 = restoredRuntime->getFieldsToSerialize();
    ASSERT_EQ(fc2->nbFields, 1);
    EXPECT_EQ(*static_cast<float const*>(fc2->fields[0].data), -1.25F);

    std::vector<float> const a{1.0F, -2.0F, 0.5F};
    std::vector<float> const b{4.0F, 4.0F, -2.0F};
    std::vector<float> const expected{-4.0F, -7.0F, 3.0F};
    EXPECT_EQ(runScaledAdd(*plugin, a, b), expected);
    EXPECT_EQ(runScaledAdd(*restored, a, b), expected);

    // clone and attachToContext give independent, equal plugins.
    std::unique_ptr<IPluginV3> clone(plugin->clone());
    ASSERT_NE(clone, nullptr);
    EXPECT_NE(clone.get(), plugin.get());
    EXPECT_EQ(runScaledAdd(*clone, a, b), expected);
    std::unique_ptr<IPluginV3> attached(runtime->attachToContext(nullptr));
    ASSERT_NE(attached, nullptr);
    EXPECT_NE(attached.get(), plugin.get());
    EXPECT_EQ(runScaledAdd(*attached, a, b), expected);
    plugin.reset(); // the copies do not depend on the original
    EXPECT_EQ(runScaledAdd(*clone, a, b), expected);
    auto* cloneRuntime = capability<IPluginV3OneRuntime>(*clone, PluginCapabilityType::kRUNTIME);
    EXPECT_EQ(*static_cast<float const*>(cloneRuntime->getFieldsToSerialize()->fields[0].data), -1.25F);
}

TEST(ScaledAddPlugin, CreatorDefaultsNamespaceAndRejections)
{
    IPluginCreatorV3One* creator = v3Creator("ScaledAdd");
    ASSERT_NE(creator, nullptr);
    FieldCollection none;
    std::unique_ptr<IPluginV3> plugin(creator->createPlugin("sa", none.get(), TensorRTPhase::kBUILD));
    ASSERT_NE(plugin, nullptr);
    EXPECT_EQ(runScaledAdd(*plugin, {1.0F, 2.0F}, {3.0F, 4.0F}), (std::vector<float>{4.0F, 6.0F})); // alpha 1

    double const wrong = 2.0;
    FieldCollection bad;
    bad.addRaw("alpha", &wrong, PluginFieldType::kFLOAT64, 1);
    EXPECT_EQ(creator->createPlugin("sa", bad.get(), TensorRTPhase::kBUILD), nullptr);

    auto* concrete = dynamic_cast<kiln_seed::ScaledAddPluginCreator*>(creator);
    ASSERT_NE(concrete, nullptr);
    concrete->setPluginNamespace("v3_ns");
    std::unique_ptr<IPluginV3> named(makeScaledAdd(1.0F));
    concrete->setPluginNamespace("");
    ASSERT_NE(named, nullptr);
    auto* core = capability<IPluginV3OneCore>(*named, PluginCapabilityType::kCORE);
    EXPECT_STREQ(core->getPluginNamespace(), "v3_ns");
    std::unique_ptr<IPluginV3> clone(named->clone());
    EXPECT_STREQ(capability<IPluginV3OneCore>(*clone, PluginCapabilityType::kCORE)->getPluginNamespace(), "v3_ns");
}
