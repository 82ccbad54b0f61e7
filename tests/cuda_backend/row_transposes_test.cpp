// Transposes that only reorder rows, folded across the row-wise layers between them and another reorder
// (backend/cuda/passes/row_transposes.h), on the block PyTorch's nn.MultiheadAttention exports with batch_first
// (torchvision's ViT): [N, L, E] to [L, N, E] before the input projection, the projection split into query, keys and
// values by a transpose, the heads, the attention, the output projection and [L, N, E] back to [N, L, E]. Which
// layers the CUDA plan keeps (without a GPU); the CPU reference running the same plan with and without the fold (the
// same arithmetic, rows stored in another order); and on a GPU the CUDA plan against the CPU reference.
#include "backend_comparison.h"
#include "plan/passes/attention_fusion.h"
#include "backend/cuda/passes/fusion_rules.h"
#include "backend/cuda/passes/reshape_before_transpose.h"
#include "backend/cuda/passes/row_transposes.h"
#include "network/fused/attention.h"
#include "plan/plan_format.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

//! The self-attention block of a batch-first nn.MultiheadAttention, as exported.
struct MultiheadCase
{
    int64_t batch{2};
    int64_t tokens{5};
    int64_t heads{2};
    int64_t depth{8};
    //! The input projection's bias differs from token to token ([L, 1, 3E]): the rows no longer pass alike.
    bool biasPerToken{false};
    //! The input projection's sum is a network output too: it must be written as it is.
    bool projectionObserved{false};

    int64_t width() const
    {
        return heads * depth;
    }

    NetworkMaker maker() const
    {
        MultiheadCase const c = *this;
        return [c](INetworkDefinition& network) {
            int64_t const e = c.width();
            ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{3, {c.batch, c.tokens, e}});
            // The transposes read and write the plan's own type: in FP16, the input's conversion and the output's
            // are other layers' (a normalization and a residual sum in a transformer).
            float const half = 0.5F;
            IConstantLayer* halfLayer = network.addConstant(Dims{3, {1, 1, 1}}, Weights{DataType::kFLOAT, &half, 1});
            IElementWiseLayer* normalized
                = network.addElementWise(*x, *halfLayer->getOutput(0), ElementWiseOperation::kPROD);
            normalized->setName("normalize");
            ITensor* tokensFirst = transposed(network, *normalized->getOutput(0), {1, 0, 2}, "to tokens first");
            ITensor* projected = c.project(network, *tokensFirst, 3 * e, "input projection", c.biasPerToken);
            if (c.projectionObserved)
            {
                projected->setName("projected");
                network.markOutput(*projected);
            }
            ITensor* split = reshaped(network, *projected, {c.tokens, c.batch, 3, e}, "split projections");
            ITensor* unsqueezed = reshaped(network, *split, {1, c.tokens, c.batch, 3, e}, "unsqueeze");
            ITensor* first = transposed(network, *unsqueezed, {3, 1, 2, 0, 4}, "projections first");
            ITensor* squeezed = reshaped(network, *first, {3, c.tokens, c.batch, e}, "squeeze");
            ITensor* operands[3];
            char const* const names[] = {"q", "k", "v"};
            for (int32_t i = 0; i < 3; ++i)
            {
                IConstantLayer* index = network.addConstant(Dims{0, {}}, Weights{DataType::kINT32, &i, 1});
                IGatherLayer* gather = network.addGather(*squeezed, *index->getOutput(0), 0);
                gather->setName((std::string("take ") + names[i]).c_str());
                ITensor* rows = reshaped(network, *gather->getOutput(0), {c.tokens, c.batch * c.heads, c.depth},
                    (std::string("heads of ") + names[i]).c_str());
                ITensor* moved
                    = transposed(network, *rows, {1, 0, 2}, (std::string("move heads of ") + names[i]).c_str());
                operands[i] = reshaped(network, *moved, {c.batch, c.heads, c.tokens, c.depth},
                    (std::string("split heads of ") + names[i]).c_str());
            }
            float const scale = 1.0F / std::sqrt(static_cast<float>(c.depth));
            IConstantLayer* scaleLayer
                = network.addConstant(Dims{4, {1, 1, 1, 1}}, Weights{DataType::kFLOAT, &scale, 1});
            IElementWiseLayer* scaled
                = network.addElementWise(*operands[0], *scaleLayer->getOutput(0), ElementWiseOperation::kPROD);
            scaled->setName("scale q");
            IMatrixMultiplyLayer* scores = network.addMatrixMultiply(
                *scaled->getOutput(0), MatrixOperation::kNONE, *operands[1], MatrixOperation::kTRANSPOSE);
            scores->setName("qk");
            ISoftMaxLayer* softmax = network.addSoftMax(*scores->getOutput(0));
            softmax->setAxes(1U << 3);
            softmax->setName("softmax");
            IMatrixMultiplyLayer* attended = network.addMatrixMultiply(
                *softmax->getOutput(0), MatrixOperation::kNONE, *operands[2], MatrixOperation::kNONE);
            attended->setName("pv");
            ITensor* merged = transposed(network, *attended->getOutput(0), {2, 0, 1, 3}, "tokens first");
            ITensor* flat = reshaped(network, *merged, {c.tokens * c.batch, e}, "merge heads");
            ITensor* output = c.project(network, *flat, e, "output projection", false);
            ITensor* unflat = reshaped(network, *output, {c.tokens, c.batch, e}, "unmerge rows");
            ITensor* batchFirst = transposed(network, *unflat, {1, 0, 2}, "to batch first");
            ITensor* y = &add(network, *x, *batchFirst, "residual");
            y->setName("y");
            network.markOutput(*y);
        };
    }

    //! x . W + b for constant W [.., E, outputs] (extents of 1 before, as many axes as x) and b [.., outputs] (or
    //! [L, 1, outputs] where `perToken`).
    ITensor* project(
        INetworkDefinition& network, ITensor& x, int64_t outputs, std::string const& name, bool perToken) const
    {
        int32_t const rank = x.getDimensions().nbDims;
        int64_t const inputs = x.getDimensions().d[rank - 1];
        Dims weightDims{rank, {}};
        Dims biasDims{rank, {}};
        for (int32_t a = 0; a < rank; ++a)
        {
            weightDims.d[a] = 1;
            biasDims.d[a] = 1;
        }
        weightDims.d[rank - 2] = inputs;
        weightDims.d[rank - 1] = outputs;
        biasDims.d[rank - 1] = outputs;
        biasDims.d[0] = perToken ? tokens : 1;
        IConstantLayer* w
            = network.addConstant(weightDims, keep(weightsOf(static_cast<size_t>(inputs * outputs), 0.3F)));
        IMatrixMultiplyLayer* product
            = network.addMatrixMultiply(x, MatrixOperation::kNONE, *w->getOutput(0), MatrixOperation::kNONE);
        product->setName(name.c_str());
        IConstantLayer* b
            = network.addConstant(biasDims, keep(weightsOf(static_cast<size_t>(volumeOf(biasDims)), 0.7F)));
        IElementWiseLayer* biased
            = network.addElementWise(*product->getOutput(0), *b->getOutput(0), ElementWiseOperation::kSUM);
        biased->setName((name + " bias").c_str());
        return biased->getOutput(0);
    }

    static Weights keep(std::vector<float> values)
    {
        // Kiln copies a constant's weights when the layer is added.
        static std::vector<std::vector<float>> kept;
        kept.push_back(std::move(values));
        return Weights{DataType::kFLOAT, kept.back().data(), static_cast<int64_t>(kept.back().size())};
    }

    static ITensor* reshaped(
        INetworkDefinition& network, ITensor& input, std::vector<int64_t> const& extents, char const* name)
    {
        IShuffleLayer* shuffle = network.addShuffle(input);
        Dims dims{static_cast<int32_t>(extents.size()), {}};
        std::copy(extents.begin(), extents.end(), dims.d);
        shuffle->setReshapeDimensions(dims);
        shuffle->setName(name);
        return shuffle->getOutput(0);
    }

    std::map<std::string, HostTensor> inputs() const
    {
        size_t const count = static_cast<size_t>(batch * tokens * width());
        return {{"x", fromFloats({batch, tokens, width()}, weightsOf(count, 0.1F))}};
    }
};

bool hasLayer(kiln::plan::PlanModel const& model, std::string const& name)
{
    return std::any_of(model.layers.begin(), model.layers.end(),
        [&](kiln::plan::LayerRecord const& layer) { return layer.name == name; });
}

//! The CUDA backend's passes up to the fold, with or without it, on a CPU plan.
void fuseAttentionThenFold(kiln::plan::PlanModel& model, bool fold)
{
    kiln::cuda::moveSplitsBeforeTransposes(model);
    kiln::plan::fuseAttention(model, kiln::cuda::attentionFusions());
    if (fold)
    {
        EXPECT_EQ(kiln::cuda::foldRowTransposes(model), 2U);
    }
}

TEST(CudaRowTransposes, BothBatchFirstTransposesFold)
{
    for (bool fp16 : {false, true})
    {
        SCOPED_TRACE(fp16 ? "FP16" : "FP32");
        kiln::plan::PlanModel const model = cudaPlanOf(MultiheadCase{}.maker(), fp16);
        ASSERT_FALSE(model.layers.empty());
        EXPECT_FALSE(hasLayer(model, "to tokens first"));
        EXPECT_FALSE(hasLayer(model, "to batch first"));
        EXPECT_TRUE(hasLayer(model, "projections first")) << "the split into q, k and v takes the input's reorder";
        std::vector<kiln::plan::LayerRecord const*> const attention
            = layersOfType(model, kiln::network::kAttentionLayerType);
        ASSERT_EQ(attention.size(), 1U);
        // The attention writes [N, L, H, D]: logical [N, H, L, D] axis i is stored axis order[i].
        auto const* params = kiln::plan::paramsOf<kiln::network::AttentionParams>(*attention[0]);
        ASSERT_NE(params, nullptr);
        EXPECT_EQ(std::vector<int32_t>(params->outputAxes.order, params->outputAxes.order + 4),
            (std::vector<int32_t>{0, 2, 1, 3}));
    }
}

TEST(CudaRowTransposes, RowsThatDoNotPassAlikeKeepTheirTranspose)
{
    MultiheadCase perToken;
    perToken.biasPerToken = true;
    kiln::plan::PlanModel const model = cudaPlanOf(perToken.maker(), true);
    ASSERT_FALSE(model.layers.empty());
    EXPECT_TRUE(hasLayer(model, "to tokens first")) << "a bias per token is not one of every row";
    EXPECT_FALSE(hasLayer(model, "to batch first"));

    MultiheadCase observed;
    observed.projectionObserved = true;
    kiln::plan::PlanModel const seen = cudaPlanOf(observed.maker(), true);
    ASSERT_FALSE(seen.layers.empty());
    EXPECT_TRUE(hasLayer(seen, "to tokens first")) << "the projection is an output, in the order it was written";
}

TEST(CudaRowTransposes, TheCpuReferenceComputesTheSameWithTheFold)
{
    // The same layers compute the same values, their rows stored in another order: the CPU reference gives the
    // plan with the fold what it gives the plan without it (within a product's summation order, where its kernels
    // block rows differently).
    MultiheadCase const c;
    for (bool fp16 : {false, true})
    {
        std::string const what = fp16 ? "FP16" : "FP32";
        kiln::plan::PlanModel const folded
            = fusedCpuPlanOf(c.maker(), fp16, [](kiln::plan::PlanModel& model) { fuseAttentionThenFold(model, true); });
        kiln::plan::PlanModel const unfolded = fusedCpuPlanOf(
            c.maker(), fp16, [](kiln::plan::PlanModel& model) { fuseAttentionThenFold(model, false); });
        ASSERT_FALSE(hasLayer(folded, "to batch first")) << what;
        ASSERT_TRUE(hasLayer(unfolded, "to batch first")) << what;
        auto const expected = runPlan(kiln::Backend::kCPU, kiln::plan::writePlan(unfolded), c.inputs());
        auto const actual = runPlan(kiln::Backend::kCPU, kiln::plan::writePlan(folded), c.inputs());
        ASSERT_EQ(actual.count("y"), 1U) << what;
        ASSERT_EQ(expected.count("y"), 1U) << what;
        expectClose(actual.at("y").floats(), expected.at("y").floats(), Tolerance{1e-6, 1e-5}, what);
    }
}

//! x [2, 3, 8, 4] or [2, 3, 4, 8] (`lastAxesFirst`), scaled, then: a transpose of the rows' three axes in a cycle and
//! a product with a bias, split and the split's parts moved first (`lastAxesFirst` false: the cycle folds into that
//! transpose, which reads the chain); or the last two axes swapped, the product and the cycle (the cycle folds into
//! the swap, which writes the chain). A cycle is not its own inverse, as nn.MultiheadAttention's swaps are.
NetworkMaker rowCycle(bool lastAxesFirst)
{
    return [lastAxesFirst](INetworkDefinition& network) {
        MultiheadCase const c;
        ITensor* x
            = network.addInput("x", DataType::kFLOAT, lastAxesFirst ? Dims{4, {2, 3, 8, 4}} : Dims{4, {2, 3, 4, 8}});
        float const half = 0.5F;
        IConstantLayer* halfLayer = network.addConstant(Dims{4, {1, 1, 1, 1}}, Weights{DataType::kFLOAT, &half, 1});
        ITensor* scaled
            = network.addElementWise(*x, *halfLayer->getOutput(0), ElementWiseOperation::kPROD)->getOutput(0);
        ITensor* y = nullptr;
        if (lastAxesFirst)
        {
            ITensor* swapped = transposed(network, *scaled, {0, 1, 3, 2}, "swap the last axes");
            ITensor* projected = c.project(network, *swapped, 6, "projection", false);
            y = transposed(network, *projected, {2, 0, 1, 3}, "cycle rows");
        }
        else
        {
            ITensor* cycled = transposed(network, *scaled, {1, 2, 0, 3}, "cycle rows");
            ITensor* projected = c.project(network, *cycled, 6, "projection", false);
            ITensor* split = MultiheadCase::reshaped(network, *projected, {3, 4, 2, 2, 3}, "split");
            y = transposed(network, *split, {3, 0, 1, 2, 4}, "parts first");
        }
        Dims ones{y->getDimensions().nbDims, {}};
        std::fill_n(ones.d, ones.nbDims, 1);
        IConstantLayer* offset = network.addConstant(ones, Weights{DataType::kFLOAT, &half, 1});
        ITensor* out = &add(network, *y, *offset->getOutput(0), "offset");
        out->setName("y");
        network.markOutput(*out);
    };
}

TEST(CudaRowTransposes, CyclesOfRowsFoldIntoEitherNeighbour)
{
    for (bool lastAxesFirst : {false, true})
    {
        for (bool fp16 : {false, true})
        {
            std::string const what
                = std::string(lastAxesFirst ? "into the writer" : "into the reader") + (fp16 ? ", FP16" : ", FP32");
            NetworkMaker const maker = rowCycle(lastAxesFirst);
            kiln::plan::PlanModel const folded = fusedCpuPlanOf(maker, fp16,
                [&](kiln::plan::PlanModel& model) { EXPECT_EQ(kiln::cuda::foldRowTransposes(model), 1U) << what; });
            EXPECT_FALSE(hasLayer(folded, "cycle rows")) << what;
            Dims const dims = lastAxesFirst ? Dims{4, {2, 3, 8, 4}} : Dims{4, {2, 3, 4, 8}};
            std::map<std::string, HostTensor> const inputs{
                {"x", fromFloats(shapeOf(dims), weightsOf(volumeOf(dims), 0.2F))}};
            auto const expected = runOn(kiln::Backend::kCPU, maker, inputs, fp16);
            auto const actual = runPlan(kiln::Backend::kCPU, kiln::plan::writePlan(folded), inputs);
            ASSERT_EQ(actual.count("y"), 1U) << what;
            EXPECT_EQ(actual.at("y").shape, expected.at("y").shape) << what;
            expectClose(actual.at("y").floats(), expected.at("y").floats(), Tolerance{1e-6, 1e-5}, what);
        }
    }
}

TEST(CudaRowTransposes, CudaPlanAgreesWithTheCpuReference)
{
    SKIP_WITHOUT_GPU();
    MultiheadCase const c;
    for (bool fp16 : {false, true})
    {
        expectBackendsAgree(c.maker(), c.inputs(), fp16, fp16 ? "FP16" : "FP32");
        for (bool lastAxesFirst : {false, true})
        {
            Dims const dims = lastAxesFirst ? Dims{4, {2, 3, 8, 4}} : Dims{4, {2, 3, 4, 8}};
            expectBackendsAgree(rowCycle(lastAxesFirst),
                {{"x", fromFloats(shapeOf(dims), weightsOf(volumeOf(dims), 0.2F))}}, fp16, "a cycle of rows");
        }
    }
}

} // namespace
