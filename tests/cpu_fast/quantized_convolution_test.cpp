// The quantized fusion (plan/passes/quantized_fusion.h) on small Q/DQ networks: what becomes one QuantizedConvolution
// layer run by oneDNN's INT8 convolution, and what must stay as written. The fused plan is compared with the plan for
// the reference kernels, which keeps every layer unfused.
//
// Tolerance: the fused layer sums the INT8 products exactly in INT32 and scales the sums in FP32; the unfused
// convolution sums the dequantized FP32 products in double and rounds the result to FP32. The two differ by a few FP32
// roundings of the sum, about 1e-7 of its magnitude. Where the chain ends in a quantization that difference can move a
// value across a rounding boundary of the INT8 grid, so those outputs agree within one step of the output's scale;
// FP32 outputs agree within 1e-5 of their magnitude.
#include "layer_helpers.h"
#include "one_layer.h"

#include "core/quantization.h"
#include "network/fused/quantized_convolution.h"
#include "plan/passes/int8_weights.h"
#include "plan/plan_graph.h"

#include <cmath>
#include <optional>

namespace kiln::test
{
namespace
{

enum class Residual
{
    kNONE,
    kINT8, //!< a dequantized INT8 tensor (input "b" through a Q/DQ pair)
    kFLOAT //!< input "b" itself
};

struct QdqCase
{
    Residual residual{Residual::kNONE};
    bool relu{true};
    //! Where set: instead of the ReLU, this activation self-gated as a network writes it, the activation ("gate") and
    //! the product of its input by its output ("gated"): SiLU (kSIGMOID) or hard-swish (kHARD_SIGMOID, 1/6, 1/2).
    std::optional<ActivationType> gate{};
    bool gateObserved{false}; //!< the gate's output also a network output
    bool quantizesOutput{true};
    bool perChannelInput{false};
    bool inexactWeights{false};
    bool debugConvolution{false}; //!< the convolution's output marked as a debug tensor
    bool secondReader{false};     //!< the convolution's output also a network output
    int64_t groups{1};
    //! > 0: a 3x3 max pooling (stride 2, padding 1) between the input's DQ and a Q/DQ pair of this scale, before
    //! the convolution (ResNet's stem).
    float poolScale{0.0F};
};

constexpr float kInputScale = 1.0F / 127.0F;
constexpr float kResidualScale = 2.0F / 127.0F;
constexpr float kOutputScale = 0.03F;
Shape const kInputShape{2, 8, 9, 9};
constexpr int64_t kMaps = 16;

//! A Q/DQ network around one 3x3 convolution, as Model Optimizer's exports are made; its weights are INT8 values
//! times one scale per map, exactly (or, for inexactWeights, all but one).
class QdqNetwork
{
public:
    explicit QdqNetwork(QdqCase const& c)
        : mCase(c)
    {
        int64_t const perMap = kInputShape[1] / c.groups * 9;
        std::mt19937 engine(7);
        std::uniform_int_distribution<int> values(-127, 127);
        for (int64_t map = 0; map < kMaps; ++map)
        {
            float const scale = 0.01F / static_cast<float>(map + 1);
            for (int64_t i = 0; i < perMap; ++i)
            {
                // Max calibration: the largest magnitude of each map is 127 steps.
                int const q = i == map % perMap ? (map % 2 == 0 ? 127 : -127) : values(engine);
                mKernel.push_back(dequantizeInt8(static_cast<int8_t>(q), scale));
            }
            mBias.push_back(0.1F * static_cast<float>(map % 5) - 0.2F);
        }
        if (c.inexactWeights)
        {
            mKernel[3] = std::nextafter(mKernel[3], 1.0F);
        }
        mChannelScales.resize(static_cast<size_t>(kInputShape[1]), kInputScale);
        mChannelScales[1] = 2.0F * kInputScale;
    }

    NetworkMaker maker() const
    {
        return [this](INetworkDefinition& network) { build(network); };
    }

    std::vector<Shape> inputShapes() const
    {
        std::vector<Shape> shapes{kInputShape};
        if (mCase.residual != Residual::kNONE)
        {
            shapes.push_back({kInputShape[0], kMaps, kInputShape[2], kInputShape[3]});
        }
        return shapes;
    }

    //! The convolution's input: the dequantized input, pooled where the case pools.
    ITensor& convolutionInput(INetworkDefinition& network, ITensor& input) const
    {
        ITensor& dequantized = dequantizedInput(network, input);
        if (mCase.poolScale == 0.0F)
        {
            return dequantized;
        }
        IPoolingLayer* pool = network.addPoolingNd(dequantized, PoolingType::kMAX, DimsHW{3, 3});
        pool->setStrideNd(DimsHW{2, 2});
        pool->setPaddingNd(DimsHW{1, 1});
        pool->setName("pool");
        return quantizedPair(network, *pool->getOutput(0), mCase.poolScale, "pooled");
    }

private:
    ITensor& scalar(INetworkDefinition& network, float const& value) const
    {
        return *network.addConstant(Dims{}, Weights{DataType::kFLOAT, &value, 1})->getOutput(0);
    }

    //! Q then DQ of `input` by one scale, the layers named "quantize <name>" and "dequantize <name>".
    ITensor& quantizedPair(
        INetworkDefinition& network, ITensor& input, float const& scale, std::string const& name) const
    {
        IQuantizeLayer* q = network.addQuantize(input, scalar(network, scale), DataType::kINT8);
        q->setName(("quantize " + name).c_str());
        IDequantizeLayer* dq = network.addDequantize(*q->getOutput(0), scalar(network, scale), DataType::kFLOAT);
        dq->setName(("dequantize " + name).c_str());
        return *dq->getOutput(0);
    }

    ITensor& dequantizedInput(INetworkDefinition& network, ITensor& input) const
    {
        if (!mCase.perChannelInput)
        {
            return quantizedPair(network, input, kInputScale, "input");
        }
        Shape const channels{kInputShape[1]};
        IQuantizeLayer* q
            = network.addQuantize(input, constantOf(network, channels, mChannelScales, "q scales"), DataType::kINT8);
        q->setAxis(1);
        q->setName("quantize input");
        IDequantizeLayer* dq = network.addDequantize(
            *q->getOutput(0), constantOf(network, channels, mChannelScales, "dq scales"), DataType::kFLOAT);
        dq->setAxis(1);
        dq->setName("dequantize input");
        return *dq->getOutput(0);
    }

    ITensor& selfGated(INetworkDefinition& network, ITensor& x) const
    {
        IActivationLayer* gate = network.addActivation(x, *mCase.gate);
        gate->setName("gate");
        if (*mCase.gate == ActivationType::kHARD_SIGMOID)
        {
            gate->setAlpha(1.0F / 6.0F);
            gate->setBeta(0.5F);
        }
        if (mCase.gateObserved)
        {
            gate->getOutput(0)->setName("gate output");
            network.markOutput(*gate->getOutput(0));
        }
        IElementWiseLayer* product = network.addElementWise(x, *gate->getOutput(0), ElementWiseOperation::kPROD);
        product->setName("gated");
        return *product->getOutput(0);
    }

    void build(INetworkDefinition& network) const
    {
        ITensor* a = network.addInput("a", DataType::kFLOAT, dimsOf(kInputShape));
        IConvolutionLayer* convolution = network.addConvolutionNd(
            convolutionInput(network, *a), kMaps, DimsHW{3, 3}, weightsOf(mKernel), weightsOf(mBias));
        convolution->setName("convolution");
        convolution->setPaddingNd(DimsHW{1, 1});
        convolution->setNbGroups(mCase.groups);
        ITensor* y = convolution->getOutput(0);
        if (mCase.debugConvolution)
        {
            network.markDebug(*y);
        }
        if (mCase.secondReader)
        {
            y->setName("convolved");
            network.markOutput(*y);
        }
        if (mCase.residual != Residual::kNONE)
        {
            ITensor* b = network.addInput("b", DataType::kFLOAT, dimsOf(inputShapes()[1]));
            ITensor& residual = mCase.residual == Residual::kINT8 ? quantizedPair(network, *b, kResidualScale, "b")
                                                                  : *b;
            y = &sumOf(network, *y, residual, "sum");
        }
        if (mCase.gate)
        {
            y = &selfGated(network, *y);
        }
        else if (mCase.relu)
        {
            y = &activated(network, *y, ActivationType::kRELU, "relu");
        }
        if (mCase.quantizesOutput)
        {
            y = &quantizedPair(network, *y, kOutputScale, "output");
        }
        markOutput(network, *y);
    }

    QdqCase mCase;
    std::vector<float> mKernel;
    std::vector<float> mBias;
    std::vector<float> mChannelScales;
};

//! The plan's layer types by name.
std::map<std::string, LayerType> layerTypes(std::vector<uint8_t> const& blob)
{
    plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(plan::readPlan(blob.data(), blob.size(), model, error)) << error;
    std::map<std::string, LayerType> types;
    for (plan::LayerRecord const& layer : model.layers)
    {
        types[layer.name] = layer.type;
    }
    return types;
}

size_t countOf(std::map<std::string, LayerType> const& types, LayerType type)
{
    return static_cast<size_t>(
        std::count_if(types.begin(), types.end(), [&](auto const& e) { return e.second == type; }));
}

//! Builds the case's plans, compares the fused (fast) plan with the unfused reference on two runs, and returns the
//! fast plan's layer types.
std::map<std::string, LayerType> compareWithReference(QdqCase const& c)
{
    QdqNetwork const network(c);
    std::vector<Tensors> const runs{randomInputs(network.inputShapes(), 11), randomInputs(network.inputShapes(), 21)};
    Tolerance const tolerance = c.quantizesOutput ? Tolerance(kOutputScale * 1.001) : Tolerance(1e-5, 1e-5);
    expectFastMatchesReference(network.maker(), runs, tolerance);
    return layerTypes(buildCpuPlan(network.maker(), CpuKernels::kFAST));
}

using network::kQuantizedConvolutionLayerType;

TEST(QuantizedFusion, FusesDequantizeConvolutionReluQuantize)
{
    std::map<std::string, LayerType> const types = compareWithReference({});
    EXPECT_EQ(types.at("dequantize input + convolution + relu + quantize output"), kQuantizedConvolutionLayerType);
    EXPECT_EQ(countOf(types, LayerType::kCONVOLUTION), 0U);
    EXPECT_EQ(countOf(types, LayerType::kACTIVATION), 0U);
}

TEST(QuantizedFusion, FusesAnInt8ResidualReadAsInt8)
{
    std::map<std::string, LayerType> const types = compareWithReference({Residual::kINT8});
    // The residual's dequantization leaves too: the fused layer reads its INT8 input.
    EXPECT_EQ(types.at("dequantize input + convolution + dequantize b + sum + relu + quantize output"),
        kQuantizedConvolutionLayerType);
    EXPECT_EQ(types.count("dequantize b"), 0U);
}

TEST(QuantizedFusion, FusesAnFp32ResidualIntoAnFp32Output)
{
    // oneDNN cannot add an FP32 residual into an INT8 destination: the quantization stays a layer of its own.
    std::map<std::string, LayerType> const types = compareWithReference({Residual::kFLOAT});
    EXPECT_EQ(types.at("dequantize input + convolution + sum + relu"), kQuantizedConvolutionLayerType);
    EXPECT_EQ(types.at("quantize output"), LayerType::kQUANTIZE);
}

TEST(QuantizedFusion, WritesFp32WithoutATrailingQuantization)
{
    QdqCase c;
    c.quantizesOutput = false;
    c.residual = Residual::kINT8;
    std::map<std::string, LayerType> const types = compareWithReference(c);
    EXPECT_EQ(types.at("dequantize input + convolution + dequantize b + sum + relu"), kQuantizedConvolutionLayerType);
}

TEST(QuantizedFusion, FusesGroupedConvolutionsWithoutActivation)
{
    QdqCase c;
    c.groups = 4;
    c.relu = false;
    std::map<std::string, LayerType> const types = compareWithReference(c);
    EXPECT_EQ(types.at("dequantize input + convolution + quantize output"), kQuantizedConvolutionLayerType);
}

TEST(QuantizedFusion, LeavesPerChannelActivationScalesUnfused)
{
    QdqCase c;
    c.perChannelInput = true;
    std::map<std::string, LayerType> const types = compareWithReference(c);
    EXPECT_EQ(countOf(types, kQuantizedConvolutionLayerType), 0U);
    EXPECT_EQ(types.at("dequantize input"), LayerType::kDEQUANTIZE);
}

TEST(QuantizedFusion, LeavesWeightsThatAreNotExactlyInt8Unfused)
{
    QdqCase c;
    c.inexactWeights = true;
    std::map<std::string, LayerType> const types = compareWithReference(c);
    EXPECT_EQ(countOf(types, kQuantizedConvolutionLayerType), 0U);
}

TEST(QuantizedFusion, StopsAtAnObservedIntermediateTensor)
{
    for (bool debug : {true, false})
    {
        SCOPED_TRACE(debug ? "debug tensor" : "network output");
        QdqCase c;
        c.debugConvolution = debug;
        c.secondReader = !debug;
        std::map<std::string, LayerType> const types = compareWithReference(c);
        // The convolution still reads INT8, but writes the tensor the application sees, in FP32.
        EXPECT_EQ(types.at("dequantize input + convolution"), kQuantizedConvolutionLayerType);
        EXPECT_EQ(types.count("quantize output"), 1U);
    }
}

TEST(QuantizedFusion, FusesSiluAndHardSwishWrittenAsAnActivationAndAProduct)
{
    for (ActivationType gate : {ActivationType::kSIGMOID, ActivationType::kHARD_SIGMOID})
    {
        SCOPED_TRACE(gate == ActivationType::kSIGMOID ? "SiLU" : "hard-swish");
        QdqCase c;
        c.gate = gate;
        std::map<std::string, LayerType> const types = compareWithReference(c);
        EXPECT_EQ(types.at("dequantize input + convolution + gate + gated + quantize output"),
            kQuantizedConvolutionLayerType);
        EXPECT_EQ(countOf(types, LayerType::kACTIVATION) + countOf(types, LayerType::kELEMENTWISE), 0U);
        c.residual = Residual::kINT8;
        EXPECT_EQ(compareWithReference(c).at(
                      "dequantize input + convolution + dequantize b + sum + gate + gated + quantize output"),
            kQuantizedConvolutionLayerType);
        c.quantizesOutput = false;
        EXPECT_EQ(compareWithReference(c).at("dequantize input + convolution + dequantize b + sum + gate + gated"),
            kQuantizedConvolutionLayerType);
    }
}

TEST(QuantizedFusion, LeavesAGateThatOthersReadUnfused)
{
    // The gate's output is a network output: the product stays, and so does the gate, which the convolution's FP32
    // output feeds.
    QdqCase c;
    c.gate = ActivationType::kSIGMOID;
    c.gateObserved = true;
    std::map<std::string, LayerType> const types = compareWithReference(c);
    EXPECT_EQ(types.at("dequantize input + convolution"), kQuantizedConvolutionLayerType);
    EXPECT_EQ(types.count("gate"), 1U);
    EXPECT_EQ(types.count("quantize output"), 1U);
}

// The propagation of Q/DQ (plan/passes/quantization_propagation.h) moves the pooling onto INT8 before the fusion;
// tests/cpu_fast/quantization_propagation_test.cpp checks it on its own.
TEST(QuantizedFusion, MovesMaxPoolingBetweenPairsOfOneScaleOntoInt8)
{
    QdqCase c;
    c.poolScale = kInputScale;
    std::map<std::string, LayerType> const types = compareWithReference(c);
    EXPECT_EQ(types.at("pool"), LayerType::kPOOLING);
    EXPECT_EQ(types.at("dequantize pooled + convolution + relu + quantize output"), kQuantizedConvolutionLayerType);
    EXPECT_EQ(countOf(types, LayerType::kDEQUANTIZE), 1U); // the output's: the input's went with "quantize pooled"
    EXPECT_EQ(countOf(types, LayerType::kQUANTIZE), 1U);   // the input's
}

TEST(QuantizedFusion, MovesMaxPoolingOntoInt8BetweenScalesThatDiffer)
{
    QdqCase c;
    c.poolScale = 2.0F * kInputScale; // requantizing rounds: the DQ -> Q pair after the INT8 pooling stays
    std::map<std::string, LayerType> const types = compareWithReference(c);
    EXPECT_EQ(types.at("pool"), LayerType::kPOOLING);
    EXPECT_EQ(types.at("dequantize input"), LayerType::kDEQUANTIZE);
    EXPECT_EQ(types.at("quantize pooled"), LayerType::kQUANTIZE);
    EXPECT_EQ(types.at("dequantize pooled + convolution + relu + quantize output"), kQuantizedConvolutionLayerType);
}

//! An INT8 network input through a 2x2 max pooling (stride 1) into an INT8 output.
NetworkMaker int8MaxPooling(PoolingType type)
{
    return [type](INetworkDefinition& network) {
        ITensor* input = network.addInput("a", DataType::kINT8, Dims4{1, 1, 3, 3});
        IPoolingLayer* pool = network.addPoolingNd(*input, type, DimsHW{2, 2});
        if (pool != nullptr) // an INT8 average is refused when it is added
        {
            pool->setStrideNd(DimsHW{1, 1});
            markOutput(network, *pool->getOutput(0));
        }
    };
}

TEST(QuantizedFusion, MaxPoolingTakesInt8OnBothKernelSets)
{
    HostTensor input = zeros({1, 1, 3, 3}, DataType::kINT8);
    std::vector<int8_t> const values{-128, 5, -3, 127, -1, 0, 2, -7, -128};
    std::copy(values.begin(), values.end(), reinterpret_cast<int8_t*>(input.bytes.data()));
    for (CpuKernels kernels : {CpuKernels::kFAST, CpuKernels::kREFERENCE})
    {
        std::vector<Tensors> const results
            = runCpuPlan(buildCpuPlan(int8MaxPooling(PoolingType::kMAX), kernels), {{{"a", input}}});
        ASSERT_EQ(results.size(), 1U);
        HostTensor const& output = results[0].at("output");
        EXPECT_EQ(output.type, DataType::kINT8);
        EXPECT_EQ(output.floats(), (std::vector<float>{127, 5, 127, 0}));
    }
    // An average of INT8 values is no INT8 value: refused as before.
    RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    int8MaxPooling(PoolingType::kAVERAGE)(*network);
    EXPECT_EQ(network->getNbLayers(), 0);
    EXPECT_NE(logger.errors().find("or INT8 for max pooling"), std::string::npos) << logger.errors();
}

TEST(QuantizedFusion, FusedPlansSaveAndLoadAsTheyWere)
{
    QdqNetwork const network(QdqCase{Residual::kINT8});
    std::vector<uint8_t> const blob = buildCpuPlan(network.maker(), CpuKernels::kFAST);
    plan::PlanModel model;
    std::string error;
    ASSERT_TRUE(plan::readPlan(blob.data(), blob.size(), model, error)) << error;
    EXPECT_EQ(plan::writePlan(model), blob);
    auto const fused = std::find_if(model.layers.begin(), model.layers.end(),
        [](plan::LayerRecord const& l) { return l.type == kQuantizedConvolutionLayerType; });
    ASSERT_NE(fused, model.layers.end());
    auto const& params = *plan::paramsOf<network::QuantizedConvolutionParams>(*fused);
    EXPECT_EQ(params.kernel.type(), DataType::kINT8);
    EXPECT_EQ(params.kernelScales.toFloat()[3], 0.01F / 4.0F);
    EXPECT_EQ(params.inputScale, kInputScale);
    EXPECT_EQ(params.residualScale, kResidualScale);
    EXPECT_EQ(params.outputScale, kOutputScale);
    EXPECT_FALSE(params.selfGated);

    QdqCase silu;
    silu.gate = ActivationType::kSIGMOID;
    std::vector<uint8_t> const gatedBlob = buildCpuPlan(QdqNetwork(silu).maker(), CpuKernels::kFAST);
    ASSERT_TRUE(plan::readPlan(gatedBlob.data(), gatedBlob.size(), model, error)) << error;
    auto const gated = std::find_if(model.layers.begin(), model.layers.end(),
        [](plan::LayerRecord const& l) { return l.type == kQuantizedConvolutionLayerType; });
    ASSERT_NE(gated, model.layers.end());
    auto const& gatedParams = *plan::paramsOf<network::QuantizedConvolutionParams>(*gated);
    EXPECT_TRUE(gatedParams.activates);
    EXPECT_EQ(gatedParams.activation, ActivationType::kSIGMOID);
    EXPECT_TRUE(gatedParams.selfGated);
}

//! The fused plan with its fused layer's parameters changed by `corrupt`, written again.
std::vector<uint8_t> corruptedPlan(std::function<void(network::QuantizedConvolutionParams&)> const& corrupt)
{
    std::vector<uint8_t> const blob = buildCpuPlan(QdqNetwork(QdqCase{}).maker(), CpuKernels::kFAST);
    plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(plan::readPlan(blob.data(), blob.size(), model, error)) << error;
    for (plan::LayerRecord& layer : model.layers)
    {
        if (auto const* params = plan::paramsOf<network::QuantizedConvolutionParams>(layer))
        {
            auto changed = std::make_shared<network::QuantizedConvolutionParams>(*params);
            corrupt(*changed);
            layer.params = changed;
        }
    }
    return plan::writePlan(model);
}

TEST(QuantizedFusion, CorruptedFusedRecordsAreRefusedOnLoad)
{
    std::vector<std::pair<std::function<void(network::QuantizedConvolutionParams&)>, std::string>> const cases{
        {[](auto& p) { p.inputScale = 0.0F; }, "input scale"},
        {[](auto& p) { p.outputScale = -1.0F; }, "output and residual scales"},
        {[](auto& p) {
             p.kernelScales = network::WeightsBuffer(Weights{DataType::kFLOAT, p.kernelScales.data(), 3});
         },
            "one FLOAT scale per output map (16, not 3)"},
        {[](auto& p) {
             std::vector<float> const values = p.kernel.toFloat();
             p.kernel = network::WeightsBuffer(Weights{DataType::kFLOAT, values.data(), p.kernel.count()});
         },
            "INT8 kernel weights"},
        {[](auto& p) {
             std::vector<float> scales = p.kernelScales.toFloat();
             scales[2] = NAN;
             p.kernelScales = network::WeightsBuffer(Weights{DataType::kFLOAT, scales.data(), 16});
         },
            "kernel scale (nan)"},
        {[](auto& p) { p.addsResidual = true; }, "takes 2 input(s)"},
    };
    for (auto const& [corrupt, message] : cases)
    {
        SCOPED_TRACE(message);
        std::vector<uint8_t> const blob = corruptedPlan(corrupt);
        RecordingLogger logger;
        std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
        std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(blob.data(), blob.size()));
        EXPECT_EQ(engine, nullptr);
        EXPECT_NE(logger.errors().find(message), std::string::npos) << logger.errors();
        EXPECT_NE(logger.errors().find("QuantizedConvolution"), std::string::npos) << logger.errors();
    }
}

TEST(Int8Weights, RecoversModelOptimizersValuesAndScales)
{
    // Two channels: scales 0.3 / 127 and 1e-3, each with one weight at 127 steps (max calibration).
    std::vector<int8_t> const q{127, -5, 0, 64, -127, 1, 2, 3};
    float const scales[] = {0.3F / 127.0F, 1e-3F};
    std::vector<float> weights;
    for (size_t i = 0; i < q.size(); ++i)
    {
        weights.push_back(dequantizeInt8(q[i], scales[i / 4]));
    }
    std::optional<plan::Int8Weights> const recovered = plan::recoverInt8Weights(weights, 2);
    ASSERT_TRUE(recovered.has_value());
    EXPECT_EQ(recovered->values, q);
    for (size_t i = 0; i < q.size(); ++i)
    {
        EXPECT_EQ(dequantizeInt8(recovered->values[i], recovered->scales[i / 4]), weights[i]) << i;
    }
}

TEST(Int8Weights, RefusesValuesOffTheGridAndZeroChannelsGetScaleOne)
{
    EXPECT_FALSE(plan::recoverInt8Weights({1.0F, 0.3F}, 1).has_value());       // 0.3 is no multiple of 1/127
    EXPECT_FALSE(plan::recoverInt8Weights({1.0F, 2.0F, 3.0F}, 2).has_value()); // no equal blocks
    std::optional<plan::Int8Weights> const zeros = plan::recoverInt8Weights({0.0F, 0.0F, 1.0F, -1.0F}, 2);
    ASSERT_TRUE(zeros.has_value());
    EXPECT_EQ(zeros->scales, (std::vector<float>{1.0F, 1.0F / 127.0F}));
    EXPECT_EQ(zeros->values, (std::vector<int8_t>{0, 0, 127, -127}));
}

} // namespace
} // namespace kiln::test
