// Normalization over the last axes on the CUDA backend: which layers the normalization fusion makes one in CUDA plans
// (read from the plan, without a GPU), and on the GPU the rows' kernel (INormalizationLayer over the last axes) and
// the fused layers (residual sums, LayerNorm's and RMSNorm's expansions) against the CPU reference, over rows of 1,
// 31, 200, 384, 768, 1024, 4097 and 20000 elements (a block per row for a few rows, a warp or part of one per row for
// many, rows too long for registers), FP32, FP16 and BF16, NaN and infinities among them. The networks are
// tests/layers/normalization_networks.h's, which normalization_fusion_test.cpp also checks on the CPU reference alone
// (fused against unfused).
#include "backend_comparison.h"
#include "normalization_networks.h"

#include "backend/cuda/passes/normalization_fusion.h"
#include "network/fused/fused_normalization.h"
#include "network/fused/pointwise.h"

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using namespace kiln::test::norm;

int64_t fusedLayers(kiln::plan::PlanModel const& model)
{
    return layersOfKind(model, kiln::network::kFusedNormalizationLayerType);
}

std::set<std::string> layerNames(kiln::plan::PlanModel const& model)
{
    std::set<std::string> names;
    for (kiln::plan::LayerRecord const& layer : model.layers)
    {
        if (layer.type != LayerType::kCONSTANT)
        {
            names.insert(layer.name);
        }
    }
    return names;
}

std::map<std::string, HostTensor> inputsOf(Case const& c, float offset = 0.0F)
{
    size_t count = 1;
    for (int64_t extent : c.shape)
    {
        count *= static_cast<size_t>(extent);
    }
    std::map<std::string, HostTensor> inputs{{"a", fromFloats(c.shape, valuesOf(count, 0.0F, offset))}};
    if (c.residual)
    {
        std::vector<int64_t> const shape = residualShape(c);
        inputs["b"] = fromFloats(shape, valuesOf(count / static_cast<size_t>(c.shape[0] / shape[0]), 1.3F, 0.5F));
    }
    return inputs;
}

TEST(CudaNormalizationFusion, TransformerBlocksNormalizeTheirResidualSumsInOneLayer)
{
    // Building and reading a CUDA plan needs no GPU.
    Case const postNorm{"post-norm", {2, 16, 64}, Form::kLAYER, 1, 1e-5F, true, true};
    Case const preNorm{"pre-norm", {2, 16, 64}, Form::kLAYER, 1, 1e-5F, true, false, true};
    for (bool fp16 : {false, true})
    {
        kiln::plan::PlanModel const post = cudaPlanOf(networkOf(postNorm), fp16);
        EXPECT_EQ(layerNames(post), (std::set<std::string>{"add bias + add + norm"})) << fp16;
        kiln::plan::PlanModel const pre = cudaPlanOf(networkOf(preNorm), fp16);
        EXPECT_EQ(layerNames(pre), (std::set<std::string>{"add + norm", "next"})) << fp16;
        for (kiln::plan::LayerRecord const& layer : pre.layers)
        {
            if (layer.name == "add + norm")
            {
                EXPECT_EQ(layer.outputs.size(), 2U) << "the sum is written for its other reader";
            }
        }
    }
}

TEST(CudaNormalizationFusion, ExpansionsAreOneLayerNotPointwiseChains)
{
    for (Form form : {Form::kEXPANDED, Form::kEXPANDED_PRODUCT, Form::kRMS_T5, Form::kRMS_LLAMA, Form::kRMS_DIVIDE})
    {
        Case const c{"expansion", {2, 8, 32}, form, 1, 1e-6F, true, false, true};
        for (bool fp16 : {false, true})
        {
            kiln::plan::PlanModel const model = cudaPlanOf(networkOf(c), fp16);
            EXPECT_EQ(fusedLayers(model), 1) << static_cast<int>(form) << " " << fp16;
            EXPECT_EQ(layersOfKind(model, LayerType::kREDUCE), 0) << static_cast<int>(form);
            EXPECT_EQ(layersOfKind(model, kiln::network::kPointwiseLayerType), 0) << static_cast<int>(form);
            EXPECT_EQ(layersOfKind(model, LayerType::kELEMENTWISE), 1) << "only the sum's other reader is left";
        }
    }
}

TEST(CudaNormalizationFusion, GroupNormalizationAndOtherAxesKeepTheirLayer)
{
    auto maker = [](INetworkDefinition& network) {
        ITensor* a = network.addInput("a", DataType::kFLOAT, Dims{4, {2, 6, 5, 3}});
        ITensor* b = network.addInput("b", DataType::kFLOAT, Dims{4, {2, 6, 5, 3}});
        ITensor& s = add(network, *a, *b, "add");
        ITensor* weights = network.addInput("w", DataType::kFLOAT, Dims{4, {1, 6, 1, 1}});
        INormalizationLayer* group = network.addNormalization(s, *weights, *weights, 12U);
        group->setNbGroups(3);
        group->getOutput(0)->setName("y");
        network.markOutput(*group->getOutput(0));
    };
    kiln::plan::PlanModel const model = cudaPlanOf(maker);
    EXPECT_EQ(fusedLayers(model), 0);
    EXPECT_EQ(layersOfKind(model, LayerType::kNORMALIZATION), 1);
}

//! Rows of `length` elements: 5 rows (an odd count, so that the last block of warps is half used).
Case rowsOf(std::string const& name, int64_t length, Form form, bool residual = true)
{
    return Case{name + " " + std::to_string(length), {5, length}, form, 1, 1e-5F, residual, false, residual};
}

std::vector<int64_t> const kLengths{1, 31, 768, 1024, 4097, 20000};

TEST(CudaNormalizationFusion, NormalizationLayerRowsAgreeWithTheReference)
{
    SKIP_WITHOUT_GPU();
    for (int64_t length : kLengths)
    {
        for (WeightKind weights : {WeightKind::kROW, WeightKind::kONE})
        {
            Case c = rowsOf("rows", length, Form::kLAYER, false);
            c.weights = weights;
            for (bool fp16 : {false, true})
            {
                expectBackendsAgree(networkOf(c), inputsOf(c), fp16, c.name);
            }
        }
    }
    // Values 1000 +- 3: a float mean of them is off by more than the deviations' last digits; the kernel corrects it.
    Case const far = rowsOf("far from zero", 4096, Form::kLAYER, false);
    expectBackendsAgree(networkOf(far), inputsOf(far, 1000.0F), false, far.name);
    Case const farShort = rowsOf("far from zero", 768, Form::kLAYER, false);
    expectBackendsAgree(networkOf(farShort), inputsOf(farShort, 1000.0F), false, farShort.name);
}

TEST(CudaNormalizationFusion, ResidualSumsAgreeWithTheUnfusedReference)
{
    SKIP_WITHOUT_GPU();
    for (int64_t length : kLengths)
    {
        Case const c = rowsOf("residual", length, Form::kLAYER);
        Case withBias = c;
        withBias.addedBias = true;
        withBias.name += " with a bias";
        // b of extent 1 along the rows' first axis: each of its rows is read for every row of a.
        Case repeated = withBias;
        repeated.shape = {3, 5, length};
        repeated.repeatedResidual = true;
        repeated.name += ", repeated";
        for (bool fp16 : {false, true})
        {
            expectBackendsAgree(networkOf(c), inputsOf(c), fp16, c.name);
            expectBackendsAgree(networkOf(withBias), inputsOf(withBias), fp16, withBias.name);
            expectBackendsAgree(networkOf(repeated), inputsOf(repeated), fp16, repeated.name);
        }
    }
    Case const twoAxes{"two axes", {3, 4, 6}, Form::kLAYER, 2, 1e-5F, true, true, true};
    expectBackendsAgree(networkOf(twoAxes), inputsOf(twoAxes), false, twoAxes.name);
    expectBackendsAgree(networkOf(twoAxes), inputsOf(twoAxes), true, twoAxes.name);
    // Rows enough to fill the GPU run a warp each, or part of one (fewer run a block each, above); an odd count, so
    // that the last block of warps is half used. 384 FP16 values are 48 packs, on 16 lanes of 3 (Whisper's rows); 200
    // FP32 values 50 packs, on 8 lanes of up to 7.
    for (int64_t length : {31, 200, 384, 768, 1024})
    {
        Case many = rowsOf("many rows", length, Form::kLAYER);
        many.shape = {4099, length};
        many.addedBias = true;
        for (bool fp16 : {false, true})
        {
            expectBackendsAgree(networkOf(many), inputsOf(many), fp16, many.name);
        }
    }
}

TEST(CudaNormalizationFusion, NanAndInfinitiesAgreeWithTheReference)
{
    SKIP_WITHOUT_GPU();
    // A NaN or an infinity among a pack's values: in FP16 the pack converts element by element, not by pairs; its
    // neighbours in the sum output must come out as before, and its row as NaN.
    Case c = rowsOf("special values", 384, Form::kLAYER);
    c.shape = {4099, 384};
    c.addedBias = true;
    std::map<std::string, HostTensor> inputs = inputsOf(c);
    auto* const a = reinterpret_cast<float*>(inputs.at("a").bytes.data());
    auto* const b = reinterpret_cast<float*>(inputs.at("b").bytes.data());
    float const inf = std::numeric_limits<float>::infinity();
    a[5 * 384 + 3] = NAN;
    a[7 * 384 + 100] = inf;
    a[9 * 384 + 17] = -inf;
    b[11 * 384 + 200] = -NAN;
    b[4098 * 384 + 383] = NAN;
    for (bool fp16 : {false, true})
    {
        expectBackendsAgree(networkOf(c), inputs, fp16, c.name);
    }
}

//! The outputs of the CPU reference running `maker`'s plan after the normalization fusion (the fused layers' own
//! reference), built with kFP16 or kBF16 where `precision` says.
std::map<std::string, HostTensor> fusedReference(
    NetworkMaker const& maker, std::map<std::string, HostTensor> const& inputs, DataType precision)
{
    RecordingLogger logger;
    BuildSettings const settings = [precision](IBuilderConfig& config) {
        if (precision == DataType::kBF16)
        {
            config.setFlag(BuilderFlag::kBF16);
        }
    };
    std::unique_ptr<IHostMemory> const plan
        = buildPlan(logger, kiln::Backend::kCPU, maker, precision == DataType::kHALF, settings);
    kiln::plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(plan && kiln::plan::readPlan(plan->data(), plan->size(), model, error)) << error;
    kiln::cuda::fuseNormalizations(model);
    EXPECT_EQ(fusedLayers(model), 1);
    return runPlan(kiln::Backend::kCPU, kiln::plan::writePlan(model), inputs);
}

void expectAgreesWithFusedReference(Case const& c, DataType precision, Tolerance tolerance)
{
    std::map<std::string, HostTensor> const inputs = inputsOf(c);
    std::map<std::string, HostTensor> const expected = fusedReference(networkOf(c), inputs, precision);
    BuildSettings const settings = [precision](IBuilderConfig& config) {
        if (precision == DataType::kBF16)
        {
            config.setFlag(BuilderFlag::kBF16);
        }
    };
    std::map<std::string, HostTensor> const actual
        = runOn(kiln::Backend::kCUDA, networkOf(c), inputs, precision == DataType::kHALF, nullptr, settings);
    ASSERT_EQ(actual.size(), expected.size()) << c.name;
    for (auto const& [name, values] : expected)
    {
        expectClose(actual.at(name), values, tolerance, c.name + " output " + name);
    }
}

TEST(CudaNormalizationFusion, ExpansionsAgreeWithTheFusedReference)
{
    SKIP_WITHOUT_GPU();
    for (Form form : {Form::kEXPANDED, Form::kEXPANDED_PRODUCT, Form::kRMS_T5, Form::kRMS_LLAMA, Form::kRMS_DIVIDE})
    {
        for (int64_t length : kLengths)
        {
            Case const c = rowsOf("expansion " + std::to_string(static_cast<int>(form)), length, form);
            expectAgreesWithFusedReference(c, DataType::kFLOAT, Tolerance(1e-5, 1e-4));
            expectAgreesWithFusedReference(c, DataType::kHALF, Tolerance(2.5e-3, 1e-3));
        }
    }
}

TEST(CudaNormalizationFusion, ExpansionsAgreeWithTheUnfusedReferenceInFp32)
{
    SKIP_WITHOUT_GPU();
    // The unfused layers round every step to FP32; the fused kernel sums in FP32 too: both near the exact values.
    for (Form form : {Form::kEXPANDED, Form::kRMS_T5, Form::kRMS_LLAMA})
    {
        Case const c = rowsOf("unfused " + std::to_string(static_cast<int>(form)), 768, form);
        expectBackendsAgree(networkOf(c), inputsOf(c), false, c.name);
    }
}

TEST(CudaNormalizationFusion, Bf16AgreesWithTheFusedReference)
{
    SKIP_WITHOUT_GPU();
    // One BF16 rounding of the same float result may differ by one unit (2^-8 relative).
    for (Form form : {Form::kLAYER, Form::kRMS_LLAMA})
    {
        for (int64_t length : {31, 768, 4097})
        {
            Case const c = rowsOf("bf16 " + std::to_string(static_cast<int>(form)), length, form);
            expectAgreesWithFusedReference(c, DataType::kBF16, Tolerance(1e-2, 8e-3));
        }
    }
}

} // namespace
