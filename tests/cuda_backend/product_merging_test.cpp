// Products of one input merged into one strided-batched GEMM (backend/cuda/passes/product_merging.h), as a
// transformer's query, key and value projections are: which products the CUDA plan merges (read without a GPU), and
// that the merged product computes what the CPU reference computes for each product on its own, with and without
// biases, in FP32 and FP16, and at batch sizes that change between runs.
#include "backend_comparison.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <string>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

//! Values in [-0.5, 0.5) that vary irregularly with the position and the seed.
std::vector<float> valuesOf(size_t count, uint32_t seed)
{
    std::vector<float> values(count);
    uint32_t state = seed * 2654435761U + 12345U;
    for (float& value : values)
    {
        state = state * 1664525U + 1013904223U;
        value = 0.5F * (static_cast<float>(state >> 8) / 8388608.0F - 1.0F);
    }
    return values;
}

//! Products p0, p1, ... of network input "x" by constant weights, each read by a negation whose output ("y0",
//! "y1", ...) is a network output, so that the products' own outputs are internal, as a transformer's are.
struct Projections
{
    Dims x;                        //!< the shared input; its last extent is the inner one
    std::vector<int64_t> columns;  //!< per product: the weights' columns
    std::vector<bool> biased;      //!< per product: whether a bias row follows it
    bool transposedWeights{false}; //!< weights stored [n, k] and read transposed, as Gemm with transB exports them
    std::vector<bool> relus{};     //!< per product: whether a ReLU follows it (and its bias); empty: none

    NetworkMaker maker() const
    {
        Projections const p = *this;
        return [p](INetworkDefinition& network) {
            ITensor* input = network.addInput("x", DataType::kFLOAT, p.x);
            int32_t const rank = p.x.nbDims;
            int64_t const inner = p.x.d[rank - 1];
            for (size_t i = 0; i < p.columns.size(); ++i)
            {
                std::string const name = "p" + std::to_string(i);
                Dims weights{rank, {}};
                std::fill(weights.d, weights.d + rank, 1);
                weights.d[rank - 2] = p.transposedWeights ? p.columns[i] : inner;
                weights.d[rank - 1] = p.transposedWeights ? inner : p.columns[i];
                std::vector<float> const w = valuesOf(static_cast<size_t>(inner * p.columns[i]), 100 + i);
                IConstantLayer* constant
                    = network.addConstant(weights, Weights{DataType::kFLOAT, w.data(), static_cast<int64_t>(w.size())});
                constant->setName((name + " weights").c_str());
                MatrixOperation const op1 = p.transposedWeights ? MatrixOperation::kTRANSPOSE : MatrixOperation::kNONE;
                IMatrixMultiplyLayer* product
                    = network.addMatrixMultiply(*input, MatrixOperation::kNONE, *constant->getOutput(0), op1);
                product->setName(name.c_str());
                ITensor* y = product->getOutput(0);
                if (p.biased[i])
                {
                    Dims row{rank, {}};
                    std::fill(row.d, row.d + rank, 1);
                    row.d[rank - 1] = p.columns[i];
                    std::vector<float> const b = valuesOf(static_cast<size_t>(p.columns[i]), 200 + i);
                    IConstantLayer* bias
                        = network.addConstant(row, Weights{DataType::kFLOAT, b.data(), static_cast<int64_t>(b.size())});
                    bias->setName((name + " bias row").c_str());
                    y = &add(network, *y, *bias->getOutput(0), (name + " bias").c_str());
                }
                if (i < p.relus.size() && p.relus[i])
                {
                    y = &relu(network, *y, (name + " relu").c_str());
                }
                IUnaryLayer* negation = network.addUnary(*y, UnaryOperation::kNEG);
                negation->setName(("negate " + name).c_str());
                negation->getOutput(0)->setName(("y" + std::to_string(i)).c_str());
                network.markOutput(*negation->getOutput(0));
            }
        };
    }

    std::map<std::string, HostTensor> inputs() const
    {
        std::vector<int64_t> const shape(x.d, x.d + x.nbDims);
        size_t const count = static_cast<size_t>(volumeOf(x));
        return {{"x", fromFloats(shape, valuesOf(count, 1))}};
    }
};

Dims const kTokens{3, {2, 5, 8}}; //!< a batch of 2 sequences of 5 tokens of 8 features

std::vector<kiln::plan::LayerRecord const*> productsOf(kiln::plan::PlanModel const& model)
{
    return layersOfType(model, LayerType::kMATRIX_MULTIPLY);
}

// ---- Which products merge (no GPU needed) ----

TEST(ProductMerging, ProductsOfOneInputBecomeOneWithABiasRowEach)
{
    Projections const qkv{kTokens, {6, 6, 6}, {true, false, true}};
    kiln::plan::PlanModel const model = cudaPlanOf(qkv.maker());
    std::vector<kiln::plan::LayerRecord const*> const products = productsOf(model);
    ASSERT_EQ(products.size(), 1U);
    kiln::plan::LayerRecord const& merged = *products[0];
    EXPECT_EQ(merged.name, "p0 + p0 bias + p1 + p2 + p2 bias");
    // Rows of p0's and p2's biases, and zeros for p1, which had none.
    std::vector<float> expected = valuesOf(6, 200);
    expected.insert(expected.end(), 6, 0.0F);
    std::vector<float> const third = valuesOf(6, 202);
    expected.insert(expected.end(), third.begin(), third.end());
    EXPECT_EQ(merged.epilogue.bias.toFloat(), expected);
    // [3, 2, 5, 6]: one block per product, each of them a view the negations read.
    int32_t const out = merged.outputs[0];
    EXPECT_EQ(kiln::plan::constantDims(model, out), (std::vector<int64_t>{3, 2, 5, 6}));
    size_t negations = 0;
    for (kiln::plan::LayerRecord const& layer : model.layers)
    {
        if (layer.name.rfind("negate", 0) == 0)
        {
            ++negations;
            EXPECT_EQ(model.tensors[layer.inputs[0]].viewOf, out) << layer.name;
        }
    }
    EXPECT_EQ(negations, 3U);
    // The stacked weights are the only constant left of the products' weights and biases.
    auto const constants = std::count_if(model.layers.begin(), model.layers.end(),
        [](kiln::plan::LayerRecord const& layer) { return layer.type == LayerType::kCONSTANT; });
    EXPECT_EQ(constants, 1);

    kiln::plan::PlanModel const half = cudaPlanOf(qkv.maker(), true);
    ASSERT_EQ(productsOf(half).size(), 1U);
    EXPECT_EQ(productsOf(half)[0]->epilogue.bias.type(), DataType::kHALF);
}

TEST(ProductMerging, MatricesTransposedWeightsAndActivationsMergeAlike)
{
    Projections const matrices{Dims{2, {5, 8}}, {4, 4}, {true, true}};
    EXPECT_EQ(productsOf(cudaPlanOf(matrices.maker())).size(), 1U);
    Projections const transposed{kTokens, {6, 6}, {false, false}, true};
    EXPECT_EQ(productsOf(cudaPlanOf(transposed.maker())).size(), 1U);
    Projections const relus{kTokens, {6, 6, 6}, {true, true, false}, false, {true, true, true}};
    kiln::plan::PlanModel const model = cudaPlanOf(relus.maker());
    ASSERT_EQ(productsOf(model).size(), 1U);
    EXPECT_TRUE(productsOf(model)[0]->epilogue.relu());
}

TEST(ProductMerging, ProductsThatDifferStayApart)
{
    // Weights of another shape: p0 and p2 merge, p1 stays.
    Projections const shapes{kTokens, {6, 7, 6}, {true, true, true}};
    kiln::plan::PlanModel const model = cudaPlanOf(shapes.maker());
    std::vector<kiln::plan::LayerRecord const*> const products = productsOf(model);
    ASSERT_EQ(products.size(), 2U);
    EXPECT_EQ(products[0]->name, "p0 + p0 bias + p2 + p2 bias");
    EXPECT_EQ(products[1]->name, "p1 + p1 bias");
    // A ReLU after some products only.
    Projections const someRelus{kTokens, {6, 6, 6}, {false, false, false}, false, {true, false, true}};
    EXPECT_EQ(productsOf(cudaPlanOf(someRelus.maker())).size(), 2U);
    // A product whose output the application reads stays itself.
    auto observed = [](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, kTokens);
        std::vector<float> const w = valuesOf(48, 3);
        for (char const* name : {"a", "b"})
        {
            IConstantLayer* weights = network.addConstant(Dims{3, {1, 8, 6}}, Weights{DataType::kFLOAT, w.data(), 48});
            IMatrixMultiplyLayer* product
                = network.addMatrixMultiply(*x, MatrixOperation::kNONE, *weights->getOutput(0), MatrixOperation::kNONE);
            product->setName(name);
            product->getOutput(0)->setName(name);
            network.markOutput(*product->getOutput(0));
        }
    };
    EXPECT_EQ(productsOf(cudaPlanOf(observed)).size(), 2U);
}

// ---- The merged products on the GPU against the CPU reference ----

TEST(ProductMerging, MergedProductsAgreeWithTheCpuReference)
{
    SKIP_WITHOUT_GPU();
    std::vector<std::pair<Projections, std::string>> const cases{
        {{kTokens, {6, 6, 6}, {true, false, true}}, "three over tokens, one without a bias"},
        {{Dims{2, {5, 8}}, {4, 4}, {true, true}}, "two over matrices"},
        {{kTokens, {6, 6}, {false, false}, true}, "transposed weights, no biases"},
        {{kTokens, {6, 6, 6}, {true, true, false}, false, {true, true, true}}, "with ReLUs"},
        {{Dims{3, {3, 7, 16}}, {24, 24, 24}, {true, true, true}}, "three over odd token counts"},
    };
    for (auto const& [projections, what] : cases)
    {
        expectBackendsAgree(projections.maker(), projections.inputs(), false, what);
        expectBackendsAgree(projections.maker(), projections.inputs(), true, what + ", fp16");
    }
}

//! Runs `projections` with x's first axis dynamic (a profile of 1 to 4) on `backend`, in one execution context, at
//! each of `batches`: the views of the merged output move with the batch. Returns each run's outputs, y0, y1, ...
//! one after another.
std::vector<std::vector<float>> runAtBatches(
    kiln::Backend backend, Projections const& projections, std::vector<int64_t> const& batches)
{
    RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    Projections dynamic = projections;
    dynamic.x.d[0] = -1;
    dynamic.maker()(*network);
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, backend);
    IOptimizationProfile* profile = builder->createOptimizationProfile();
    for (auto [selector, batch] : {std::pair{OptProfileSelector::kMIN, 1}, std::pair{OptProfileSelector::kOPT, 2},
             std::pair{OptProfileSelector::kMAX, 4}})
    {
        Dims shape = projections.x;
        shape.d[0] = batch;
        profile->setDimensions("x", selector, shape);
    }
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
    std::vector<std::vector<float>> results;
    for (int64_t batch : batches)
    {
        Dims shape = projections.x;
        shape.d[0] = batch;
        std::vector<std::pair<std::string, std::vector<float>>> tensors{
            {"x", valuesOf(static_cast<size_t>(volumeOf(shape)), static_cast<uint32_t>(batch))}};
        int64_t const rows = volumeOf(shape) / shape.d[shape.nbDims - 1];
        for (size_t i = 0; i < projections.columns.size(); ++i)
        {
            tensors.emplace_back("y" + std::to_string(i), std::vector<float>(rows * projections.columns[i]));
        }
        EXPECT_TRUE(context->setInputShape("x", shape));
        std::vector<void*> addresses;
        for (auto& [name, values] : tensors)
        {
            void* address = values.data();
            if (device)
            {
                EXPECT_EQ(cudaMalloc(&address, values.size() * sizeof(float)), cudaSuccess);
                EXPECT_EQ(cudaMemcpy(address, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice),
                    cudaSuccess);
            }
            EXPECT_TRUE(context->setTensorAddress(name.c_str(), address));
            addresses.push_back(address);
        }
        EXPECT_TRUE(context->enqueueV3(nullptr)) << logger.errors();
        EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
        std::vector<float> outputs;
        for (size_t t = 1; t < tensors.size(); ++t)
        {
            std::vector<float>& values = tensors[t].second;
            if (device)
            {
                EXPECT_EQ(
                    cudaMemcpy(values.data(), addresses[t], values.size() * sizeof(float), cudaMemcpyDeviceToHost),
                    cudaSuccess);
            }
            outputs.insert(outputs.end(), values.begin(), values.end());
        }
        for (void* address : device ? addresses : std::vector<void*>{})
        {
            cudaFree(address);
        }
        results.push_back(std::move(outputs));
    }
    return results;
}

TEST(ProductMerging, MergedProductsFollowABatchThatChangesBetweenRuns)
{
    SKIP_WITHOUT_GPU();
    Projections const qkv{kTokens, {6, 6, 6}, {true, false, true}};
    std::vector<int64_t> const batches{2, 1, 4, 3};
    std::vector<std::vector<float>> const gpu = runAtBatches(kiln::Backend::kCUDA, qkv, batches);
    std::vector<std::vector<float>> const cpu = runAtBatches(kiln::Backend::kCPU, qkv, batches);
    ASSERT_EQ(gpu.size(), batches.size());
    ASSERT_EQ(cpu.size(), batches.size());
    for (size_t run = 0; run < batches.size(); ++run)
    {
        expectClose(gpu[run], cpu[run], {1e-5, 1e-4}, "batch " + std::to_string(batches[run]));
    }
}

} // namespace
