// GELU as PyTorch exports it to ONNX below opset 20, x * 0.5 * (1 + erf(x / sqrt(2))) in five element-wise layers:
// the CPU build makes it one activation, which a linear layer before it takes into its epilogue; in each order of
// the factors, against the reference kernels (which run the five layers as written); and what is not a GELU stays.
// The same for the tanh approximation in GPT-2's eight layers.
#include "fast_path_comparison.h"
#include "layer_helpers.h"

#include "network/fused/pointwise.h"

#include <algorithm>
#include <cmath>

namespace kiln::test
{
namespace
{

//! Where the 0.5 comes in.
enum class Order
{
    kLAST,     //!< (x * (1 + erf)) * 0.5
    kFIRST,    //!< (x * 0.5) * (1 + erf)
    kWITH_ERF, //!< x * ((1 + erf) * 0.5)
};

class GeluNetwork
{
public:
    GeluNetwork(Order order, float divisor = std::sqrt(2.0F))
        : mOrder(order)
        , mDivisor{divisor}
    {
    }

    //! GELU of x, each layer named as the ONNX node it stands for.
    ITensor& add(INetworkDefinition& network, ITensor& x) const
    {
        ITensor& erf = unary(network, binary(network, x, scalar(network, mDivisor, "sqrt2"), Operation::kDIV, "div"));
        ITensor& onePlus = binary(network, erf, scalar(network, mOne, "one"), Operation::kSUM, "add");
        ITensor& half = scalar(network, mHalf, "half");
        auto times = [&](ITensor& a, ITensor& b, char const* name) -> ITensor& {
            return binary(network, a, b, Operation::kPROD, name);
        };
        switch (mOrder)
        {
        case Order::kLAST: return times(times(x, onePlus, "mul"), half, "gelu");
        case Order::kFIRST: return times(times(x, half, "mul"), onePlus, "gelu");
        case Order::kWITH_ERF: return times(x, times(onePlus, half, "mul"), "gelu");
        }
        return x;
    }

private:
    using Operation = ElementWiseOperation;

    //! A constant of one element, of rank 3 as the parser makes scalars broadcast to a rank-3 x.
    static ITensor& scalar(INetworkDefinition& network, std::vector<float> const& value, char const* name)
    {
        return constantOf(network, {1, 1, 1}, value, name);
    }

    static ITensor& binary(INetworkDefinition& network, ITensor& a, ITensor& b, Operation operation, char const* name)
    {
        IElementWiseLayer* layer = network.addElementWise(a, b, operation);
        layer->setName(name);
        return *layer->getOutput(0);
    }

    static ITensor& unary(INetworkDefinition& network, ITensor& x)
    {
        IUnaryLayer* layer = network.addUnary(x, UnaryOperation::kERF);
        layer->setName("erf");
        return *layer->getOutput(0);
    }

    Order mOrder;
    std::vector<float> mDivisor;
    std::vector<float> mOne{1.0F};
    std::vector<float> mHalf{0.5F};
};

//! x [2, 7, 16] times constant weights [16, 24] plus a bias, then the GELU.
std::map<std::string, bool> linearThenGelu(GeluNetwork const& gelu)
{
    std::vector<float> const weights = randomValues(16 * 24, 1);
    std::vector<float> const bias = randomValues(24, 2);
    auto maker = [&](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims3{2, 7, 16});
        IMatrixMultiplyLayer* product = network.addMatrixMultiply(
            *x, MatrixOperation::kNONE, constantOf(network, {1, 16, 24}, weights, "weights"), MatrixOperation::kNONE);
        product->setName("fc");
        ITensor& biased
            = sumOf(network, *product->getOutput(0), constantOf(network, {1, 1, 24}, bias, "bias"), "bias add");
        markOutput(network, gelu.add(network, biased));
    };
    return expectFastMatchesReference(maker, {{{"x", randomTensor({2, 7, 16}, 3)}}}, reductionTolerance(17));
}

TEST(FastGelu, EachOrderOfTheFactorsBecomesTheLinearLayersEpilogue)
{
    std::map<std::string, bool> const last = linearThenGelu(GeluNetwork(Order::kLAST));
    EXPECT_EQ(last,
        (std::map<std::string, bool>{{"weights", false}, {"fc + bias add + div + erf + add + mul + gelu", true}}));
    std::map<std::string, bool> const first = linearThenGelu(GeluNetwork(Order::kFIRST));
    EXPECT_EQ(first.count("fc + bias add + div + erf + add + mul + gelu"), 1U);
    std::map<std::string, bool> const withErf = linearThenGelu(GeluNetwork(Order::kWITH_ERF));
    EXPECT_EQ(withErf.count("fc + bias add + div + erf + add + mul + gelu"), 1U);
}

TEST(FastGelu, OnItsOwnItIsOneActivation)
{
    GeluNetwork const gelu(Order::kLAST);
    auto maker = [&](INetworkDefinition& network) {
        markOutput(network, gelu.add(network, *network.addInput("x", DataType::kFLOAT, Dims3{3, 5, 40})));
    };
    std::map<std::string, bool> const layers
        = expectFastMatchesReference(maker, {{{"x", randomTensor({3, 5, 40}, 4)}}}, Tolerance(1e-6, 1e-5));
    ASSERT_EQ(layers.size(), 1U);
    EXPECT_EQ(layers.begin()->first, "div + erf + add + mul + gelu");
}

//! GELU's tanh approximation of x as GPT-2's export spells it, in eight layers named as its ONNX nodes:
//! (x * 0.5) * (1 + tanh(sqrt(2 / pi) * (x + x^3 * 0.044715))).
ITensor& tanhGelu(INetworkDefinition& network, ITensor& x, std::vector<float> const& constants)
{
    auto scalar = [&](size_t i, char const* name) -> ITensor& {
        return constantOf(network, {1, 1, 1}, {constants[i]}, name);
    };
    auto binary = [&](ITensor& a, ITensor& b, ElementWiseOperation operation, char const* name) -> ITensor& {
        IElementWiseLayer* layer = network.addElementWise(a, b, operation);
        layer->setName(name);
        return *layer->getOutput(0);
    };
    ITensor& half = binary(x, scalar(0, "half"), ElementWiseOperation::kPROD, "Mul");
    ITensor& cube = binary(x, scalar(1, "three"), ElementWiseOperation::kPOW, "Pow");
    ITensor& cubic = binary(cube, scalar(2, "c"), ElementWiseOperation::kPROD, "Mul_1");
    ITensor& inner = binary(x, cubic, ElementWiseOperation::kSUM, "Add");
    ITensor& scaled = binary(inner, scalar(3, "k"), ElementWiseOperation::kPROD, "Mul_2");
    IActivationLayer* tanh = network.addActivation(scaled, ActivationType::kTANH);
    tanh->setName("Tanh");
    ITensor& onePlus = binary(*tanh->getOutput(0), scalar(4, "one"), ElementWiseOperation::kSUM, "Add_1");
    return binary(half, onePlus, ElementWiseOperation::kPROD, "Mul_3");
}

TEST(FastGelu, TheTanhFormAsGpt2ExportsItIsOneActivation)
{
    std::vector<float> const gpt2{0.5F, 3.0F, 0.044715F, 0.7978845608F, 1.0F};
    auto maker = [&](INetworkDefinition& network) {
        markOutput(network, tanhGelu(network, *network.addInput("x", DataType::kFLOAT, Dims3{3, 5, 40}), gpt2));
    };
    std::map<std::string, bool> const layers
        = expectFastMatchesReference(maker, {{{"x", randomTensor({3, 5, 40}, 6)}}}, Tolerance(1e-6, 1e-5));
    ASSERT_EQ(layers.size(), 1U);
    EXPECT_EQ(layers.begin()->first, "Pow + Mul_1 + Add + Mul_2 + Tanh + Add_1 + Mul + Mul_3");

    // With x^2 in place of x^3 it is not a GELU: the layers stay as written (one point-wise chain).
    std::vector<float> const squared{0.5F, 2.0F, 0.044715F, 0.7978845608F, 1.0F};
    auto notGelu = [&](INetworkDefinition& network) {
        markOutput(network, tanhGelu(network, *network.addInput("x", DataType::kFLOAT, Dims3{3, 5, 40}), squared));
    };
    std::map<std::string, bool> const kept
        = expectFastMatchesReference(notGelu, {{{"x", randomTensor({3, 5, 40}, 7)}}}, Tolerance(1e-6, 1e-5));
    EXPECT_EQ(kept.count("Pow + Mul_1 + Add + Mul_2 + Tanh + Add_1 + Mul + Mul_3"), 0U);
}

TEST(FastGelu, OtherExpressionsStayAsWritten)
{
    // erf(x / 2): not a GELU.
    GeluNetwork const notGelu(Order::kLAST, 2.0F);
    auto maker = [&](INetworkDefinition& network) {
        markOutput(network, notGelu.add(network, *network.addInput("x", DataType::kFLOAT, Dims3{3, 5, 40})));
    };
    expectFastMatchesReference(maker, {{{"x", randomTensor({3, 5, 40}, 5)}}}, Tolerance(1e-6, 1e-5));
    // Not one activation: the five layers as written, which the point-wise fusion then runs as one chain.
    std::vector<uint8_t> const blob = buildCpuPlan(maker, CpuKernels::kFAST);
    plan::PlanModel model;
    std::string error;
    ASSERT_TRUE(plan::readPlan(blob.data(), blob.size(), model, error)) << error;
    auto const chain = std::find_if(model.layers.begin(), model.layers.end(),
        [](plan::LayerRecord const& layer) { return layer.name == "div + erf + add + mul + gelu"; });
    ASSERT_NE(chain, model.layers.end());
    EXPECT_EQ(chain->type, network::kPointwiseLayerType);
}

} // namespace
} // namespace kiln::test
