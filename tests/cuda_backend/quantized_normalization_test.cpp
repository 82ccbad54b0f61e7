// Fused normalizations that take the Q/DQ layers around them (backend/cuda/passes/normalization_fusion.h), as
// Model Optimizer's quantized BERT puts them: y = LayerNorm(DQ(a codes) + DQ(b codes)), then Q(y) -> DQ for the
// next layers; as its ConvNeXt does, without the residual sum: y = LayerNorm(DQ(a codes)); and as its ViT does, the
// sum read by the next block too (a pre-norm block: the normalization writes the sum beside y), and the plain sum of
// two tensors rounded through a Q -> DQ pair on its way into the normalization while the next block reads the sum
// itself. Without a GPU: which layers the CUDA plan keeps (the DQs, Qs and sums taken into the normalization, FP32 and
// FP16 builds, INT8 and FP8; a DQ that another layer also reads stays), and the fused plan on the CPU reference against
// the unfused one. On a GPU: the CUDA plan against the CPU reference running every layer as written, rows of 31 to
// 20000 elements, few rows (a block each) and many (a warp each).
//
// Tolerance: both compute each row's statistics in their own order (float on the GPU, double on the CPU), so y may
// differ in its last float bit, or in FP16 builds by one FP16 step where it lies near a rounding boundary; where that
// moves y across a boundary of the quantization's grid the code differs by one step (an INT8 code, or an FP8 step:
// 1/8 of the value at most, 2^-9 of the scale below FP8's normal range). Few values lie so close: at most one in a
// hundred may differ, each by one step at most.
#include "backend_comparison.h"

#include "backend/cuda/passes/normalization_fusion.h"
#include "network/fused/fused_normalization.h"
#include "network/fused/pointwise.h"
#include "network/layers/quantize.h"
#include "plan/plan_format.h"

#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using kiln::network::FusedNormalizationParams;

constexpr float kScaleA = 0.05F;
constexpr float kScaleB = 0.02F;

//! One network: rows x length, codes of `type`; `sharedDequantization`: DQ(a) is a network output as well.
struct QuantizedCase
{
    int64_t rows{5};
    int64_t length{768};
    DataType type{DataType::kFP8};
    bool sharedDequantization{false};
    bool residual{true}; //!< false: the normalization reads DQ(a) alone (opset 17's LayerNormalization, ConvNeXt's)
    bool sumRead{false}; //!< the residual sum is an output ("s") too, as a pre-norm block's next block reads it
    //! ViT's: a and b are plain, and their sum (an output "s") reaches the normalization through a Q -> DQ pair
    bool roundedSum{false};

    //! The output quantization's scale: y (about unit variance, scaled by up to 1.3) over the type's range.
    float outputScale() const
    {
        return type == DataType::kFP8 ? 4.0F / 448.0F : 4.0F / 127.0F;
    }
    bool sumIsOutput() const
    {
        return sumRead || roundedSum;
    }
    //! The sum's quantization: a + b lies within about [-4.6, 4.6].
    float sumScale() const
    {
        return type == DataType::kFP8 ? 5.0F / 448.0F : 5.0F / 127.0F;
    }
    std::string name() const
    {
        return std::to_string(rows) + " x " + std::to_string(length) + (type == DataType::kFP8 ? " FP8" : " INT8")
            + (sharedDequantization ? ", DQ(a) also an output" : "") + (residual ? "" : ", no residual")
            + (sumRead ? ", the sum an output" : "") + (roundedSum ? ", the plain sum through a Q/DQ pair" : "");
    }
};

//! Constants the network's weights point to, alive while the builder reads them.
struct Constants
{
    std::deque<float> scalars;
    std::deque<std::vector<float>> rows;
};

ITensor& scalar(INetworkDefinition& network, Constants& held, float value)
{
    held.scalars.push_back(value);
    return *network.addConstant(Dims{}, Weights{DataType::kFLOAT, &held.scalars.back(), 1})->getOutput(0);
}

ITensor& row(INetworkDefinition& network, Constants& held, int64_t length, float base)
{
    std::vector<float>& values = held.rows.emplace_back(static_cast<size_t>(length));
    for (size_t j = 0; j < values.size(); ++j)
    {
        values[j] = base + 0.3F * std::sin(0.7F * static_cast<float>(j));
    }
    return *network.addConstant(Dims2{1, length}, Weights{DataType::kFLOAT, values.data(), length})->getOutput(0);
}

ITensor& quantizeDequantize(
    INetworkDefinition& network, Constants& held, ITensor& x, float scale, DataType type, char const* name)
{
    IQuantizeLayer* q = network.addQuantize(x, scalar(network, held, scale), type);
    q->setName((std::string(name) + " Q").c_str());
    IDequantizeLayer* dq = network.addDequantize(*q->getOutput(0), scalar(network, held, scale), DataType::kFLOAT);
    dq->setName((std::string(name) + " DQ").c_str());
    return *dq->getOutput(0);
}

//! What the normalization reads: DQ(a) (+ DQ(b)), or Q -> DQ(a + b) where the sum is rounded.
ITensor& normalizationInput(INetworkDefinition& network, Constants& held, QuantizedCase const& c)
{
    Dims2 const dims{c.rows, c.length};
    ITensor& a = *network.addInput("a", DataType::kFLOAT, dims);
    if (c.roundedSum)
    {
        ITensor& s = add(network, a, *network.addInput("b", DataType::kFLOAT, dims), "residual sum");
        s.setName("s");
        network.markOutput(s);
        return quantizeDequantize(network, held, s, c.sumScale(), c.type, "s");
    }
    ITensor& aValues = quantizeDequantize(network, held, a, kScaleA, c.type, "a");
    if (c.sharedDequantization)
    {
        aValues.setName("a dequantized");
        network.markOutput(aValues);
    }
    if (!c.residual)
    {
        return aValues;
    }
    ITensor& b
        = quantizeDequantize(network, held, *network.addInput("b", DataType::kFLOAT, dims), kScaleB, c.type, "b");
    ITensor& s = add(network, aValues, b, "residual sum");
    if (c.sumRead)
    {
        s.setName("s");
        network.markOutput(s);
    }
    return s;
}

NetworkMaker networkOf(QuantizedCase const& c)
{
    auto held = std::make_shared<Constants>();
    return [c, held](INetworkDefinition& network) {
        INormalizationLayer* norm = network.addNormalization(normalizationInput(network, *held, c),
            row(network, *held, c.length, 1.0F), row(network, *held, c.length, 0.1F), 1U << 1);
        norm->setName("layer norm");
        ITensor& y = quantizeDequantize(network, *held, *norm->getOutput(0), c.outputScale(), c.type, "y");
        y.setName("y");
        network.markOutput(y);
    };
}

//! Rows whose values differ from row to row and along each row, over about [-3, 3] for a and [-1.5, 1.5] for b.
std::map<std::string, HostTensor> inputsOf(QuantizedCase const& c)
{
    auto const values = [&](float amplitude, float phase) {
        std::vector<float> v(static_cast<size_t>(c.rows * c.length));
        for (size_t i = 0; i < v.size(); ++i)
        {
            v[i] = amplitude * std::sin(0.37F * static_cast<float>(i) + phase) + 0.01F * static_cast<float>(i % 7);
        }
        return v;
    };
    std::vector<int64_t> const shape{c.rows, c.length};
    std::map<std::string, HostTensor> inputs{{"a", fromFloats(shape, values(3.0F, 0.0F))}};
    if (c.residual || c.roundedSum)
    {
        inputs.emplace("b", fromFloats(shape, values(1.5F, 1.0F)));
    }
    return inputs;
}

//! Whether `actual` is within one step of the quantization grid of `scale` from `expected` (see the file's comment),
//! each value rounded to FP16 by y's DQ in FP16 builds (2^-11 of it at most).
bool withinOneStep(float actual, float expected, float scale, DataType type)
{
    float const step = type == DataType::kINT8 ? scale : std::max(std::fabs(expected) / 8.0F, scale * 0x1p-9F);
    return std::fabs(actual - expected) <= step * 1.001F + (std::fabs(actual) + std::fabs(expected)) * 0x1p-11F;
}

void expectQuantizedOutputsAgree(
    HostTensor const& actual, HostTensor const& expected, QuantizedCase const& c, std::string const& what)
{
    std::vector<float> const a = actual.floats();
    std::vector<float> const e = expected.floats();
    ASSERT_EQ(a.size(), e.size()) << what;
    size_t differing = 0;
    size_t beyondOneStep = 0;
    for (size_t i = 0; i < a.size(); ++i)
    {
        differing += a[i] != e[i] ? 1 : 0;
        if (!withinOneStep(a[i], e[i], c.outputScale(), c.type))
        {
            ADD_FAILURE_AT(__FILE__, __LINE__) << what << ": element " << i << " is " << a[i] << ", expected " << e[i]
                                               << ", more than one step of the grid apart";
            if (++beyondOneStep == 5)
            {
                return;
            }
        }
    }
    EXPECT_LE(differing * 100, a.size()) << what << ": " << differing << " of " << a.size() << " values differ";
}

//! The residual sums agree: both add the same dequantized values, rounded to the value type, in one order.
void expectSumsAgree(std::map<std::string, HostTensor> const& actual, std::map<std::string, HostTensor> const& expected,
    std::string const& what)
{
    ASSERT_EQ(actual.count("s"), 1U) << what;
    std::vector<float> const a = actual.at("s").floats();
    std::vector<float> const e = expected.at("s").floats();
    ASSERT_EQ(a.size(), e.size()) << what;
    for (size_t i = 0; i < a.size(); ++i)
    {
        ASSERT_EQ(a[i], e[i]) << what << ": the sum's element " << i;
    }
}

//! The fused normalizations of `model`, and how many Q and DQ layers it keeps.
struct PlanFacts
{
    std::vector<FusedNormalizationParams> norms;
    int64_t quantizations{0};
    int64_t dequantizations{0};
    int64_t pointwise{0}; //!< fused point-wise chains
};

PlanFacts factsOf(kiln::plan::PlanModel const& model)
{
    PlanFacts facts;
    for (kiln::plan::LayerRecord const& layer : model.layers)
    {
        if (auto const* norm = dynamic_cast<FusedNormalizationParams const*>(layer.params.get()))
        {
            facts.norms.push_back(*norm);
        }
        facts.quantizations += dynamic_cast<kiln::network::QuantizeParams const*>(layer.params.get()) ? 1 : 0;
        facts.dequantizations += dynamic_cast<kiln::network::DequantizeParams const*>(layer.params.get()) ? 1 : 0;
        facts.pointwise += layer.type == kiln::network::kPointwiseLayerType ? 1 : 0;
    }
    return facts;
}

//! Calls `check` with `base` of FP8 and of INT8 codes, each in an FP32 and an FP16 build, and the case's name.
void forEveryKind(QuantizedCase const& base,
    std::function<void(QuantizedCase const& c, bool fp16, std::string const& what)> const& check)
{
    for (DataType type : {DataType::kFP8, DataType::kINT8})
    {
        for (bool fp16 : {false, true})
        {
            QuantizedCase c = base;
            c.type = type;
            check(c, fp16, c.name() + (fp16 ? " FP16" : " FP32"));
        }
    }
}

TEST(CudaQuantizedNormalization, TakesTheDequantizedOperandsAndTheOutputQuantization)
{
    // Also where the normalization writes the sum as well (a pre-norm block's), y's Q then among its first output's
    // readers.
    for (bool sumRead : {false, true})
    {
        QuantizedCase base;
        base.sumRead = sumRead;
        forEveryKind(base, [](QuantizedCase const& c, bool fp16, std::string const& what) {
            PlanFacts const facts = factsOf(cudaPlanOf(networkOf(c), fp16));
            ASSERT_EQ(facts.norms.size(), 1U) << what;
            FusedNormalizationParams const& norm = facts.norms[0];
            EXPECT_FLOAT_EQ(norm.inputScale * norm.residualScale, kScaleA * kScaleB) << what;
            EXPECT_FLOAT_EQ(norm.outputScale, c.outputScale()) << what;
            EXPECT_EQ(norm.valueType, fp16 ? DataType::kHALF : DataType::kFLOAT) << what;
            // Left: a's and b's Qs, and y's DQ.
            EXPECT_EQ(facts.quantizations, 2) << what;
            EXPECT_EQ(facts.dequantizations, 1) << what;
        });
    }
}

TEST(CudaQuantizedNormalization, ANormalizationWithoutAResidualTakesThemToo)
{
    QuantizedCase base;
    base.residual = false;
    forEveryKind(base, [](QuantizedCase const& c, bool fp16, std::string const& what) {
        PlanFacts const facts = factsOf(cudaPlanOf(networkOf(c), fp16));
        ASSERT_EQ(facts.norms.size(), 1U) << what << ": the INormalizationLayer should become a fused normalization";
        FusedNormalizationParams const& norm = facts.norms[0];
        EXPECT_FLOAT_EQ(norm.inputScale, kScaleA) << what;
        EXPECT_EQ(norm.residualScale, 0.0F) << what;
        EXPECT_FLOAT_EQ(norm.outputScale, c.outputScale()) << what;
        EXPECT_EQ(norm.valueType, fp16 ? DataType::kHALF : DataType::kFLOAT) << what;
        // Left: a's Q and y's DQ.
        EXPECT_EQ(facts.quantizations, 1) << what;
        EXPECT_EQ(facts.dequantizations, 1) << what;
    });
}

TEST(CudaQuantizedNormalization, TakesTheSumAndTheQuantizationPairBetweenThem)
{
    QuantizedCase base;
    base.roundedSum = true;
    forEveryKind(base, [](QuantizedCase const& c, bool fp16, std::string const& what) {
        PlanFacts const facts = factsOf(cudaPlanOf(networkOf(c), fp16));
        ASSERT_EQ(facts.norms.size(), 1U) << what;
        FusedNormalizationParams const& norm = facts.norms[0];
        EXPECT_FLOAT_EQ(norm.sumScale, c.sumScale()) << what;
        EXPECT_EQ(norm.sumCodeType, c.type) << what;
        EXPECT_EQ(norm.inputScale + norm.residualScale, 0.0F) << what << ": a and b are plain";
        EXPECT_FLOAT_EQ(norm.outputScale, c.outputScale()) << what;
        // Left: y's DQ. The sum, its Q -> DQ pair and y's Q are the normalization's.
        EXPECT_EQ(facts.quantizations, 0) << what;
        EXPECT_EQ(facts.dequantizations, 1) << what;
        EXPECT_EQ(facts.pointwise, 0) << what;
    });
}

TEST(CudaQuantizedNormalization, ADequantizationOthersReadStays)
{
    QuantizedCase c;
    c.sharedDequantization = true;
    PlanFacts const facts = factsOf(cudaPlanOf(networkOf(c), true));
    ASSERT_EQ(facts.norms.size(), 1U);
    FusedNormalizationParams const& norm = facts.norms[0];
    // a's DQ is an output too: the normalization reads its FP16 values, which a's Q -> DQ pair, one point-wise step,
    // writes; b's codes and y's Q are taken.
    EXPECT_EQ(std::min(norm.inputScale, norm.residualScale), 0.0F);
    EXPECT_FLOAT_EQ(std::max(norm.inputScale, norm.residualScale), kScaleB);
    EXPECT_GT(norm.outputScale, 0.0F);
    EXPECT_EQ(facts.dequantizations, 1);
    EXPECT_EQ(facts.quantizations, 1);
    EXPECT_EQ(facts.pointwise, 1);
}

//! The CPU plan of `c` with the CUDA backend's normalization fusion applied.
kiln::plan::PlanModel fusedCpuModel(QuantizedCase const& c, bool fp16)
{
    kiln::plan::PlanModel model = fusedCpuPlanOf(networkOf(c), fp16, kiln::cuda::fuseNormalizations);
    PlanFacts const facts = factsOf(model);
    EXPECT_EQ(facts.dequantizations, 1);
    EXPECT_EQ(facts.norms.size() == 1 && facts.norms[0].sumScale > 0.0F, c.roundedSum);
    return model;
}

TEST(CudaQuantizedNormalization, FusedReferenceAgreesWithTheUnfusedLayers)
{
    for (int variant = 0; variant < 4; ++variant)
    {
        QuantizedCase base;
        base.residual = variant != 1;
        base.sumRead = variant == 2;
        base.roundedSum = variant == 3;
        forEveryKind(base, [](QuantizedCase const& c, bool fp16, std::string const& what) {
            auto const inputs = inputsOf(c);
            auto const unfused = runOn(kiln::Backend::kCPU, networkOf(c), inputs, fp16);
            auto const fused = runPlan(kiln::Backend::kCPU, kiln::plan::writePlan(fusedCpuModel(c, fp16)), inputs);
            ASSERT_EQ(fused.count("y"), 1U) << what;
            expectQuantizedOutputsAgree(fused.at("y"), unfused.at("y"), c, what);
            if (c.sumIsOutput())
            {
                expectSumsAgree(fused, unfused, what);
            }
        });
    }
}

TEST(CudaQuantizedNormalization, ScalesAndCodeTypesAreCheckedWithThePlan)
{
    kiln::plan::PlanModel const model = fusedCpuModel(QuantizedCase{}, false);
    std::string error;
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        if (auto const* norm = dynamic_cast<FusedNormalizationParams const*>(model.layers[l].params.get()))
        {
            kiln::plan::PlanModel damaged = model;
            auto params = std::make_shared<FusedNormalizationParams>(*norm);
            params->outputScale = -1.0F;
            damaged.layers[l].params = params;
            std::vector<uint8_t> const bytes = kiln::plan::writePlan(damaged);
            kiln::plan::PlanModel read;
            EXPECT_FALSE(kiln::plan::readPlan(bytes.data(), bytes.size(), read, error));
            EXPECT_NE(error.find("quantization scale"), std::string::npos) << error;

            params->outputScale = 0.0F; // y then must be floating point, but the layer writes FP8
            std::vector<uint8_t> const untyped = kiln::plan::writePlan(damaged);
            EXPECT_FALSE(kiln::plan::readPlan(untyped.data(), untyped.size(), read, error));
            EXPECT_NE(error.find("FLOAT, HALF or BF16"), std::string::npos) << error;

            *params = *norm;
            params->sumScale = 0.1F;
            params->sumCodeType = DataType::kHALF;
            std::vector<uint8_t> const uncoded = kiln::plan::writePlan(damaged);
            EXPECT_FALSE(kiln::plan::readPlan(uncoded.data(), uncoded.size(), read, error));
            EXPECT_NE(error.find("not INT8 or FP8"), std::string::npos) << error;
        }
    }
}

TEST(CudaQuantizedNormalization, AgreesWithTheUnfusedCpuReference)
{
    SKIP_WITHOUT_GPU();
    auto const check = [](QuantizedCase const& c, bool fp16, std::string const& what) {
        auto const inputs = inputsOf(c);
        auto const cpu = runOn(kiln::Backend::kCPU, networkOf(c), inputs, fp16);
        auto const gpu = runOn(kiln::Backend::kCUDA, networkOf(c), inputs, fp16);
        ASSERT_EQ(gpu.count("y"), 1U) << what;
        expectQuantizedOutputsAgree(gpu.at("y"), cpu.at("y"), c, what);
        if (c.sumIsOutput())
        {
            expectSumsAgree(gpu, cpu, what);
        }
    };
    for (int64_t length : {31, 768, 1024, 4097, 20000})
    {
        for (int64_t rows : {int64_t{5}, int64_t{4099}})
        {
            if (rows * length > 4099 * 1024)
            {
                continue;
            }
            QuantizedCase base;
            base.rows = rows;
            base.length = length;
            forEveryKind(base, check);
            base.sumRead = true;
            forEveryKind(base, check);
            base.sumRead = false;
            base.roundedSum = true;
            forEveryKind(base, check);
        }
    }
    // Without a residual, at ConvNeXt-T's smallest and largest channel counts.
    for (int64_t length : {96, 768})
    {
        QuantizedCase base;
        base.rows = 3136;
        base.length = length;
        base.residual = false;
        forEveryKind(base, check);
    }
}

} // namespace
