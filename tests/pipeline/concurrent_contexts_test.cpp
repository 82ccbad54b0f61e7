// One engine, many execution contexts, one per thread: each context owns its activations and prepared views, and
// the engine is shared read-only, so contexts running at the same time compute what one context alone computes. Eight
// threads run 1,000 inferences each, changing the input shape between runs, and every output must be bit for bit the
// output of a single context at that shape and input (same kernels, same thread count). The network covers the
// kinds of work a context does: a matrix multiply by constant weights with its bias fused (oneDNN), a fused GELU
// chain, a softmax, shape tensors evaluated per run (a flatten through Shape, Gather and Concat), and a reduction.
#include "../layers/layer_harness.h"

#include <gtest/gtest.h>

#include <kiln/CpuBackend.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::test::LayerHarness;

constexpr int32_t kWidth = 8;
constexpr int32_t kMaxRows = 16;
constexpr int32_t kSeeds = 10;

std::vector<float> valuesOf(size_t count, float phase)
{
    std::vector<float> values(count);
    for (size_t i = 0; i < values.size(); ++i)
    {
        values[i] = 0.1F * static_cast<float>(static_cast<int64_t>((i * 5 + 3) % 17) - 8) + phase;
    }
    return values;
}

struct Network
{
    LayerHarness h;
    std::vector<float> weights = valuesOf(kWidth * kWidth, 0.01F);
    std::vector<float> bias = valuesOf(kWidth, -0.2F);
    std::vector<float> half{0.5F};
    std::vector<float> one{1.0F};
    std::vector<float> rootTwo{1.41421356F};
    std::vector<int32_t> first{0};
    std::vector<int32_t> width{kWidth};

    ITensor& constant(Dims const& dims, std::vector<float> const& values)
    {
        Weights const constantWeights{DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())};
        return *h.network->addConstant(dims, constantWeights)->getOutput(0);
    }

    ITensor& elementWise(ITensor& a, ITensor& b, ElementWiseOperation operation)
    {
        return *h.network->addElementWise(a, b, operation)->getOutput(0);
    }

    Network()
    {
        ITensor& x = *h.network->addInput("x", DataType::kFLOAT, Dims2{-1, kWidth});
        ITensor& product = *h.network
                                ->addMatrixMultiply(x, MatrixOperation::kNONE, constant(Dims2{kWidth, kWidth}, weights),
                                    MatrixOperation::kNONE)
                                ->getOutput(0);
        ITensor& biased = elementWise(product, constant(Dims2{1, kWidth}, bias), ElementWiseOperation::kSUM);
        // GELU as ONNX exports it: x * 0.5 * (1 + erf(x / sqrt(2))).
        ITensor& erf = *h.network
                            ->addUnary(elementWise(biased, constant(Dims2{1, 1}, rootTwo), ElementWiseOperation::kDIV),
                                UnaryOperation::kERF)
                            ->getOutput(0);
        ITensor& gelu
            = elementWise(elementWise(biased, elementWise(erf, constant(Dims2{1, 1}, one), ElementWiseOperation::kSUM),
                              ElementWiseOperation::kPROD),
                constant(Dims2{1, 1}, half), ElementWiseOperation::kPROD);
        ISoftMaxLayer* softmax = h.network->addSoftMax(gelu);
        softmax->setAxes(2U);
        // Flatten [rows, 8] into [rows * 8] through shape tensors evaluated at each run: gather(shape, 0) * 8.
        IShapeLayer* shape = h.network->addShape(*softmax->getOutput(0));
        shape->setOutputType(0, DataType::kINT32);
        auto intConstant = [&](std::vector<int32_t> const& values) -> ITensor& {
            return *h.network->addConstant(Dims{1, {1}}, Weights{DataType::kINT32, values.data(), 1})->getOutput(0);
        };
        ITensor& rows = *h.network->addGather(*shape->getOutput(0), intConstant(first), 0)->getOutput(0);
        IShuffleLayer* flatten = h.network->addShuffle(*softmax->getOutput(0));
        flatten->setInput(1, elementWise(rows, intConstant(width), ElementWiseOperation::kPROD));
        h.output(flatten, "y");
        IReduceLayer* sums = h.network->addReduce(gelu, ReduceOperation::kSUM, 2U, false);
        h.output(sums, "s");
        h.setProfile("x", Dims2{1, kWidth}, Dims2{4, kWidth}, Dims2{kMaxRows, kWidth});
    }
};

//! The outputs of one inference.
struct Outputs
{
    std::vector<float> y;
    std::vector<float> s;

    bool operator==(Outputs const& other) const
    {
        return y == other.y && s == other.s;
    }
};

//! Runs `context` once on x of `rows` rows made from `seed`. Fails the test (from any thread) on an error.
Outputs runOnce(IExecutionContext& context, int32_t rows, int32_t seed)
{
    std::vector<float> const x = valuesOf(static_cast<size_t>(rows * kWidth), 0.05F * static_cast<float>(seed));
    Outputs out;
    out.y.assign(static_cast<size_t>(rows * kWidth), -100.0F);
    out.s.assign(static_cast<size_t>(rows), -100.0F);
    bool const ok = context.setInputShape("x", Dims2{rows, kWidth})
        && context.setTensorAddress("x", const_cast<float*>(x.data())) && context.setTensorAddress("y", out.y.data())
        && context.setTensorAddress("s", out.s.data()) && context.enqueueV3(nullptr);
    EXPECT_TRUE(ok) << "rows " << rows << ", seed " << seed;
    return out;
}

TEST(ConcurrentContexts, EightThreadsWithTheirOwnContextsComputeWhatOneContextComputes)
{
    Network net;
    ASSERT_TRUE(net.h.build()) << net.h.logger.errors();
    kiln::setCpuThreads(*net.h.context, 1);
    std::map<std::pair<int32_t, int32_t>, Outputs> expected;
    for (int32_t rows = 1; rows <= kMaxRows; ++rows)
    {
        for (int32_t seed = 0; seed < kSeeds; ++seed)
        {
            expected[{rows, seed}] = runOnce(*net.h.context, rows, seed);
        }
    }
    // The single context's results are the network's: each row's softmax sums to 1.
    Outputs const& three = expected.at({3, 0});
    for (int32_t r = 0; r < 3; ++r)
    {
        float sum = 0.0F;
        for (int32_t c = 0; c < kWidth; ++c)
        {
            sum += three.y[static_cast<size_t>(r * kWidth + c)];
        }
        EXPECT_NEAR(sum, 1.0F, 1e-5F) << r;
    }

    constexpr int32_t kThreads = 8;
    constexpr int32_t kInferences = 1000;
    std::vector<std::unique_ptr<IExecutionContext>> contexts;
    for (int32_t t = 0; t < kThreads; ++t)
    {
        contexts.emplace_back(net.h.engine->createExecutionContext());
        ASSERT_NE(contexts.back(), nullptr) << net.h.logger.errors();
        kiln::setCpuThreads(*contexts.back(), 1);
    }
    std::atomic<int32_t> mismatches{0};
    std::vector<std::thread> threads;
    for (int32_t t = 0; t < kThreads; ++t)
    {
        threads.emplace_back([&, t] {
            for (int32_t i = 0; i < kInferences; ++i)
            {
                // Each thread walks the shapes in its own order, so that contexts at different shapes overlap.
                int32_t const rows = 1 + (i * 7 + t * 3) % kMaxRows;
                int32_t const seed = (i + t) % kSeeds;
                if (!(runOnce(*contexts[static_cast<size_t>(t)], rows, seed) == expected.at({rows, seed})))
                {
                    ++mismatches;
                }
            }
        });
    }
    for (std::thread& thread : threads)
    {
        thread.join();
    }
    EXPECT_EQ(mismatches.load(), 0) << net.h.logger.errors();
}

} // namespace
