// IEngineInspector: the layers of a built engine with their chosen precision, the types they
// read and write, and shapes: -1 for run-time extents, concrete once a context knows them.
#include "../layers/layer_harness.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>

namespace
{

using namespace nvinfer1;
using kiln::test::LayerHarness;
using nlohmann::json;

//! x (-1, 4) FP32 -> relu ("act") -> y, built with kFP16.
struct Fp16Relu
{
    LayerHarness h;

    Fp16Relu()
    {
        ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {-1, 4}});
        ILayer* act = h.network->addActivation(*x, ActivationType::kRELU);
        act->setName("act");
        h.output(act, "y");
        h.setProfile("x", Dims{2, {1, 4}}, Dims{2, {2, 4}}, Dims{2, {8, 4}});
        h.config->setFlag(BuilderFlag::kFP16);
    }
};

TEST(EngineInspector, DescribesLayersWithPrecisionAndTypes)
{
    Fp16Relu net;
    ASSERT_TRUE(net.h.build());
    std::unique_ptr<IEngineInspector> inspector(net.h.engine->createEngineInspector());
    ASSERT_NE(inspector, nullptr);

    json const engine = json::parse(inspector->getEngineInformation(LayerInformationFormat::kJSON));
    EXPECT_EQ(engine["Bindings"], json::parse(R"(["x", "y"])"));
    EXPECT_TRUE(engine["PluginsNeeded"].empty());
    ASSERT_EQ(engine["Layers"].size(), 1U);
    json const& act = engine["Layers"][0];
    EXPECT_EQ(act["Name"], "act");
    EXPECT_EQ(act["LayerType"], "Activation");
    EXPECT_EQ(act["Precision"], "HALF");
    // The layer reads and writes half; the network's input and output stay FP32 around it.
    EXPECT_EQ(act["Inputs"][0]["Name"], "x");
    EXPECT_EQ(act["Inputs"][0]["Dimensions"], json::parse("[-1, 4]"));
    EXPECT_EQ(act["Inputs"][0]["Format/Datatype"], "Row major linear HALF");
    EXPECT_EQ(act["Outputs"][0]["Format/Datatype"], "Row major linear HALF");
    EXPECT_EQ(net.h.engine->getTensorDataType("x"), DataType::kFLOAT);

    EXPECT_EQ(std::string(inspector->getLayerInformation(0, LayerInformationFormat::kONELINE)),
        "act [Activation] precision HALF: x HALF [-1,4] -> y HALF [-1,4]");
}

TEST(EngineInspector, AContextWithKnownShapesGivesConcreteDimensions)
{
    Fp16Relu net;
    ASSERT_TRUE(net.h.build());
    ASSERT_TRUE(net.h.context->setInputShape("x", Dims{2, {3, 4}}));
    std::unique_ptr<IEngineInspector> inspector(net.h.engine->createEngineInspector());
    EXPECT_TRUE(inspector->setExecutionContext(net.h.context.get()));
    EXPECT_EQ(inspector->getExecutionContext(), net.h.context.get());
    json const act = json::parse(inspector->getLayerInformation(0, LayerInformationFormat::kJSON));
    EXPECT_EQ(act["Outputs"][0]["Dimensions"], json::parse("[3, 4]"));
}

TEST(EngineInspector, RejectsOtherEnginesContextsAndMissingLayers)
{
    Fp16Relu other;
    ASSERT_TRUE(other.h.build());
    Fp16Relu net; // made last, so Kiln's messages go to its logger
    ASSERT_TRUE(net.h.build());
    std::unique_ptr<IEngineInspector> inspector(net.h.engine->createEngineInspector());
    EXPECT_FALSE(inspector->setExecutionContext(other.h.context.get()));
    EXPECT_NE(net.h.logger.errors().find("the context belongs to another engine"), std::string::npos)
        << net.h.logger.errors();
    EXPECT_EQ(inspector->getLayerInformation(1, LayerInformationFormat::kJSON), nullptr);
    EXPECT_NE(net.h.logger.errors().find("layer 1 does not exist (the engine has 1)"), std::string::npos);
}

} // namespace
