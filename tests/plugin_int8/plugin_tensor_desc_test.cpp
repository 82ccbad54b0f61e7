// What the builder tells a plugin about its INT8 and FP8 tensors (PluginTensorDesc::scale and ::format), checked on
// what configurePlugin receives, case by case: FP8 quantize/dequantize scales, per-channel scales (none), dynamic
// ranges, tensors of other types, and the one format IPluginV2Ext plugins are configured with.
#include "test_logger.h"

#include <NvInfer.h>
#include <kiln/Backend.h>
#include <kiln/HostPlugin.h>

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

namespace
{

using namespace nvinfer1;

//! What the last configurePlugin of a DescRecorder or FormatRecorder received.
struct Configured
{
    std::vector<float> scales; //!< inputs, then outputs
    std::vector<TensorFormat> formats;
};
Configured gConfigured;

//! An IPluginV2DynamicExt copying its one input (of `mType`, linear) to its output, recording what it is configured
//! with.
class DescRecorder final : public IPluginV2DynamicExt, public kiln::IHostPlugin
{
public:
    explicit DescRecorder(DataType type)
        : mType(type)
    {
    }
    IPluginV2DynamicExt* clone() const noexcept override
    {
        return new DescRecorder(mType);
    }
    int32_t getNbOutputs() const noexcept override
    {
        return 1;
    }
    DataType getOutputDataType(int32_t, DataType const*, int32_t) const noexcept override
    {
        return mType;
    }
    DimsExprs getOutputDimensions(int32_t, DimsExprs const* inputs, int32_t, IExprBuilder&) noexcept override
    {
        return inputs[0];
    }
    bool supportsFormatCombination(int32_t pos, PluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        return inOut[pos].type == mType && inOut[pos].format == TensorFormat::kLINEAR;
    }
    void configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override
    {
        gConfigured = {};
        for (int32_t i = 0; i < nbInputs + nbOutputs; ++i)
        {
            PluginTensorDesc const& desc = i < nbInputs ? in[i].desc : out[i - nbInputs].desc;
            gConfigured.scales.push_back(desc.scale);
            gConfigured.formats.push_back(desc.format);
        }
    }
    size_t getWorkspaceSize(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) const noexcept override
    {
        return 0;
    }
    int32_t enqueue(PluginTensorDesc const*, PluginTensorDesc const*, void const* const*, void* const*, void*,
        cudaStream_t) noexcept override
    {
        return 1; // built only
    }
    int32_t enqueueHost(
        PluginTensorDesc const*, PluginTensorDesc const*, void const* const*, void* const*, void*) override
    {
        return 1; // built only
    }
    int32_t initialize() noexcept override
    {
        return 0;
    }
    void terminate() noexcept override { }
    char const* getPluginType() const noexcept override
    {
        return "DescRecorder";
    }
    char const* getPluginVersion() const noexcept override
    {
        return "1";
    }
    size_t getSerializationSize() const noexcept override
    {
        return 0;
    }
    void serialize(void*) const noexcept override { }
    void destroy() noexcept override
    {
        delete this;
    }
    void setPluginNamespace(char const*) noexcept override { }
    char const* getPluginNamespace() const noexcept override
    {
        return "";
    }

private:
    DataType mType;
};

//! An IPluginV2Ext taking INT8 only in kCHW32, recording the format configurePlugin gives.
class FormatRecorder final : public IPluginV2Ext, public kiln::IHostPlugin
{
public:
    IPluginV2Ext* clone() const noexcept override
    {
        return new FormatRecorder;
    }
    int32_t getNbOutputs() const noexcept override
    {
        return 1;
    }
    DataType getOutputDataType(int32_t, DataType const*, int32_t) const noexcept override
    {
        return DataType::kINT8;
    }
    Dims getOutputDimensions(int32_t, Dims const* inputs, int32_t) noexcept override
    {
        return inputs[0];
    }
    bool supportsFormat(DataType type, PluginFormat format) const noexcept override
    {
        return type == DataType::kINT8 && format == TensorFormat::kCHW32;
    }
    void configurePlugin(Dims const*, int32_t, Dims const*, int32_t, DataType const*, DataType const*, bool const*,
        bool const*, PluginFormat floatFormat, int32_t) noexcept override
    {
        gConfigured = {{}, {floatFormat}};
    }
    bool isOutputBroadcastAcrossBatch(int32_t, bool const*, int32_t) const noexcept override
    {
        return false;
    }
    bool canBroadcastInputAcrossBatch(int32_t) const noexcept override
    {
        return false;
    }
    size_t getWorkspaceSize(int32_t) const noexcept override
    {
        return 0;
    }
    int32_t enqueue(int32_t, void const* const*, void* const*, void*, cudaStream_t) noexcept override
    {
        return 1; // built only
    }
    int32_t enqueueHost(
        PluginTensorDesc const*, PluginTensorDesc const*, void const* const*, void* const*, void*) override
    {
        return 1; // built only
    }
    int32_t initialize() noexcept override
    {
        return 0;
    }
    void terminate() noexcept override { }
    char const* getPluginType() const noexcept override
    {
        return "FormatRecorder";
    }
    char const* getPluginVersion() const noexcept override
    {
        return "1";
    }
    size_t getSerializationSize() const noexcept override
    {
        return 0;
    }
    void serialize(void*) const noexcept override { }
    void destroy() noexcept override
    {
        delete this;
    }
    void setPluginNamespace(char const*) noexcept override { }
    char const* getPluginNamespace() const noexcept override
    {
        return "";
    }
};

class PluginTensorDescs : public ::testing::Test
{
protected:
    PluginTensorDescs()
        : mBuilder(createInferBuilder(mLogger))
        , mNetwork(mBuilder->createNetworkV2(0))
    {
    }

    ITensor* constant(std::vector<float> const& values)
    {
        mValues.push_back(values);
        Dims dims{values.size() == 1 ? 0 : 1, {static_cast<int64_t>(values.size())}};
        Weights const weights{DataType::kFLOAT, mValues.back().data(), static_cast<int64_t>(values.size())};
        return mNetwork->addConstant(dims, weights)->getOutput(0);
    }
    //! Adds `plugin` on `input`, marks its output and builds for the CPU; whether the build succeeded.
    bool build(ITensor& input, IPluginV2& plugin, ITensor** pluginOutput = nullptr)
    {
        ITensor* inputs[] = {&input};
        ILayer* layer = mNetwork->addPluginV2(inputs, 1, plugin);
        plugin.destroy();
        ITensor* output = layer->getOutput(0);
        if (pluginOutput != nullptr)
        {
            *pluginOutput = output;
            return true; // the caller adds what reads it, then calls finish()
        }
        mNetwork->markOutput(*output);
        return finish();
    }
    bool finish()
    {
        std::unique_ptr<IBuilderConfig> config(mBuilder->createBuilderConfig());
        kiln::setBackend(*config, kiln::Backend::kCPU);
        std::unique_ptr<IHostMemory> plan(mBuilder->buildSerializedNetwork(*mNetwork, *config));
        return plan != nullptr;
    }

    kiln::test::RecordingLogger mLogger;
    std::unique_ptr<IBuilder> mBuilder;
    std::unique_ptr<INetworkDefinition> mNetwork;
    std::vector<std::vector<float>> mValues;
};

TEST_F(PluginTensorDescs, Fp8TensorsHaveTheirQuantizeAndDequantizeScales)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{3, {2, 3, 4}});
    ITensor* q = mNetwork->addQuantize(*x, *constant({0.25F}), DataType::kFP8)->getOutput(0);
    ITensor* y = nullptr;
    ASSERT_TRUE(build(*q, *new DescRecorder(DataType::kFP8), &y));
    mNetwork->markOutput(*mNetwork->addDequantize(*y, *constant({1.5F}), DataType::kFLOAT)->getOutput(0));
    ASSERT_TRUE(finish()) << mLogger.errors();
    EXPECT_EQ(gConfigured.scales, (std::vector<float>{0.25F, 1.5F}));
}

TEST_F(PluginTensorDescs, PerChannelScalesAndTensorsWithoutQuantizationHaveNone)
{
    // A per-channel quantize gives the plugin no scale (-1); the output, a network output, has none either.
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{3, {2, 3, 4}});
    IQuantizeLayer* quantize = mNetwork->addQuantize(*x, *constant({0.5F, 0.25F, 2.0F}), DataType::kINT8);
    quantize->setAxis(1);
    ASSERT_TRUE(build(*quantize->getOutput(0), *new DescRecorder(DataType::kINT8))) << mLogger.errors();
    EXPECT_EQ(gConfigured.scales, (std::vector<float>{-1.0F, -1.0F}));
}

TEST_F(PluginTensorDescs, DynamicRangesGiveInt8TensorsRangeOver127)
{
    ITensor* x = mNetwork->addInput("x", DataType::kINT8, Dims{3, {2, 3, 4}});
    x->setDynamicRange(-2.0F, 6.35F); // the larger magnitude counts
    ITensor* y = nullptr;
    ASSERT_TRUE(build(*x, *new DescRecorder(DataType::kINT8), &y));
    y->setDynamicRange(-1.27F, 1.0F);
    mNetwork->markOutput(*y);
    ASSERT_TRUE(finish()) << mLogger.errors();
    ASSERT_EQ(gConfigured.scales.size(), 2U);
    EXPECT_FLOAT_EQ(gConfigured.scales[0], 0.05F);
    EXPECT_FLOAT_EQ(gConfigured.scales[1], 0.01F);
}

TEST_F(PluginTensorDescs, FloatTensorsHaveNoScaleWhateverTheirRange)
{
    ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{3, {2, 3, 4}});
    x->setDynamicRange(-1.0F, 1.0F);
    ASSERT_TRUE(build(*x, *new DescRecorder(DataType::kFLOAT))) << mLogger.errors();
    EXPECT_EQ(gConfigured.scales, (std::vector<float>{-1.0F, -1.0F}));
    EXPECT_EQ(gConfigured.formats, (std::vector<TensorFormat>{TensorFormat::kLINEAR, TensorFormat::kLINEAR}));
}

TEST_F(PluginTensorDescs, IPluginV2ExtIsConfiguredWithTheFormatItAccepts)
{
    // [N, C, H, W]: the plugin sees [C, H, W], three axes, so kCHW32 is offered after kLINEAR.
    ITensor* x = mNetwork->addInput("x", DataType::kINT8, Dims{4, {2, 5, 2, 3}});
    x->setDynamicRange(-1.0F, 1.0F);
    ASSERT_TRUE(build(*x, *new FormatRecorder)) << mLogger.errors();
    EXPECT_EQ(gConfigured.formats, (std::vector<TensorFormat>{TensorFormat::kCHW32}));
}

TEST_F(PluginTensorDescs, VectorMajorFormatsNeedThreeAxesAsThePluginSeesThem)
{
    // [N, C, W]: an IPluginV2Ext sees two axes, so only kLINEAR is offered, which it refuses.
    ITensor* x = mNetwork->addInput("x", DataType::kINT8, Dims{3, {2, 5, 3}});
    EXPECT_FALSE(build(*x, *new FormatRecorder));
    EXPECT_NE(mLogger.errors().find("rejected INT8/LINEAR after 1 question(s)"), std::string::npos) << mLogger.errors();
}

} // namespace
