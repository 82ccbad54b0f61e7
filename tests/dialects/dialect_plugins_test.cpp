// Plugins written in the TensorRT 8/10 dialect (tests/dialects/*Plugin.cpp, compiled with
// -Wall -Wextra -Werror), used exactly as an application would: through the registry.
#include "PluginTestUtils.h"

#include <kiln/ShapeExprTesting.h>

#include <algorithm>
#include <cmath>
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

IPluginCreator* creatorFor(char const* name)
{
    IPluginCreator* creator = getPluginRegistry()->getPluginCreator(name, "1");
    EXPECT_NE(creator, nullptr) << name;
    return creator;
}

V2Ptr<IPluginV2DynamicExt> makeSwish(float beta)
{
    IPluginCreator* creator = creatorFor("DialectSwish");
    FieldCollection fields;
    fields.addFloats("beta", {beta});
    return own(dynamic_cast<IPluginV2DynamicExt*>(creator->createPlugin("swish0", fields.get())));
}

V2Ptr<IPluginV2Ext> makeChannelScale(std::vector<float> scales)
{
    IPluginCreator* creator = creatorFor("DialectChannelScale");
    FieldCollection fields;
    fields.addFloats("scales", std::move(scales));
    return own(dynamic_cast<IPluginV2Ext*>(creator->createPlugin("scale0", fields.get())));
}

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

} // namespace

TEST(DialectPlugins, CreatorsAreFoundByBothLookups)
{
    for (char const* name : {"DialectSwish", "DialectChannelScale"})
    {
        IPluginCreator* creator = creatorFor(name);
        ASSERT_NE(creator, nullptr);
        EXPECT_STREQ(creator->getPluginName(), name);
        EXPECT_STREQ(creator->getPluginVersion(), "1");
        EXPECT_STREQ(creator->getPluginNamespace(), "");
        EXPECT_EQ(getPluginRegistry()->getCreator(name, "1"), static_cast<IPluginCreatorInterface*>(creator));
    }
    int32_t count = 0;
    IPluginCreatorInterface* const* all = getPluginRegistry()->getAllCreators(&count);
    ASSERT_NE(all, nullptr);
    int32_t found = 0;
    for (int32_t i = 0; i < count; ++i)
    {
        auto* v2 = dynamic_cast<IPluginCreator*>(all[i]);
        if (v2 != nullptr
            && (std::string(v2->getPluginName()) == "DialectSwish"
                || std::string(v2->getPluginName()) == "DialectChannelScale"))
        {
            ++found;
        }
    }
    EXPECT_EQ(found, 2);

    PluginFieldCollection const* swishFields = creatorFor("DialectSwish")->getFieldNames();
    ASSERT_EQ(swishFields->nbFields, 1);
    EXPECT_STREQ(swishFields->fields[0].name, "beta");
    EXPECT_EQ(swishFields->fields[0].type, PluginFieldType::kFLOAT32);
    PluginFieldCollection const* scaleFields = creatorFor("DialectChannelScale")->getFieldNames();
    ASSERT_EQ(scaleFields->nbFields, 1);
    EXPECT_STREQ(scaleFields->fields[0].name, "scales");
    EXPECT_EQ(scaleFields->fields[0].type, PluginFieldType::kFLOAT32);
}

// --- Swish (IPluginV2DynamicExt) ---------------------------------------------------------------------------------

TEST(DialectSwish, IdentityShapesAndFormats)
{
    auto plugin = makeSwish(1.5F);
    ASSERT_NE(plugin, nullptr);
    EXPECT_STREQ(plugin->getPluginType(), "DialectSwish");
    EXPECT_STREQ(plugin->getPluginVersion(), "1");
    EXPECT_STREQ(plugin->getPluginNamespace(), "");
    EXPECT_EQ(plugin->getNbOutputs(), 1);
    EXPECT_EQ(pluginFamily(*plugin), static_cast<int32_t>(PluginVersion::kV2_DYNAMICEXT));

    kiln::ShapeExprTester tester;
    DimsExprs input = tester.dims({"B", "S", 64});
    DimsExprs output = plugin->getOutputDimensions(0, &input, 1, tester.builder());
    std::optional<Dims> value = tester.evaluate(output, {{"B", 4}, {"S", 9}});
    ASSERT_TRUE(value.has_value()) << tester.lastError();
    EXPECT_TRUE(sameDims(*value, makeDims({4, 9, 64})));

    DataType const in = DataType::kHALF;
    EXPECT_EQ(plugin->getOutputDataType(0, &in, 1), DataType::kHALF);

    PluginTensorDesc io[2] = {makeDesc(makeDims({4, 9}), DataType::kHALF), makeDesc(makeDims({4, 9}), DataType::kHALF)};
    EXPECT_TRUE(plugin->supportsFormatCombination(0, io, 1, 1));
    EXPECT_TRUE(plugin->supportsFormatCombination(1, io, 1, 1));
    io[1].type = DataType::kFLOAT;
    EXPECT_FALSE(plugin->supportsFormatCombination(1, io, 1, 1));
    io[0].type = DataType::kINT8;
    EXPECT_FALSE(plugin->supportsFormatCombination(0, io, 1, 1));
    io[0] = makeDesc(makeDims({4, 9}), DataType::kFLOAT, TensorFormat::kCHW2);
    EXPECT_FALSE(plugin->supportsFormatCombination(0, io, 1, 1));
}

TEST(DialectSwish, HostComputesSwish)
{
    auto plugin = makeSwish(1.5F);
    ASSERT_NE(plugin, nullptr);
    auto* host = dynamic_cast<kiln::IHostPlugin*>(plugin.get());
    ASSERT_NE(host, nullptr);

    std::vector<float> x{-3.0F, -1.0F, 0.0F, 0.5F, 2.0F, 4.0F};
    std::vector<float> y(x.size());
    PluginTensorDesc const desc = makeDesc(makeDims({2, 3}), DataType::kFLOAT);
    ASSERT_EQ(runHost<float>(*host, {desc}, {&x}, desc, y), 0);
    // x / (1 + exp(-1.5 x)), worked out to double precision.
    std::vector<double> const expected{
        -0.032960827891779544, -0.18242552380635635, 0.0, 0.3395893495876965, 1.9051482536448667, 3.9901095073734614};
    for (size_t i = 0; i < y.size(); ++i)
    {
        EXPECT_NEAR(y[i], expected[i], 4e-7 * std::max(1.0, std::fabs(expected[i]))) << i;
    }

    // FP16: computed from the FP16-rounded inputs, allowing one FP16 ulp for the float evaluation order.
    std::vector<float> values;
    for (int i = 0; i < 40; ++i)
    {
        values.push_back(-6.0F + 0.31F * static_cast<float>(i));
    }
    std::vector<uint16_t> const hx = toHalf(values);
    std::vector<uint16_t> hy(hx.size());
    PluginTensorDesc const hdesc = makeDesc(makeDims({4, 10}), DataType::kHALF);
    ASSERT_EQ(runHost<uint16_t>(*host, {hdesc}, {&hx}, hdesc, hy), 0);
    for (size_t i = 0; i < hy.size(); ++i)
    {
        double const r = kiln::halfBitsToFloat(hx[i]);
        uint16_t const want = kiln::floatToHalfBits(static_cast<float>(r / (1.0 + std::exp(-1.5 * r))));
        EXPECT_LE(halfUlpDistance(hy[i], want), 1)
            << i << ": got " << kiln::halfBitsToFloat(hy[i]) << " want " << kiln::halfBitsToFloat(want);
    }
}

TEST(DialectSwish, CloneSerializationAndNamespace)
{
    IPluginCreator* creator = creatorFor("DialectSwish");
    ASSERT_NE(creator, nullptr);
    NamespaceGuard guard(*creator);
    creator->setPluginNamespace("dialect_ns");

    auto plugin = makeSwish(0.75F);
    ASSERT_NE(plugin, nullptr);
    EXPECT_STREQ(plugin->getPluginNamespace(), "dialect_ns");
    std::vector<uint8_t> const bytes = serializeToBytes(*plugin);
    ASSERT_EQ(bytes.size(), sizeof(float));
    float beta = 0.0F;
    std::memcpy(&beta, bytes.data(), sizeof(beta));
    EXPECT_EQ(beta, 0.75F);

    auto clone = own(plugin->clone());
    ASSERT_NE(clone, nullptr);
    EXPECT_EQ(serializeToBytes(*clone), bytes);
    EXPECT_STREQ(clone->getPluginNamespace(), "dialect_ns");

    auto restored = own(creator->deserializePlugin("swish0", bytes.data(), bytes.size()));
    ASSERT_NE(restored, nullptr);
    EXPECT_EQ(serializeToBytes(*restored), bytes);
    EXPECT_STREQ(restored->getPluginNamespace(), "dialect_ns");
    EXPECT_EQ(pluginFamily(*restored), static_cast<int32_t>(PluginVersion::kV2_DYNAMICEXT));

    std::vector<float> x{-2.0F, -0.1F, 0.3F, 5.0F};
    std::vector<float> a(x.size());
    std::vector<float> b(x.size());
    PluginTensorDesc const desc = makeDesc(makeDims({4}), DataType::kFLOAT);
    ASSERT_EQ(runHost<float>(*dynamic_cast<kiln::IHostPlugin*>(plugin.get()), {desc}, {&x}, desc, a), 0);
    ASSERT_EQ(runHost<float>(*dynamic_cast<kiln::IHostPlugin*>(restored.get()), {desc}, {&x}, desc, b), 0);
    EXPECT_EQ(a, b);

    EXPECT_EQ(creator->deserializePlugin("swish0", bytes.data(), 2), nullptr);
}

// --- ChannelScale (IPluginV2Ext) ---------------------------------------------------------------------------------

TEST(DialectChannelScale, IdentityShapesAndFormats)
{
    auto plugin = makeChannelScale({2.0F, -1.0F, 0.5F});
    ASSERT_NE(plugin, nullptr);
    EXPECT_STREQ(plugin->getPluginType(), "DialectChannelScale");
    EXPECT_STREQ(plugin->getPluginVersion(), "1");
    EXPECT_EQ(plugin->getNbOutputs(), 1);
    EXPECT_EQ(pluginFamily(*plugin), static_cast<int32_t>(PluginVersion::kV2_EXT));

    // Implicit batch: [C, H, W] without the batch dimension.
    Dims const chw = makeDims({3, 8, 8});
    EXPECT_TRUE(sameDims(plugin->getOutputDimensions(0, &chw, 1), chw));
    Dims const wrongChannels = makeDims({4, 8, 8});
    EXPECT_EQ(plugin->getOutputDimensions(0, &wrongChannels, 1).nbDims, -1);

    EXPECT_TRUE(plugin->supportsFormat(DataType::kFLOAT, PluginFormat::kLINEAR));
    EXPECT_TRUE(plugin->supportsFormat(DataType::kHALF, PluginFormat::kLINEAR));
    EXPECT_FALSE(plugin->supportsFormat(DataType::kINT8, PluginFormat::kLINEAR));
    EXPECT_FALSE(plugin->supportsFormat(DataType::kFLOAT, PluginFormat::kCHW32));
    DataType const in = DataType::kHALF;
    EXPECT_EQ(plugin->getOutputDataType(0, &in, 1), DataType::kHALF);
    EXPECT_FALSE(plugin->canBroadcastInputAcrossBatch(0));
}

TEST(DialectChannelScale, HostScalesEachChannel)
{
    auto plugin = makeChannelScale({2.0F, -1.0F, 0.5F});
    ASSERT_NE(plugin, nullptr);
    auto* host = dynamic_cast<kiln::IHostPlugin*>(plugin.get());
    ASSERT_NE(host, nullptr);
    // Batch 2, C 3, 2 values per channel.
    std::vector<float> x{1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6};
    std::vector<float> y(x.size());
    PluginTensorDesc const desc = makeDesc(makeDims({2, 3, 2}), DataType::kFLOAT);
    ASSERT_EQ(runHost<float>(*host, {desc}, {&x}, desc, y), 0);
    EXPECT_EQ(y, (std::vector<float>{2, 4, -3, -4, 2.5F, 3, -2, -4, 3, 4, -2.5F, -3}));

    std::vector<uint16_t> const hx = toHalf({0.1F, 0.2F, 0.3F, 0.4F, 0.5F, 0.6F});
    std::vector<uint16_t> hy(hx.size());
    PluginTensorDesc const hdesc = makeDesc(makeDims({1, 3, 2}), DataType::kHALF);
    ASSERT_EQ(runHost<uint16_t>(*host, {hdesc}, {&hx}, hdesc, hy), 0);
    float const scales[3] = {2.0F, -1.0F, 0.5F};
    for (size_t i = 0; i < hy.size(); ++i)
    {
        EXPECT_EQ(hy[i], kiln::floatToHalfBits(kiln::halfBitsToFloat(hx[i]) * scales[i / 2])) << i;
    }

    PluginTensorDesc const wrong = makeDesc(makeDims({2, 4, 2}), DataType::kFLOAT);
    EXPECT_NE(runHost<float>(*host, {wrong}, {&x}, wrong, y), 0);
}

TEST(DialectChannelScale, ConfiguredStateSurvivesCloneAndSerialization)
{
    IPluginCreator* creator = creatorFor("DialectChannelScale");
    ASSERT_NE(creator, nullptr);
    NamespaceGuard guard(*creator);
    creator->setPluginNamespace("scale_ns");

    auto plugin = makeChannelScale({1.5F, 3.0F});
    ASSERT_NE(plugin, nullptr);
    EXPECT_STREQ(plugin->getPluginNamespace(), "scale_ns");
    Dims const in = makeDims({2, 5});
    DataType const types[1] = {DataType::kHALF};
    bool const broadcast[1] = {false};
    plugin->configurePlugin(&in, 1, &in, 1, types, types, broadcast, broadcast, PluginFormat::kLINEAR, 16);
    std::vector<uint8_t> const bytes = serializeToBytes(*plugin);
    // count, 2 scales, type, nbDims, Dims::MAX_DIMS int64 extents.
    ASSERT_EQ(bytes.size(), 4 + 2 * 4 + 4 + 4 + 8 * 8U);
    int32_t type = -1;
    std::memcpy(&type, bytes.data() + 12, sizeof(type));
    EXPECT_EQ(type, static_cast<int32_t>(DataType::kHALF));

    auto clone = own(plugin->clone());
    ASSERT_NE(clone, nullptr);
    EXPECT_EQ(serializeToBytes(*clone), bytes);
    EXPECT_STREQ(clone->getPluginNamespace(), "scale_ns");

    auto restored = own(creator->deserializePlugin("scale0", bytes.data(), bytes.size()));
    ASSERT_NE(restored, nullptr);
    EXPECT_EQ(serializeToBytes(*restored), bytes);
    EXPECT_STREQ(restored->getPluginNamespace(), "scale_ns");

    std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    std::vector<float> a(x.size());
    std::vector<float> b(x.size());
    PluginTensorDesc const desc = makeDesc(makeDims({1, 2, 5}), DataType::kFLOAT);
    ASSERT_EQ(runHost<float>(*dynamic_cast<kiln::IHostPlugin*>(plugin.get()), {desc}, {&x}, desc, a), 0);
    ASSERT_EQ(runHost<float>(*dynamic_cast<kiln::IHostPlugin*>(restored.get()), {desc}, {&x}, desc, b), 0);
    EXPECT_EQ(a, b);
    EXPECT_EQ(a, (std::vector<float>{1.5F, 3, 4.5F, 6, 7.5F, 18, 21, 24, 27, 30}));

    EXPECT_EQ(creator->deserializePlugin("scale0", bytes.data(), bytes.size() - 8), nullptr);
}
