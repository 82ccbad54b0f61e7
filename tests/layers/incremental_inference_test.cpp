// Network construction infers only what a change touches: an appended layer alone, a changed layer and what depends
// on it. These tests count a plugin's shape calls (the work per add must not grow with the network) and check that
// shapes stay right after every kind of change made once layers were added incrementally.
#include "layer_harness.h"

#include <memory>

namespace
{

using namespace nvinfer1;
using kiln::test::LayerHarness;

//! An identity IPluginV2DynamicExt that counts the calls of getOutputDimensions (one count shared by its clones).
class CountingPlugin final : public IPluginV2DynamicExt
{
public:
    explicit CountingPlugin(std::shared_ptr<int64_t> calls)
        : mCalls(std::move(calls))
    {
    }
    IPluginV2DynamicExt* clone() const noexcept override
    {
        return new CountingPlugin(mCalls);
    }
    DimsExprs getOutputDimensions(int32_t, DimsExprs const* inputs, int32_t, IExprBuilder&) noexcept override
    {
        ++*mCalls;
        return inputs[0];
    }
    bool supportsFormatCombination(int32_t, PluginTensorDesc const*, int32_t, int32_t) noexcept override
    {
        return true;
    }
    void configurePlugin(
        DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t) noexcept override
    {
    }
    size_t getWorkspaceSize(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) const noexcept override
    {
        return 0;
    }
    int32_t enqueue(PluginTensorDesc const*, PluginTensorDesc const*, void const* const*, void* const*, void*,
        cudaStream_t) noexcept override
    {
        return 0;
    }
    DataType getOutputDataType(int32_t, DataType const* inputTypes, int32_t) const noexcept override
    {
        return inputTypes[0];
    }
    AsciiChar const* getPluginType() const noexcept override
    {
        return "KilnCountingPlugin";
    }
    AsciiChar const* getPluginVersion() const noexcept override
    {
        return "1";
    }
    int32_t getNbOutputs() const noexcept override
    {
        return 1;
    }
    int32_t initialize() noexcept override
    {
        return 0;
    }
    void terminate() noexcept override { }
    size_t getSerializationSize() const noexcept override
    {
        return 0;
    }
    void serialize(void*) const noexcept override { }
    void destroy() noexcept override
    {
        delete this;
    }
    void setPluginNamespace(AsciiChar const*) noexcept override { }
    AsciiChar const* getPluginNamespace() const noexcept override
    {
        return "";
    }

private:
    using IPluginV2::enqueue;
    using IPluginV2::getOutputDimensions;
    using IPluginV2::getWorkspaceSize;
    using IPluginV2Ext::configurePlugin;

    std::shared_ptr<int64_t> mCalls;
};

TEST(IncrementalInference, AddingLayersDoesNotInferEarlierOnesAgain)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {-1, 4}});
    auto calls = std::make_shared<int64_t>(0);
    CountingPlugin plugin(calls);
    IPluginV2Layer* counted = h.network->addPluginV2(&x, 1, plugin);
    ASSERT_NE(counted, nullptr) << h.logger.errors();
    ITensor* y = counted->getOutput(0);
    int64_t const afterAdd = *calls;
    for (int32_t i = 0; i < 1000; ++i)
    {
        IElementWiseLayer* sum = h.network->addElementWise(*y, *x, ElementWiseOperation::kSUM);
        ASSERT_NE(sum, nullptr) << h.logger.errors();
        y = sum->getOutput(0);
        ASSERT_EQ(y->getDimensions().nbDims, 2);
    }
    // Inferring the whole network at each add called the plugin 1,000 more times.
    EXPECT_LE(*calls - afterAdd, 2);
    EXPECT_EQ(y->getDimensions().d[1], 4);
}

TEST(IncrementalInference, ParameterSettersAfterLaterAddsReachDownstreamShapes)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {6, 4}});
    IShuffleLayer* reshape = h.network->addShuffle(*x);
    reshape->setReshapeDimensions(Dims{2, {4, 6}});
    IActivationLayer* relu = h.network->addActivation(*reshape->getOutput(0), ActivationType::kRELU);
    IReduceLayer* sum = h.network->addReduce(*relu->getOutput(0), ReduceOperation::kSUM, 1U << 1, true);
    ASSERT_NE(sum, nullptr) << h.logger.errors();
    EXPECT_EQ(sum->getOutput(0)->getDimensions().d[0], 4);
    // The reshape is upstream of two later layers: both follow its new parameters.
    reshape->setReshapeDimensions(Dims{2, {3, 8}});
    EXPECT_EQ(relu->getOutput(0)->getDimensions().d[1], 8);
    EXPECT_EQ(sum->getOutput(0)->getDimensions().d[0], 3);
    EXPECT_EQ(sum->getOutput(0)->getDimensions().d[1], 1);
    // A later add sees the new shapes too.
    IShuffleLayer* flat = h.network->addShuffle(*sum->getOutput(0));
    flat->setReshapeDimensions(Dims{1, {-1}});
    EXPECT_EQ(flat->getOutput(0)->getDimensions().d[0], 3);
}

TEST(IncrementalInference, SetInputChangesDownstreamShapes)
{
    LayerHarness h;
    ITensor* a = h.network->addInput("a", DataType::kFLOAT, Dims{2, {2, 3}});
    ITensor* b = h.network->addInput("b", DataType::kFLOAT, Dims{2, {5, 7}});
    IActivationLayer* first = h.network->addActivation(*a, ActivationType::kRELU);
    IUnaryLayer* second = h.network->addUnary(*first->getOutput(0), UnaryOperation::kABS);
    IShapeLayer* shape = h.network->addShape(*second->getOutput(0));
    ASSERT_NE(shape, nullptr) << h.logger.errors();
    EXPECT_EQ(second->getOutput(0)->getDimensions().d[1], 3);
    first->setInput(0, *b);
    EXPECT_EQ(second->getOutput(0)->getDimensions().d[0], 5);
    EXPECT_EQ(second->getOutput(0)->getDimensions().d[1], 7);
    EXPECT_EQ(shape->getOutput(0)->getDimensions().d[0], 2);
}

TEST(IncrementalInference, SetInputToALaterLayerReordersOrFallsBackToAFullInference)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    // No layer reads `consumerless` yet: it moves after the layer it now reads.
    IActivationLayer* consumerless = h.network->addActivation(*x, ActivationType::kRELU);
    IShuffleLayer* later = h.network->addShuffle(*x);
    later->setReshapeDimensions(Dims{3, {3, 1, 2}});
    consumerless->setInput(0, *later->getOutput(0));
    EXPECT_EQ(consumerless->getOutput(0)->getDimensions().nbDims, 3);
    // `read` has a consumer: pointing it to a later layer's output needs a fresh order.
    IActivationLayer* read = h.network->addActivation(*x, ActivationType::kRELU);
    IUnaryLayer* reader = h.network->addUnary(*read->getOutput(0), UnaryOperation::kABS);
    IShuffleLayer* source = h.network->addShuffle(*x);
    source->setReshapeDimensions(Dims{1, {6}});
    read->setInput(0, *source->getOutput(0));
    EXPECT_EQ(reader->getOutput(0)->getDimensions().nbDims, 1);
    EXPECT_EQ(reader->getOutput(0)->getDimensions().d[0], 6);
    // A cycle is still found and reported.
    source->setInput(0, *reader->getOutput(0));
    EXPECT_EQ(reader->getOutput(0)->getDimensions().nbDims, 1);
    EXPECT_NE(h.logger.errors().find("cycle"), std::string::npos) << h.logger.errors();
}

TEST(IncrementalInference, InputShapeAndTypeChangesReachEveryLayer)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    ITensor* y = x;
    for (int32_t i = 0; i < 5; ++i)
    {
        y = h.network->addActivation(*y, ActivationType::kRELU)->getOutput(0);
    }
    EXPECT_EQ(y->getDimensions().d[1], 3);
    x->setDimensions(Dims{2, {4, -1}});
    EXPECT_EQ(y->getDimensions().d[0], 4);
    EXPECT_EQ(y->getDimensions().d[1], -1);
    x->setType(DataType::kHALF);
    EXPECT_EQ(y->getType(), DataType::kHALF);
}

TEST(IncrementalInference, RequestedOutputTypesReachLaterLayers)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {4}});
    IIdentityLayer* copy = h.network->addIdentity(*x);
    IUnaryLayer* abs = h.network->addUnary(*copy->getOutput(0), UnaryOperation::kABS);
    ASSERT_NE(abs, nullptr) << h.logger.errors();
    EXPECT_EQ(abs->getOutput(0)->getType(), DataType::kFLOAT);
    copy->getOutput(0)->setType(DataType::kHALF);
    EXPECT_EQ(abs->getOutput(0)->getType(), DataType::kHALF);
    copy->setOutputType(0, DataType::kINT32);
    IIdentityLayer* later = h.network->addIdentity(*copy->getOutput(0));
    ASSERT_NE(later, nullptr) << h.logger.errors();
    EXPECT_EQ(later->getOutput(0)->getType(), DataType::kINT32);
}

TEST(IncrementalInference, ARejectedLayerLeavesTheNetworkAsItWas)
{
    LayerHarness h;
    ITensor* a = h.network->addInput("a", DataType::kFLOAT, Dims{2, {2, 3}});
    ITensor* b = h.network->addInput("b", DataType::kFLOAT, Dims{2, {4, 5}});
    IActivationLayer* relu = h.network->addActivation(*a, ActivationType::kRELU);
    int32_t const layers = h.network->getNbLayers();
    EXPECT_EQ(h.network->addElementWise(*relu->getOutput(0), *b, ElementWiseOperation::kSUM), nullptr);
    EXPECT_EQ(h.network->getNbLayers(), layers);
    IUnaryLayer* abs = h.network->addUnary(*relu->getOutput(0), UnaryOperation::kABS);
    ASSERT_NE(abs, nullptr) << h.logger.errors();
    EXPECT_EQ(abs->getOutput(0)->getDimensions().d[1], 3);
    h.output(abs, "y");
    ASSERT_TRUE(h.build());
}

TEST(IncrementalInference, AStaleLayerThatNoLongerInfersRejectsTheNextAdd)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {6, 4}});
    IShuffleLayer* reshape = h.network->addShuffle(*x);
    reshape->setReshapeDimensions(Dims{2, {4, 6}});
    IActivationLayer* relu = h.network->addActivation(*reshape->getOutput(0), ActivationType::kRELU);
    ASSERT_NE(relu, nullptr) << h.logger.errors();
    reshape->setReshapeDimensions(Dims{2, {5, 5}}); // 25 elements from 24: the network no longer infers
    EXPECT_EQ(h.network->addActivation(*relu->getOutput(0), ActivationType::kRELU), nullptr);
    reshape->setReshapeDimensions(Dims{2, {8, 3}});
    IActivationLayer* next = h.network->addActivation(*relu->getOutput(0), ActivationType::kRELU);
    ASSERT_NE(next, nullptr) << h.logger.errors();
    EXPECT_EQ(next->getOutput(0)->getDimensions().d[0], 8);
}

} // namespace
