// The quantized matrix multiply fusion (plan/passes/quantized_matrix_multiply_fusion.h) on small Q/DQ networks: what
// becomes one QuantizedMatrixMultiply layer run by oneDNN's INT8 kernel, and what must stay as written. The fused
// plan is compared with the plan for the reference kernels, which keeps every layer unfused.
//
// Tolerance: the fused layer sums the INT8 products exactly in INT32 and scales the sums in FP32; the unfused product
// sums the dequantized FP32 products in double and rounds the result to FP32. The two differ by a few FP32 roundings
// of the sum, about 1e-7 of its magnitude. Where the chain ends in a quantization that difference can move a value
// across a rounding boundary of the INT8 grid, so those outputs agree within one step of the output's scale; FP32
// outputs agree within 1e-5 of their magnitude.
#include "layer_helpers.h"
#include "one_layer.h"

#include "backend/cpu/kernels/nn/quantized_matrix_multiply.h"
#include "device_common/half.h"
#include "core/quantization.h"
#include "network/fused/quantized_matrix_multiply.h"
#include "plan/passes/int8_weights.h"
#include "plan/plan_graph.h"

#include <cmath>

namespace kiln::test
{
namespace
{

using network::kQuantizedMatrixMultiplyLayerType;
using network::QuantizedMatrixMultiplyParams;

struct QdqProductCase
{
    bool bias{true};
    bool relu{true};
    bool quantizesOutput{true};
    bool perMatrixWeights{false};  //!< one weight scale for all columns
    bool transposedWeights{false}; //!< the weights [N, K] read through kTRANSPOSE, as Gemm's transB gives them
    bool inexactWeights{false};
    bool activationOnTheRight{false}; //!< the right operand a dequantized network input, not constant weights
    bool productObserved{false};      //!< the product's output also a network output
    bool secondProduct{false};        //!< a second product reads the same dequantized input (BERT's Q, K and V)
    float factor{0.0F}; //!< not 0: the sum multiplied by this constant (Whisper's queries), before the ReLU
};

constexpr float kInputScale = 1.0F / 127.0F;
constexpr float kOutputScale = 0.02F;
Shape const kInputShape{2, 5, 24};
constexpr int64_t kColumns = 16;

class QdqProductNetwork
{
public:
    explicit QdqProductNetwork(QdqProductCase const& c)
        : mCase(c)
    {
        int64_t const k = kInputShape.back();
        std::mt19937 engine(5);
        std::uniform_int_distribution<int> values(-127, 127);
        mWeights.resize(static_cast<size_t>(k * kColumns));
        for (int64_t n = 0; n < kColumns; ++n)
        {
            float const scale = c.perMatrixWeights ? 0.004F : 0.01F / static_cast<float>(n + 1);
            for (int64_t i = 0; i < k; ++i)
            {
                // Max calibration: each column's (or the matrix's) largest magnitude is 127 steps.
                bool const largest = c.perMatrixWeights ? n == 3 && i == 0 : i == n % k;
                int const q = largest ? (n % 2 == 0 ? 127 : -127) : values(engine) * 3 / 4;
                size_t const at = static_cast<size_t>(c.transposedWeights ? n * k + i : i * kColumns + n);
                mWeights[at] = dequantizeInt8(static_cast<int8_t>(q), scale);
            }
            mBias.push_back(0.1F * static_cast<float>(n % 5) - 0.2F);
        }
        if (c.inexactWeights)
        {
            mWeights[5] = std::nextafter(mWeights[5], 1.0F);
        }
        mSecondWeights = mWeights;
        std::reverse(mSecondWeights.begin(), mSecondWeights.end());
        mFactor = {c.factor};
    }

    NetworkMaker maker() const
    {
        return [this](INetworkDefinition& network) { build(network); };
    }

    std::vector<Shape> inputShapes() const
    {
        std::vector<Shape> shapes{kInputShape};
        if (mCase.activationOnTheRight)
        {
            shapes.push_back({kInputShape[0], kInputShape.back(), kColumns});
        }
        return shapes;
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

    ITensor& rightOperand(INetworkDefinition& network, std::vector<float> const& weights, char const* name) const
    {
        if (mCase.activationOnTheRight)
        {
            ITensor* b = network.addInput("b", DataType::kFLOAT, dimsOf(inputShapes()[1]));
            return quantizedPair(network, *b, kInputScale, "b");
        }
        Shape const shape = mCase.transposedWeights ? Shape{1, kColumns, kInputShape.back()}
                                                    : Shape{1, kInputShape.back(), kColumns};
        return constantOf(network, shape, weights, name);
    }

    void build(INetworkDefinition& network) const
    {
        ITensor* a = network.addInput("a", DataType::kFLOAT, dimsOf(kInputShape));
        ITensor& x = quantizedPair(network, *a, kInputScale, "input");
        MatrixOperation const op1 = mCase.transposedWeights ? MatrixOperation::kTRANSPOSE : MatrixOperation::kNONE;
        IMatrixMultiplyLayer* product
            = network.addMatrixMultiply(x, MatrixOperation::kNONE, rightOperand(network, mWeights, "weights"), op1);
        product->setName("product");
        ITensor* y = product->getOutput(0);
        if (mCase.productObserved)
        {
            y->setName("product output");
            network.markOutput(*y);
        }
        if (mCase.bias)
        {
            y = &sumOf(network, *y, constantOf(network, {1, 1, kColumns}, mBias, "bias constant"), "bias");
        }
        if (mCase.factor != 0.0F)
        {
            IElementWiseLayer* scaled = network.addElementWise(
                *y, constantOf(network, {1, 1, 1}, mFactor, "factor"), ElementWiseOperation::kPROD);
            scaled->setName("scale");
            y = scaled->getOutput(0);
        }
        if (mCase.relu)
        {
            y = &activated(network, *y, ActivationType::kRELU, "relu");
        }
        if (mCase.quantizesOutput)
        {
            y = &quantizedPair(network, *y, kOutputScale, "output");
        }
        markOutput(network, *y);
        if (mCase.secondProduct)
        {
            IMatrixMultiplyLayer* second = network.addMatrixMultiply(
                x, MatrixOperation::kNONE, rightOperand(network, mSecondWeights, "second weights"), op1);
            second->setName("second product");
            second->getOutput(0)->setName("second output");
            network.markOutput(*second->getOutput(0));
        }
    }

    QdqProductCase mCase;
    std::vector<float> mWeights;
    std::vector<float> mSecondWeights;
    std::vector<float> mBias;
    std::vector<float> mFactor;
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
std::map<std::string, LayerType> compareWithReference(QdqProductCase const& c)
{
    QdqProductNetwork const network(c);
    std::vector<Tensors> const runs{randomInputs(network.inputShapes(), 11), randomInputs(network.inputShapes(), 21)};
    Tolerance const tolerance = c.quantizesOutput ? Tolerance(kOutputScale * 1.001) : Tolerance(1e-5, 1e-5);
    expectFastMatchesReference(network.maker(), runs, tolerance);
    return layerTypes(buildCpuPlan(network.maker(), CpuKernels::kFAST));
}

TEST(QuantizedMatrixMultiplyFusion, FusesDequantizeProductBiasReluQuantize)
{
    std::map<std::string, LayerType> const types = compareWithReference({});
    EXPECT_EQ(
        types.at("dequantize input + product + bias + relu + quantize output"), kQuantizedMatrixMultiplyLayerType);
    EXPECT_EQ(countOf(types, LayerType::kMATRIX_MULTIPLY), 0U);
    // The weights and the bias live in the fused layer.
    EXPECT_EQ(types.count("weights"), 0U);
    EXPECT_EQ(types.count("bias constant"), 0U);
}

TEST(QuantizedMatrixMultiplyFusion, FoldsAProductByAPositiveConstant)
{
    // Attention's queries scaled right after their projection (Whisper's): the factor joins the columns' scales and
    // the bias, and the activation and quantization after it fuse too.
    QdqProductCase c;
    c.factor = 0.35355339F;
    std::map<std::string, LayerType> const types = compareWithReference(c);
    EXPECT_EQ(types.at("dequantize input + product + bias + scale + relu + quantize output"),
        kQuantizedMatrixMultiplyLayerType);
    EXPECT_EQ(countOf(types, LayerType::kELEMENTWISE), 0U);
    // A negative factor stays a layer of its own (the sign would move into the scales), and so does the quantization.
    c.factor = -0.5F;
    std::map<std::string, LayerType> const negative = compareWithReference(c);
    EXPECT_EQ(negative.at("dequantize input + product + bias"), kQuantizedMatrixMultiplyLayerType);
    EXPECT_EQ(negative.at("quantize output"), LayerType::kQUANTIZE);
}

TEST(QuantizedMatrixMultiplyFusion, WritesFp32WithoutATrailingQuantization)
{
    QdqProductCase c;
    c.relu = false;
    c.quantizesOutput = false;
    std::map<std::string, LayerType> const types = compareWithReference(c);
    EXPECT_EQ(types.at("dequantize input + product + bias"), kQuantizedMatrixMultiplyLayerType);
}

TEST(QuantizedMatrixMultiplyFusion, FusesTransposedWeightsWithOneScaleForAll)
{
    QdqProductCase c;
    c.transposedWeights = true;
    c.perMatrixWeights = true;
    c.bias = false;
    std::map<std::string, LayerType> const types = compareWithReference(c);
    EXPECT_EQ(types.at("dequantize input + product + relu + quantize output"), kQuantizedMatrixMultiplyLayerType);
}

TEST(QuantizedMatrixMultiplyFusion, LeavesWeightsThatAreNotExactlyInt8Unfused)
{
    QdqProductCase c;
    c.inexactWeights = true;
    std::map<std::string, LayerType> const types = compareWithReference(c);
    EXPECT_EQ(countOf(types, kQuantizedMatrixMultiplyLayerType), 0U);
}

TEST(QuantizedMatrixMultiplyFusion, LeavesProductsOfTwoActivationsUnfused)
{
    QdqProductCase c;
    c.activationOnTheRight = true;
    std::map<std::string, LayerType> const types = compareWithReference(c);
    EXPECT_EQ(countOf(types, kQuantizedMatrixMultiplyLayerType), 0U);
}

TEST(QuantizedMatrixMultiplyFusion, StopsAtAnObservedIntermediateTensor)
{
    QdqProductCase c;
    c.productObserved = true;
    std::map<std::string, LayerType> const types = compareWithReference(c);
    // The product still reads INT8, but writes the tensor the application sees, in FP32.
    EXPECT_EQ(types.at("dequantize input + product"), kQuantizedMatrixMultiplyLayerType);
    EXPECT_EQ(countOf(types, kQuantizedMatrixMultiplyLayerType), 1U);
    EXPECT_EQ(types.count("quantize output"), 1U);
}

TEST(QuantizedMatrixMultiplyFusion, ProductsSharingADequantizationBothReadInt8)
{
    QdqProductCase c;
    c.secondProduct = true;
    std::map<std::string, LayerType> const types = compareWithReference(c);
    EXPECT_EQ(types.at("product + bias + relu + quantize output"), kQuantizedMatrixMultiplyLayerType);
    // Left for the second product by the first, which then absorbs it as its sole reader.
    EXPECT_EQ(types.at("dequantize input + second product"), kQuantizedMatrixMultiplyLayerType);
    EXPECT_EQ(countOf(types, LayerType::kDEQUANTIZE), 1U); // the output's
}

TEST(QuantizedMatrixMultiplyFusion, GivesTheSameBitsAtEveryThreadCount)
{
    // An INT8 network input, so that the fused layer is the plan's one layer; 96 rows of 24, 16 columns.
    Shape const shape{4, 24, 24};
    std::vector<float> weights(24 * 16);
    std::vector<float> const bias(16, 0.25F);
    for (size_t i = 0; i < weights.size(); ++i)
    {
        weights[i] = dequantizeInt8(static_cast<int8_t>(static_cast<int>(i * 37 % 255) - 127), 0.01F);
    }
    float const scale = 0.05F;
    NetworkMaker const maker = [&](INetworkDefinition& network) {
        ITensor* a = network.addInput("a", DataType::kINT8, dimsOf(shape));
        ITensor& s = *network.addConstant(Dims{}, Weights{DataType::kFLOAT, &scale, 1})->getOutput(0);
        IDequantizeLayer* dq = network.addDequantize(*a, s, DataType::kFLOAT);
        dq->setName("dequantize input");
        IMatrixMultiplyLayer* product = network.addMatrixMultiply(*dq->getOutput(0), MatrixOperation::kNONE,
            constantOf(network, {1, 24, 16}, weights, "weights"), MatrixOperation::kNONE);
        product->setName("product");
        markOutput(network, sumOf(network, *product->getOutput(0), constantOf(network, {1, 1, 16}, bias, "b"), "bias"));
    };
    HostTensor input = zeros(shape, DataType::kINT8);
    std::mt19937 engine(3);
    std::uniform_int_distribution<int> values(-128, 127);
    for (uint8_t& byte : input.bytes)
    {
        byte = static_cast<uint8_t>(values(engine));
    }
    expectSameBitsAtEveryThreadCount(maker, {{"a", input}}, "dequantize input + product + bias");
}

TEST(QuantizedMatrixMultiplyFusion, ReferenceKernelComputesTheUnfusedLayers)
{
    // x = [[2, -1, 3]] * 0.5, W' = [[1, 0], [2, -1], [0, 4]] * (0.25, 0.5) per column, bias (0.1, -0.2).
    QuantizedMatrixMultiplyParams params;
    params.columns = 2;
    std::vector<int8_t> const weights{1, 2, 0, 0, -1, 4}; // [N, K]: column 0's K weights, then column 1's
    std::vector<float> const scales{0.25F, 0.5F};
    std::vector<float> const bias{0.1F, -0.2F};
    params.weights = network::WeightsBuffer(Weights{DataType::kINT8, weights.data(), 6});
    params.weightScales = network::WeightsBuffer(Weights{DataType::kFLOAT, scales.data(), 2});
    params.bias = network::WeightsBuffer(Weights{DataType::kFLOAT, bias.data(), 2});
    params.inputScale = 0.5F;
    std::vector<int8_t> const x{2, -1, 3};
    std::vector<float> y(2);
    cpu::runQuantizedMatrixMultiply(
        params, ConstTensorView(DataType::kINT8, {1, 3}, x.data()), TensorView{DataType::kFLOAT, {1, 2}, y.data()});
    // As the FP32 layers compute it: x' = (1, -0.5, 1.5), W' columns (0.25, 0.5, 0) and (0, -0.5, 2); the products
    // 0 and 3.25 are exact, then the bias is added in FP32.
    EXPECT_EQ(y, (std::vector<float>{0.1F, 3.25F - 0.2F}));
    // With ReLU and an output scale of 0.3: (0.1, 3.05) / 0.3 = (0.33.., 10.17) rounds to (0, 10).
    params.activates = true;
    params.outputScale = 0.3F;
    std::vector<int8_t> q(2);
    cpu::runQuantizedMatrixMultiply(
        params, ConstTensorView(DataType::kINT8, {1, 3}, x.data()), TensorView{DataType::kINT8, {1, 2}, q.data()});
    EXPECT_EQ(q, (std::vector<int8_t>{0, 10}));
    EXPECT_THROW(cpu::runQuantizedMatrixMultiply(params, ConstTensorView(DataType::kINT8, {1, 2}, x.data()),
                     TensorView{DataType::kINT8, {1, 2}, q.data()}),
        std::invalid_argument);
}

TEST(QuantizedMatrixMultiplyFusion, ReferenceKernelComputesFp8Layers)
{
    // The INT8 case's values in FP8 E4M3: x = (2, -1, 3) codes 0x40, 0xB8, 0x44; the weights 1, 2, 0 / 0, -1, 4
    // codes 0x38, 0x40, 0x00 / 0x00, 0xB8, 0x48. The FP32 layers give (0.1, 3.25 - 0.2) as before.
    QuantizedMatrixMultiplyParams params;
    params.columns = 2;
    std::vector<uint8_t> const weights{0x38, 0x40, 0x00, 0x00, 0xB8, 0x48};
    std::vector<float> const scales{0.25F, 0.5F};
    std::vector<float> const bias{0.1F, -0.2F};
    params.weights = network::WeightsBuffer(Weights{DataType::kFP8, weights.data(), 6});
    params.weightScales = network::WeightsBuffer(Weights{DataType::kFLOAT, scales.data(), 2});
    params.bias = network::WeightsBuffer(Weights{DataType::kFLOAT, bias.data(), 2});
    params.inputScale = 0.5F;
    std::vector<uint8_t> const x{0x40, 0xB8, 0x44};
    ConstTensorView const input(DataType::kFP8, {1, 3}, x.data());
    std::vector<float> y(2);
    cpu::runQuantizedMatrixMultiply(params, input, TensorView{DataType::kFLOAT, {1, 2}, y.data()});
    EXPECT_EQ(y, (std::vector<float>{0.1F, 3.25F - 0.2F}));
    // FP16 output: the FP32 result rounded once.
    params.floatType = DataType::kHALF;
    std::vector<uint16_t> half(2);
    cpu::runQuantizedMatrixMultiply(params, input, TensorView{DataType::kHALF, {1, 2}, half.data()});
    EXPECT_EQ(half, (std::vector<uint16_t>{floatToHalfBits(0.1F), floatToHalfBits(3.25F - 0.2F)}));
    // With ReLU and an output scale of 0.3: 0.1 / 0.3 = 1.33 * 2^-2 rounds to 1.375 * 2^-2 (0x2B); 3.05 / 0.3 =
    // 1.27 * 2^3 rounds to 1.25 * 2^3 = 10 (0x52).
    params.activates = true;
    params.outputScale = 0.3F;
    std::vector<uint8_t> q(2);
    cpu::runQuantizedMatrixMultiply(params, input, TensorView{DataType::kFP8, {1, 2}, q.data()});
    EXPECT_EQ(q, (std::vector<uint8_t>{0x2B, 0x52}));
    EXPECT_THROW(cpu::runQuantizedMatrixMultiply(params, ConstTensorView(DataType::kINT8, {1, 3}, x.data()),
                     TensorView{DataType::kFP8, {1, 2}, q.data()}),
        std::invalid_argument);
}

TEST(Fp8Weights, RecoversModelOptimizersValuesAndScales)
{
    // Two channels: scales 0.3 / 448 and 1e-3, each with one weight at 448 (max calibration), FP8 codes of 448, -3.25,
    // 0, 3 * 2^-9 (a subnormal) and -448, 1, 2, 3.
    std::vector<uint8_t> const q{0x7E, 0xC5, 0x00, 0x03, 0xFE, 0x38, 0x40, 0x44};
    float const scales[] = {0.3F / 448.0F, 1e-3F};
    std::vector<float> weights;
    for (size_t i = 0; i < q.size(); ++i)
    {
        weights.push_back(dequantizeFp8(q[i], scales[i / 4]));
    }
    std::optional<plan::Fp8Weights> const recovered = plan::recoverFp8Weights(weights, 2);
    ASSERT_TRUE(recovered.has_value());
    EXPECT_EQ(recovered->values, q);
    for (size_t i = 0; i < q.size(); ++i)
    {
        EXPECT_EQ(dequantizeFp8(recovered->values[i], recovered->scales[i / 4]), weights[i]) << i;
    }
    // A channel whose largest weight is 36 steps (0x61) of its scale, as in Model Optimizer's ViT export: some scale
    // gives every weight back.
    std::vector<uint8_t> const short8{0x61, 0xC5, 0x03, 0x38};
    std::vector<float> shortWeights;
    for (uint8_t code : short8)
    {
        shortWeights.push_back(dequantizeFp8(code, 0.00155171F));
    }
    std::optional<plan::Fp8Weights> const shortRecovered = plan::recoverFp8Weights(shortWeights, 1);
    ASSERT_TRUE(shortRecovered.has_value());
    for (size_t i = 0; i < short8.size(); ++i)
    {
        EXPECT_EQ(dequantizeFp8(shortRecovered->values[i], shortRecovered->scales[0]), shortWeights[i]) << i;
    }
    // 448 and 4.25: 4.25 / (448 / 448) needs a fourth mantissa bit (1.0001 * 2^2), so no scale near 1 puts both on
    // FP8's grid; 4.5 (1.001 * 2^2) is on it.
    EXPECT_FALSE(plan::recoverFp8Weights({448.0F, 4.25F}, 1).has_value());
    EXPECT_FALSE(plan::recoverInt8Weights({448.0F, 4.25F}, 1).has_value()) << "nor on INT8's";
    EXPECT_TRUE(plan::recoverFp8Weights({448.0F, 4.5F}, 1).has_value());
}

TEST(QuantizedMatrixMultiplyFusion, FusedPlansSaveAndLoadAsTheyWere)
{
    QdqProductNetwork const network(QdqProductCase{});
    std::vector<uint8_t> const blob = buildCpuPlan(network.maker(), CpuKernels::kFAST);
    plan::PlanModel model;
    std::string error;
    ASSERT_TRUE(plan::readPlan(blob.data(), blob.size(), model, error)) << error;
    EXPECT_EQ(plan::writePlan(model), blob);
    auto const fused = std::find_if(model.layers.begin(), model.layers.end(),
        [](plan::LayerRecord const& l) { return l.type == kQuantizedMatrixMultiplyLayerType; });
    ASSERT_NE(fused, model.layers.end());
    auto const& params = *plan::paramsOf<QuantizedMatrixMultiplyParams>(*fused);
    EXPECT_EQ(params.weights.type(), DataType::kINT8);
    EXPECT_EQ(params.columns, kColumns);
    EXPECT_EQ(params.inner(), kInputShape.back());
    EXPECT_EQ(params.weightScales.toFloat()[3], 0.01F / 4.0F);
    EXPECT_EQ(params.bias.toFloat()[2], 0.0F);
    EXPECT_EQ(params.inputScale, kInputScale);
    EXPECT_EQ(params.outputScale, kOutputScale);
}

//! The fused plan with its fused layer's parameters changed by `corrupt`, written again.
std::vector<uint8_t> corruptedPlan(std::function<void(QuantizedMatrixMultiplyParams&)> const& corrupt)
{
    std::vector<uint8_t> const blob = buildCpuPlan(QdqProductNetwork(QdqProductCase{}).maker(), CpuKernels::kFAST);
    plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(plan::readPlan(blob.data(), blob.size(), model, error)) << error;
    for (plan::LayerRecord& layer : model.layers)
    {
        if (auto const* params = plan::paramsOf<QuantizedMatrixMultiplyParams>(layer))
        {
            auto changed = std::make_shared<QuantizedMatrixMultiplyParams>(*params);
            corrupt(*changed);
            layer.params = changed;
        }
    }
    return plan::writePlan(model);
}

TEST(QuantizedMatrixMultiplyFusion, CorruptedFusedRecordsAreRefusedOnLoad)
{
    std::vector<std::pair<std::function<void(QuantizedMatrixMultiplyParams&)>, std::string>> const cases{
        {[](auto& p) { p.inputScale = 0.0F; }, "input scale"},
        {[](auto& p) { p.outputScale = -1.0F; }, "output scale must be 0"},
        {[](auto& p) { p.columns = 7; }, "7 columns of equal length"},
        {[](auto& p) {
             p.weightScales = network::WeightsBuffer(Weights{DataType::kFLOAT, p.weightScales.data(), 3});
         },
            "one FLOAT weight scale per column (16, not 3)"},
        {[](auto& p) {
             std::vector<float> const values = p.weights.toFloat();
             p.weights = network::WeightsBuffer(Weights{DataType::kFLOAT, values.data(), p.weights.count()});
         },
            "needs INT8 or FP8 weights"},
        {[](auto& p) {
             std::vector<uint8_t> const codes(static_cast<size_t>(p.weights.count()), 0x38); // FP8 ones
             p.weights = network::WeightsBuffer(Weights{DataType::kFP8, codes.data(), p.weights.count()});
         },
            "with FP8 weights reads FP8 data, not INT8"},
        {[](auto& p) { p.floatType = DataType::kBF16; }, "writes FLOAT or HALF where it does not quantize, not BF16"},
        {[](auto& p) {
             std::vector<float> scales = p.weightScales.toFloat();
             scales[2] = NAN;
             p.weightScales = network::WeightsBuffer(Weights{DataType::kFLOAT, scales.data(), 16});
         },
            "weight scale (nan)"},
        {[](auto& p) {
             p.bias = network::WeightsBuffer(Weights{DataType::kFLOAT, p.bias.data(), 4});
         },
            "bias must be 16 FLOAT values"},
        {[](auto& p) {
             // Columns of 12: the input's rows have 24.
             p.columns = 32;
             std::vector<float> const scales(32, 0.01F);
             p.weightScales = network::WeightsBuffer(Weights{DataType::kFLOAT, scales.data(), 32});
             p.bias = {};
         },
            "rows have 24 elements; the weights' columns 12"},
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
        EXPECT_NE(logger.errors().find("QuantizedMatrixMultiply"), std::string::npos) << logger.errors();
    }
}

} // namespace
} // namespace kiln::test
