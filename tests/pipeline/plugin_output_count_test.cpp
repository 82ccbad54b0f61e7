// A plugin that declares more outputs than any layer can have (getNbOutputs returning 2^31 - 1): the network refuses
// it with an error naming the plugin and the count. Before Kiln bounded the count, addPluginV3 sized the layer's
// outputs by it and ended the process with std::bad_alloc inside a noexcept method.
#include "test_logger.h"

#include <NvInfer.h>

#include <gtest/gtest.h>

#include <limits>
#include <memory>

namespace
{

using namespace nvinfer1;

class CountingPlugin final : public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuild
{
public:
    explicit CountingPlugin(int32_t outputs)
        : mOutputs(outputs)
    {
    }
    IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override
    {
        switch (type)
        {
        case PluginCapabilityType::kCORE: return static_cast<IPluginV3OneCore*>(this);
        case PluginCapabilityType::kBUILD: return static_cast<IPluginV3OneBuild*>(this);
        case PluginCapabilityType::kRUNTIME: return nullptr;
        }
        return nullptr;
    }
    IPluginV3* clone() noexcept override
    {
        return new CountingPlugin(mOutputs);
    }
    char const* getPluginName() const noexcept override
    {
        return "KilnManyOutputs";
    }
    char const* getPluginVersion() const noexcept override
    {
        return "1";
    }
    char const* getPluginNamespace() const noexcept override
    {
        return "";
    }
    int32_t configurePlugin(
        DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t) noexcept override
    {
        return 0;
    }
    int32_t getOutputDataTypes(DataType* types, int32_t nbOutputs, DataType const*, int32_t) const noexcept override
    {
        for (int32_t i = 0; i < nbOutputs; ++i)
        {
            types[i] = DataType::kFLOAT;
        }
        return 0;
    }
    int32_t getOutputShapes(DimsExprs const* inputs, int32_t, DimsExprs const*, int32_t, DimsExprs* outputs,
        int32_t nbOutputs, IExprBuilder&) noexcept override
    {
        for (int32_t i = 0; i < nbOutputs; ++i)
        {
            outputs[i] = inputs[0];
        }
        return 0;
    }
    bool supportsFormatCombination(int32_t, DynamicPluginTensorDesc const*, int32_t, int32_t) noexcept override
    {
        return true;
    }
    int32_t getNbOutputs() const noexcept override
    {
        return mOutputs;
    }
    size_t getWorkspaceSize(
        DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t) const noexcept override
    {
        return 0;
    }

private:
    int32_t mOutputs;
};

TEST(PluginOutputCount, TooManyOutputsAreRefused)
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{1, {4}});
    ITensor* inputs[] = {x};
    CountingPlugin huge(std::numeric_limits<int32_t>::max());
    EXPECT_EQ(network->addPluginV3(inputs, 1, nullptr, 0, huge), nullptr);
    std::string const errors = logger.errors();
    EXPECT_NE(errors.find("KilnManyOutputs"), std::string::npos) << errors;
    EXPECT_NE(errors.find("getNbOutputs returned 2147483647"), std::string::npos) << errors;

    // A count within the limit still makes a layer with that many outputs.
    CountingPlugin three(3);
    IPluginV3Layer* layer = network->addPluginV3(inputs, 1, nullptr, 0, three);
    ASSERT_NE(layer, nullptr) << logger.errors();
    EXPECT_EQ(layer->getNbOutputs(), 3);
}

} // namespace
