// Matrix multiply on the CUDA backend through cuBLASLt: which chains the builder fuses into
// cuBLASLt's epilogue (read from the CUDA plan, without a GPU), and that fused and plain
// products compute what the CPU reference computes unfused: transposes, vectors, batch
// broadcasting, sizes that are not multiples of 8, shapes that change between runs.
#include "backend/cuda/libraries/cublaslt/matrix_multiply_geometry.h"
#include "backend/cuda/tuning/algorithm_choice.h"
#include "backend_comparison.h"
#include "network/layers/matrix_multiply.h"

#include <optional>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using Op = MatrixOperation;

//! Values in [-scale, scale) that vary irregularly with the position and the seed, so that a misplaced element
//! shows and sums of many products stay small.
std::vector<float> valuesOf(size_t count, uint32_t seed, float scale)
{
    std::vector<float> values(count);
    uint32_t state = seed * 2654435761U + 12345U;
    for (float& value : values)
    {
        state = state * 1664525U + 1013904223U;
        value = scale * (static_cast<float>(state >> 8) / 8388608.0F - 1.0F);
    }
    return values;
}

ITensor& constant(INetworkDefinition& network, Dims const& dims, std::vector<float> const& values, char const* name)
{
    IConstantLayer* layer
        = network.addConstant(dims, Weights{DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())});
    layer->setName(name);
    return *layer->getOutput(0);
}

void output(INetworkDefinition& network, ITensor& tensor, char const* name)
{
    tensor.setName(name);
    network.markOutput(tensor);
}

//! A fully connected layer as a network: y = [relu](op(a) op(b) [+ bias]), a and b network inputs. The bias, where
//! `biasDims` has axes, is a constant of those dimensions; with `reshapedBias` it is a constant of N values that a
//! shuffle reshapes to `biasDims`, as the ONNX parser imports Gemm's C input.
struct FullyConnected
{
    Dims a;
    Op opA{Op::kNONE};
    Dims b;
    Op opB{Op::kNONE};
    Dims biasDims{0, {}};
    bool withRelu{false};
    bool reshapedBias{false};
    float scale{0.5F}; //!< the inputs' values lie in [-scale, scale)

    NetworkMaker maker() const
    {
        FullyConnected const c = *this;
        std::vector<float> const bias = valuesOf(volumeOf(biasDims), 7, 0.5F);
        return [c, bias](INetworkDefinition& network) {
            ITensor* inputA = network.addInput("a", DataType::kFLOAT, c.a);
            ITensor* inputB = network.addInput("b", DataType::kFLOAT, c.b);
            IMatrixMultiplyLayer* product = network.addMatrixMultiply(*inputA, c.opA, *inputB, c.opB);
            product->setName("fc");
            ITensor* y = product->getOutput(0);
            if (c.biasDims.nbDims > 0)
            {
                ITensor* values = nullptr;
                if (c.reshapedBias)
                {
                    Dims const flat{1, {static_cast<int64_t>(bias.size())}};
                    IShuffleLayer* reshape = network.addShuffle(constant(network, flat, bias, "bias"));
                    reshape->setReshapeDimensions(c.biasDims);
                    reshape->setName("reshape");
                    values = reshape->getOutput(0);
                }
                else
                {
                    values = &constant(network, c.biasDims, bias, "bias");
                }
                y = &add(network, *y, *values, "add");
            }
            if (c.withRelu)
            {
                y = &relu(network, *y, "relu");
            }
            output(network, *y, "y");
        };
    }

    std::map<std::string, HostTensor> inputs() const
    {
        return {{"a", fromFloats(shapeOf(a), valuesOf(volumeOf(a), 1, scale))},
            {"b", fromFloats(shapeOf(b), valuesOf(volumeOf(b), 2, scale))}};
    }
};

//! The record of the layer named `name` in `model`'s layers.
kiln::plan::LayerRecord const* layerNamed(kiln::plan::PlanModel const& model, std::string const& name)
{
    for (kiln::plan::LayerRecord const& layer : model.layers)
    {
        if (layer.name == name)
        {
            return &layer;
        }
    }
    return nullptr;
}

Dims const k5x7{2, {5, 7}};
Dims const k7x3{2, {7, 3}};
Dims const kRow3{2, {1, 3}};

//! Inputs a [5, 7] and b [7, 3] of `network` and their product, a layer named `name`.
ITensor& productOfInputs(INetworkDefinition& network, char const* name = "fc")
{
    ITensor* a = network.addInput("a", DataType::kFLOAT, k5x7);
    ITensor* b = network.addInput("b", DataType::kFLOAT, k7x3);
    IMatrixMultiplyLayer* product = network.addMatrixMultiply(*a, Op::kNONE, *b, Op::kNONE);
    product->setName(name);
    return *product->getOutput(0);
}

// ---- Which chains fuse (no GPU needed) ----

TEST(CudaMatrixMultiplyFusion, BiasAndReluBecomeTheProductsEpilogue)
{
    FullyConnected const biasRelu{k5x7, Op::kNONE, k7x3, Op::kNONE, kRow3, true};
    kiln::plan::PlanModel const model = cudaPlanOf(biasRelu.maker());
    // The bias constant, read by nothing else any more, is gone too.
    ASSERT_EQ(model.layers.size(), 1U);
    kiln::plan::LayerRecord const& fused = model.layers[0];
    EXPECT_EQ(fused.name, "fc + add + relu");
    EXPECT_EQ(fused.type, LayerType::kMATRIX_MULTIPLY);
    EXPECT_TRUE(fused.epilogue.relu());
    ASSERT_EQ(fused.epilogue.bias.type(), DataType::kFLOAT);
    EXPECT_EQ(fused.epilogue.bias.toFloat(), valuesOf(3, 7, 0.5F));

    FullyConnected const biasOnly{k5x7, Op::kNONE, k7x3, Op::kNONE, kRow3, false};
    EXPECT_EQ(layerNamesOfCudaPlan(biasOnly.maker()), std::vector<std::string>{"fc + add"});
    FullyConnected const reluOnly{k5x7, Op::kNONE, k7x3, Op::kNONE, Dims{0, {}}, true};
    EXPECT_EQ(layerNamesOfCudaPlan(reluOnly.maker()), std::vector<std::string>{"fc + relu"});
    FullyConnected const transposed{Dims{2, {7, 5}}, Op::kTRANSPOSE, Dims{2, {3, 7}}, Op::kTRANSPOSE, kRow3, true};
    EXPECT_EQ(layerNamesOfCudaPlan(transposed.maker()), std::vector<std::string>{"fc + add + relu"});
}

TEST(CudaMatrixMultiplyFusion, GemmsBiasReshapedFromNValuesFusesAsWell)
{
    // The ONNX parser imports Gemm's C of shape [N] as a constant reshaped to [1, N].
    FullyConnected const gemm{k5x7, Op::kNONE, k7x3, Op::kNONE, kRow3, true, true};
    EXPECT_EQ(layerNamesOfCudaPlan(gemm.maker()), std::vector<std::string>{"fc + add + relu"});
}

TEST(CudaMatrixMultiplyFusion, AnFp16PlanStoresTheBiasInHalf)
{
    FullyConnected const biasRelu{k5x7, Op::kNONE, k7x3, Op::kNONE, kRow3, true};
    kiln::plan::PlanModel const model = cudaPlanOf(biasRelu.maker(), true);
    kiln::plan::LayerRecord const* fused = layerNamed(model, "fc + add + relu");
    ASSERT_NE(fused, nullptr);
    EXPECT_EQ(fused->precision, DataType::kHALF);
    EXPECT_EQ(fused->epilogue.bias.type(), DataType::kHALF);
    EXPECT_EQ(fused->epilogue.bias.count(), 3);
}

TEST(CudaMatrixMultiplyFusion, ABiasThatSomethingElseReadsStays)
{
    std::vector<float> const bias = valuesOf(3, 7, 0.5F);
    auto maker = [&](INetworkDefinition& network) {
        ITensor& product = productOfInputs(network);
        ITensor& row = constant(network, kRow3, bias, "bias");
        output(network, relu(network, add(network, product, row, "add"), "relu"), "y");
        // Another reader of the bias that reads an input too, so that it is not folded into a constant of its own.
        ITensor* c = network.addInput("c", DataType::kFLOAT, kRow3);
        output(network, relu(network, add(network, row, *c, "bias plus c"), "bias relu"), "z");
    };
    std::vector<std::string> const expected{"bias", "fc + add + relu", "bias plus c + bias relu"};
    EXPECT_EQ(layerNamesOfCudaPlan(maker), expected);
}

TEST(CudaMatrixMultiplyFusion, ALinearLayerOverABatchOfRowsFuses)
{
    // A transformer's linear layer: [batch, tokens, k] times one [k, n] matrix, plus a bias row, then a ReLU.
    FullyConnected const linear{Dims{3, {2, 5, 7}}, Op::kNONE, Dims{3, {1, 7, 3}}, Op::kNONE, Dims{3, {1, 1, 3}}, true};
    std::vector<std::string> const fused{"fc + add + relu"};
    EXPECT_EQ(layerNamesOfCudaPlan(linear.maker()), fused);
    // The second input transposed ([1, n, k], as exports of Gemm with transB store weights) folds as well.
    FullyConnected const transposedWeights{
        Dims{4, {2, 3, 5, 7}}, Op::kNONE, Dims{4, {1, 1, 3, 7}}, Op::kTRANSPOSE, Dims{4, {1, 1, 1, 3}}, false};
    std::vector<std::string> const fusedSum{"fc + add"};
    EXPECT_EQ(layerNamesOfCudaPlan(transposedWeights.maker()), fusedSum);
}

TEST(CudaMatrixMultiplyFusion, ChainsThatCannotFuseStayAsTheyAre)
{
    // A bias broadcast down the columns ([M, 1]) is not cuBLASLt's per-column bias.
    FullyConnected const byRow{k5x7, Op::kNONE, k7x3, Op::kNONE, Dims{2, {5, 1}}, true};
    // The sum and the ReLU, point-wise, still fuse into one layer of their own.
    std::vector<std::string> const all{"fc", "bias", "add + relu"};
    EXPECT_EQ(layerNamesOfCudaPlan(byRow.maker()), all);
    // A batched product whose second input has a batch of its own is not one GEMM.
    FullyConnected const batched{
        Dims{3, {2, 5, 7}}, Op::kNONE, Dims{3, {2, 7, 3}}, Op::kNONE, Dims{3, {1, 1, 3}}, true};
    EXPECT_EQ(layerNamesOfCudaPlan(batched.maker()), all);
    // Nor is a transposed batch of first inputs by one matrix.
    FullyConnected const transposedBatch{
        Dims{3, {2, 7, 5}}, Op::kTRANSPOSE, Dims{3, {1, 7, 3}}, Op::kNONE, Dims{3, {1, 1, 3}}, true};
    EXPECT_EQ(layerNamesOfCudaPlan(transposedBatch.maker()), all);
    // A vector operand has no columns to add a bias to.
    FullyConnected const vector{Dims{1, {7}}, Op::kVECTOR, k7x3, Op::kNONE, Dims{1, {3}}, true};
    EXPECT_EQ(layerNamesOfCudaPlan(vector.maker()), all);

    // The product is itself a network output: the sum must still read it.
    std::vector<float> const bias = valuesOf(3, 7, 0.5F);
    auto productIsOutput = [&](INetworkDefinition& network) {
        ITensor& product = productOfInputs(network);
        ITensor& sum = add(network, product, constant(network, kRow3, bias, "bias"), "add");
        output(network, relu(network, sum, "relu"), "y");
        output(network, product, "p");
    };
    EXPECT_EQ(layerNamesOfCudaPlan(productIsOutput), all);
    // The sum is a network output: the product and bias fuse, and the ReLU reads their result.
    auto sumIsOutput = [&](INetworkDefinition& network) {
        ITensor& sum = add(network, productOfInputs(network), constant(network, kRow3, bias, "bias"), "add");
        output(network, relu(network, sum, "relu"), "y");
        output(network, sum, "s");
    };
    std::vector<std::string> const partly{"fc + add", "relu"};
    EXPECT_EQ(layerNamesOfCudaPlan(sumIsOutput), partly);
    // A sum of two products: neither addend is a constant row.
    auto twoProducts = [&](INetworkDefinition& network) {
        ITensor* a = network.addInput("a", DataType::kFLOAT, k5x7);
        ITensor* b = network.addInput("b", DataType::kFLOAT, k7x3);
        IMatrixMultiplyLayer* first = network.addMatrixMultiply(*a, Op::kNONE, *b, Op::kNONE);
        first->setName("fc1");
        IMatrixMultiplyLayer* second = network.addMatrixMultiply(*a, Op::kNONE, *b, Op::kNONE);
        second->setName("fc2");
        output(network, add(network, *first->getOutput(0), *second->getOutput(0), "add"), "y");
    };
    std::vector<std::string> const unfused{"fc1", "fc2", "add"};
    EXPECT_EQ(layerNamesOfCudaPlan(twoProducts), unfused);
}

TEST(CudaMatrixMultiplyGeometry, OperandsSwapIntoColumnMajorOrder)
{
    // y[2, 3, 5] = a[2, 3, 4] x b[2, 4, 5]: the library computes y^T = b^T a^T, a batch of two.
    kiln::cuda::GemmGeometry const g = kiln::cuda::gemmGeometry({2, 3, 4}, Op::kNONE, {2, 4, 5}, Op::kNONE);
    EXPECT_EQ(g.m, 3);
    EXPECT_EQ(g.n, 5);
    EXPECT_EQ(g.k, 4);
    EXPECT_EQ(g.batches, 2);
    EXPECT_EQ(g.first.rows, 5);
    EXPECT_EQ(g.first.cols, 4);
    EXPECT_EQ(g.first.ld, 5);
    EXPECT_EQ(g.first.batchStride, 20);
    EXPECT_FALSE(g.first.transposed);
    EXPECT_EQ(g.second.rows, 4);
    EXPECT_EQ(g.second.cols, 3);
    EXPECT_EQ(g.second.ld, 4);
    EXPECT_EQ(g.second.batchStride, 12);
    EXPECT_EQ(g.output.rows, 5);
    EXPECT_EQ(g.output.ld, 5);
    EXPECT_EQ(g.output.batchStride, 15);

    // b[1, 4, 5] repeated for the batch of untransposed a[2, 3, 4]: a's rows follow one another, as y's do, so the
    // batch folds into one product of 6 rows.
    kiln::cuda::GemmGeometry const folded = kiln::cuda::gemmGeometry({2, 3, 4}, Op::kNONE, {1, 4, 5}, Op::kNONE);
    EXPECT_EQ(folded.m, 6);
    EXPECT_EQ(folded.n, 5);
    EXPECT_EQ(folded.batches, 1);
    EXPECT_EQ(folded.first.batchStride, 0);
    EXPECT_EQ(folded.second.rows, 4);
    EXPECT_EQ(folded.second.cols, 6);
    EXPECT_EQ(folded.second.ld, 4);
    EXPECT_EQ(folded.output.cols, 6);
    EXPECT_EQ(folded.output.ld, 5);
    // a[1, 2, 3, 4] by a stack b[3, 1, 4, 5] (merged products of one input): b is repeated over the second batch
    // axis, so a's two matrices fold into 6 rows, and the stack stays a batch of 3 that reads a with stride 0.
    kiln::cuda::GemmGeometry const stack = kiln::cuda::gemmGeometry({1, 2, 3, 4}, Op::kNONE, {3, 1, 4, 5}, Op::kNONE);
    EXPECT_EQ(stack.m, 6);
    EXPECT_EQ(stack.batches, 3);
    EXPECT_EQ(stack.first.batchStride, 20);
    EXPECT_EQ(stack.second.batchStride, 0);
    EXPECT_EQ(stack.second.cols, 6);
    EXPECT_EQ(stack.output.batchStride, 30);
    // A transposed a[2, 4, 3] has no such rows: it stays a batch with b's stride 0.
    kiln::cuda::GemmGeometry const batch = kiln::cuda::gemmGeometry({2, 4, 3}, Op::kTRANSPOSE, {1, 4, 5}, Op::kNONE);
    EXPECT_EQ(batch.m, 3);
    EXPECT_EQ(batch.batches, 2);
    EXPECT_EQ(batch.first.batchStride, 0);

    // Transposed operands keep their stored layout and are transposed by the library.
    kiln::cuda::GemmGeometry const t = kiln::cuda::gemmGeometry({4, 3}, Op::kTRANSPOSE, {5, 4}, Op::kTRANSPOSE);
    EXPECT_EQ(t.m, 3);
    EXPECT_EQ(t.n, 5);
    EXPECT_TRUE(t.first.transposed);
    EXPECT_EQ(t.first.rows, 4);
    EXPECT_EQ(t.first.ld, 4);
    EXPECT_TRUE(t.second.transposed);
    EXPECT_EQ(t.second.rows, 3);
    EXPECT_EQ(t.second.ld, 3);

    // A vector times a batch of matrices: one row each.
    kiln::cuda::GemmGeometry const v = kiln::cuda::gemmGeometry({3, 8}, Op::kVECTOR, {3, 8, 4}, Op::kNONE);
    EXPECT_EQ(v.m, 1);
    EXPECT_EQ(v.n, 4);
    EXPECT_EQ(v.batches, 3);
    EXPECT_EQ(v.second.batchStride, 8);

    // Batches that broadcast only in part are not one strided batch.
    EXPECT_THROW(kiln::cuda::gemmGeometry({2, 1, 3, 4}, Op::kNONE, {1, 5, 4, 2}, Op::kNONE), std::invalid_argument);
    EXPECT_THROW(kiln::cuda::gemmGeometry({3, 4}, Op::kNONE, {5, 2}, Op::kNONE), std::invalid_argument);
}

// ---- The products on the GPU against the CPU reference ----

void expectAgreesInBothPrecisions(FullyConnected const& c, std::string const& what)
{
    expectBackendsAgree(c.maker(), c.inputs(), false, what);
    expectBackendsAgree(c.maker(), c.inputs(), true, what + " fp16");
}

TEST(CudaMatrixMultiply, FusedEpiloguesAgreeWithTheUnfusedCpuReference)
{
    SKIP_WITHOUT_GPU();
    expectAgreesInBothPrecisions({k5x7, Op::kNONE, k7x3, Op::kNONE, kRow3, true}, "bias and relu");
    expectAgreesInBothPrecisions({k5x7, Op::kNONE, k7x3, Op::kNONE, kRow3, false}, "bias");
    expectAgreesInBothPrecisions({k5x7, Op::kNONE, k7x3, Op::kNONE, Dims{0, {}}, true}, "relu");
    expectAgreesInBothPrecisions({k5x7, Op::kNONE, k7x3, Op::kNONE, kRow3, true, true}, "reshaped bias");
    expectAgreesInBothPrecisions(
        {Dims{2, {7, 5}}, Op::kTRANSPOSE, k7x3, Op::kNONE, kRow3, true}, "first transposed, bias and relu");
    expectAgreesInBothPrecisions(
        {k5x7, Op::kNONE, Dims{2, {3, 7}}, Op::kTRANSPOSE, kRow3, true}, "second transposed, bias and relu");
    expectAgreesInBothPrecisions(
        {Dims{2, {7, 5}}, Op::kTRANSPOSE, Dims{2, {3, 7}}, Op::kTRANSPOSE, kRow3, false}, "both transposed, bias");
    // A batch of rows by one matrix, folded into one GEMM with the bias, and the transposed batch that is not.
    expectAgreesInBothPrecisions(
        {Dims{3, {2, 5, 7}}, Op::kNONE, Dims{3, {1, 7, 3}}, Op::kNONE, Dims{3, {1, 1, 3}}, true}, "batch of rows");
    expectAgreesInBothPrecisions(
        {Dims{4, {2, 3, 5, 7}}, Op::kNONE, Dims{4, {1, 1, 3, 7}}, Op::kTRANSPOSE, Dims{4, {1, 1, 1, 3}}, false},
        "batch of rows, transposed weights");
    expectAgreesInBothPrecisions(
        {Dims{3, {2, 7, 5}}, Op::kTRANSPOSE, Dims{3, {1, 7, 3}}, Op::kNONE, Dims{3, {1, 1, 3}}, true},
        "transposed batch by one matrix");
    // What stays unfused runs as before.
    expectAgreesInBothPrecisions({k5x7, Op::kNONE, k7x3, Op::kNONE, Dims{2, {5, 1}}, true}, "bias by row");
}

TEST(CudaMatrixMultiply, BatchesVectorsAndBroadcastsAgreeWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    Dims const none{0, {}};
    expectAgreesInBothPrecisions({Dims{3, {4, 6, 8}}, Op::kNONE, Dims{3, {4, 8, 5}}, Op::kNONE, none}, "batched");
    expectAgreesInBothPrecisions(
        {Dims{3, {4, 6, 8}}, Op::kNONE, Dims{3, {1, 8, 5}}, Op::kNONE, none}, "second shared over the batch");
    expectAgreesInBothPrecisions(
        {Dims{3, {1, 6, 8}}, Op::kNONE, Dims{3, {3, 5, 8}}, Op::kTRANSPOSE, none}, "first shared, second transposed");
    expectAgreesInBothPrecisions(
        {Dims{2, {1, 8}}, Op::kVECTOR, Dims{3, {3, 8, 4}}, Op::kNONE, none}, "one vector times a batch of matrices");
    expectAgreesInBothPrecisions(
        {Dims{3, {2, 5, 8}}, Op::kNONE, Dims{2, {2, 8}}, Op::kVECTOR, none}, "matrices times vectors");
    expectAgreesInBothPrecisions({Dims{2, {4, 8}}, Op::kVECTOR, Dims{2, {4, 8}}, Op::kVECTOR, none}, "dot products");
    expectAgreesInBothPrecisions(
        {Dims{4, {2, 3, 5, 7}}, Op::kNONE, Dims{4, {2, 3, 7, 3}}, Op::kNONE, Dims{4, {1, 1, 1, 3}}, true},
        "two batch axes, bias and relu unfused");
}

TEST(CudaMatrixMultiply, LargeProductsAgreeWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    // Inputs within +-0.25 keep the sums of 300 products small, so that FP16's rounding of the unfused reference
    // (the product, then the sum with the bias) stays within the comparison's tolerance.
    Dims const a{2, {64, 300}};
    Dims const b{2, {300, 129}};
    Dims const row{2, {1, 129}};
    expectAgreesInBothPrecisions({a, Op::kNONE, b, Op::kNONE, Dims{0, {}}, false, false, 0.25F}, "64x300 by 300x129");
    expectAgreesInBothPrecisions({a, Op::kNONE, b, Op::kNONE, row, true, false, 0.25F}, "64x300 by 300x129, fused");
    expectAgreesInBothPrecisions(
        {Dims{2, {300, 64}}, Op::kTRANSPOSE, Dims{2, {129, 300}}, Op::kTRANSPOSE, row, true, false, 0.25F},
        "64x300 by 300x129 from transposes, fused");
}

TEST(CudaMatrixMultiply, EveryRankTheBuilderMayKeepAgreesWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    // Large enough for cuBLASLt to rank several algorithms; the builder times the first eight, whole and with K split
    // in parts, and keeps the fastest's rank and parts. Ranks past those it offers run its last; splits an algorithm
    // cannot make run it whole.
    FullyConnected const c{
        Dims{2, {64, 300}}, Op::kNONE, Dims{2, {300, 129}}, Op::kNONE, Dims{2, {1, 129}}, true, false, 0.25F};
    for (bool const fp16 : {false, true})
    {
        std::string const precision = fp16 ? "FP16" : "FP32";
        auto const expected = runOn(kiln::Backend::kCPU, c.maker(), c.inputs(), fp16);
        kiln::plan::PlanModel const model = cudaPlanOf(c.maker(), fp16);
        kiln::plan::LayerRecord const* product = layerNamed(model, "fc + add + relu");
        ASSERT_NE(product, nullptr);
        EXPECT_EQ(kiln::cuda::AlgorithmChoice::decode(product->backendChoice).source,
            kiln::cuda::AlgorithmChoice::Source::kGEMM)
            << precision << ": the builder timed the product and kept a rank";
        for (int32_t rank = 0; rank < 10; ++rank)
        {
            for (int32_t const splits : {1, 2, 3, 16})
            {
                std::string const what
                    = precision + " rank " + std::to_string(rank) + ", K in " + std::to_string(splits) + " parts";
                auto const outputs = runPlan(kiln::Backend::kCUDA,
                    withBackendChoice(
                        model, LayerType::kMATRIX_MULTIPLY, kiln::cuda::AlgorithmChoice::gemm(rank, splits).encode()),
                    c.inputs());
                ASSERT_EQ(outputs.count("y"), 1U) << what;
                Tolerance const tolerance = fp16 ? Tolerance{2.5e-3, 1e-3} : Tolerance{1e-5, 1e-4};
                expectSameOutput(outputs.at("y"), expected.at("y"), tolerance, what);
            }
        }
    }
}

//! Runs a fully connected layer with a dynamic row count on `backend`, in one execution context, at each of `rows`:
//! the CUDA layer must describe the product again when the shape changes. Returns each run's output.
std::vector<std::vector<float>> runAtRowCounts(kiln::Backend backend, std::vector<int64_t> const& rows)
{
    constexpr int64_t kInner = 12;
    constexpr int64_t kColumns = 9;
    RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    std::vector<float> const weights = valuesOf(kInner * kColumns, 3, 0.5F);
    std::vector<float> const bias = valuesOf(kColumns, 4, 0.5F);
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{2, {-1, kInner}});
    IMatrixMultiplyLayer* product = network->addMatrixMultiply(
        *x, Op::kNONE, constant(*network, Dims{2, {kInner, kColumns}}, weights, "w"), Op::kNONE);
    product->setName("fc");
    ITensor& row = constant(*network, Dims{2, {1, kColumns}}, bias, "bias");
    output(*network, relu(*network, add(*network, *product->getOutput(0), row, "add"), "relu"), "y");
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, backend);
    IOptimizationProfile* profile = builder->createOptimizationProfile();
    profile->setDimensions("x", OptProfileSelector::kMIN, Dims{2, {1, kInner}});
    profile->setDimensions("x", OptProfileSelector::kOPT, Dims{2, {8, kInner}});
    profile->setDimensions("x", OptProfileSelector::kMAX, Dims{2, {32, kInner}});
    config->addOptimizationProfile(profile);
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    EXPECT_NE(plan, nullptr) << logger.errors();
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(plan ? runtime->deserializeCudaEngine(plan->data(), plan->size()) : nullptr);
    EXPECT_NE(engine, nullptr) << logger.errors();
    if (!engine)
    {
        return {};
    }
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    bool const device = backend == kiln::Backend::kCUDA;
    std::vector<float> input(32 * kInner);
    std::vector<float> result(32 * kColumns);
    void* in = input.data();
    void* out = result.data();
    if (device)
    {
        EXPECT_EQ(cudaMalloc(&in, input.size() * sizeof(float)), cudaSuccess);
        EXPECT_EQ(cudaMalloc(&out, result.size() * sizeof(float)), cudaSuccess);
    }
    std::vector<std::vector<float>> outputs;
    for (int64_t m : rows)
    {
        std::vector<float> const values = valuesOf(static_cast<size_t>(m * kInner), static_cast<uint32_t>(m), 0.5F);
        std::copy(values.begin(), values.end(), input.begin());
        EXPECT_TRUE(context->setInputShape("x", Dims{2, {m, kInner}}));
        EXPECT_TRUE(context->setTensorAddress("x", in));
        EXPECT_TRUE(context->setTensorAddress("y", out));
        if (device)
        {
            EXPECT_EQ(cudaMemcpy(in, input.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
        }
        EXPECT_TRUE(context->enqueueV3(nullptr)) << logger.errors();
        if (device)
        {
            EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
            EXPECT_EQ(cudaMemcpy(result.data(), out, static_cast<size_t>(m * kColumns) * sizeof(float),
                          cudaMemcpyDeviceToHost),
                cudaSuccess);
        }
        outputs.emplace_back(result.begin(), result.begin() + m * kColumns);
    }
    if (device)
    {
        cudaFree(in);
        cudaFree(out);
    }
    return outputs;
}

TEST(CudaMatrixMultiply, AFusedLayerFollowsShapesThatChangeBetweenRuns)
{
    SKIP_WITHOUT_GPU();
    std::vector<int64_t> const rows{5, 17, 1, 32, 5};
    std::vector<std::vector<float>> const gpu = runAtRowCounts(kiln::Backend::kCUDA, rows);
    std::vector<std::vector<float>> const cpu = runAtRowCounts(kiln::Backend::kCPU, rows);
    ASSERT_EQ(gpu.size(), rows.size());
    ASSERT_EQ(cpu.size(), rows.size());
    for (size_t run = 0; run < rows.size(); ++run)
    {
        expectClose(gpu[run], cpu[run], {1e-5, 1e-4}, "run " + std::to_string(run));
    }
}

TEST(CudaMatrixMultiplyFusion, ADynamicRowCountStillFuses)
{
    // The same network as above, inspected: the row count is symbolic, the bias length and inner extent constant.
    std::vector<float> const weights = valuesOf(12 * 9, 3, 0.5F);
    std::vector<float> const bias = valuesOf(9, 4, 0.5F);
    auto const maker = [&](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{2, {-1, 12}});
        IMatrixMultiplyLayer* product
            = network.addMatrixMultiply(*x, Op::kNONE, constant(network, Dims{2, {12, 9}}, weights, "w"), Op::kNONE);
        product->setName("fc");
        ITensor& row = constant(network, Dims{2, {1, 9}}, bias, "bias");
        output(network, add(network, *product->getOutput(0), row, "add"), "y");
    };
    kiln::plan::PlanModel const model
        = cudaPlanOf(maker, false, {}, {{"x", Dims{2, {1, 12}}, Dims{2, {8, 12}}, Dims{2, {32, 12}}}});
    std::vector<std::string> names;
    for (kiln::plan::LayerRecord const& layer : model.layers)
    {
        names.push_back(layer.name);
    }
    EXPECT_EQ(names, (std::vector<std::string>{"w", "fc + add"}));
}

} // namespace
