// On the CUDA backend, Kiln's enqueueV3 in steady state allocates nothing on the host: each layer prepares its checks,
// launch grid and kernel arguments when it first runs at its shapes and addresses, and a later run only launches. The
// program replaces the global operator new with a counting one (bench/allocation_counter.cpp), which tells cuDNN's
// and cuBLAS's own allocations apart. Runs at new shapes
// and at new addresses prepare again; each such run is checked against the CPU reference. Without a GPU the tests
// skip themselves.
#include "../backend_comparison.h"
#include "allocation_counter.h"

#include <array>
#include <iostream>

namespace
{

using namespace nvinfer1;
using kiln::test::HostTensor;

constexpr int64_t kRows = 4;
constexpr int64_t kColumns = 8;

ITensor& constant(INetworkDefinition& network, Dims const& dims, std::vector<float> const& values)
{
    // The network keeps a pointer to the values until it is built: they live as long as the process.
    static std::vector<std::vector<float>> kept;
    kept.push_back(values);
    Weights const weights{DataType::kFLOAT, kept.back().data(), static_cast<int64_t>(kept.back().size())};
    return *network.addConstant(dims, weights)->getOutput(0);
}

//! x [B, 4, 8], B from 1 to 4, through layers of Kiln's own kernels: softmax, normalization, a transposing shuffle, a
//! reshape (a view), padding (the slice kernel), a unary, a reduction, a broadcast division, a concatenation, a
//! sigmoid and an identity.
void ownKernels(INetworkDefinition& network)
{
    ITensor* x = network.addInput("x", DataType::kFLOAT, Dims3{-1, kRows, kColumns});
    ISoftMaxLayer* softmax = network.addSoftMax(*x);
    softmax->setAxes(1U << 2);
    ITensor& scale = constant(network, Dims3{1, kRows, 1}, {0.5F, 1.0F, 1.5F, 2.0F});
    ITensor& bias = constant(network, Dims3{1, kRows, 1}, {0.25F, -0.25F, 0.0F, 1.0F});
    ITensor* normalized = network.addNormalization(*softmax->getOutput(0), scale, bias, 1U << 2)->getOutput(0);
    IShuffleLayer* transpose = network.addShuffle(*normalized);
    transpose->setFirstTranspose(Permutation{{0, 2, 1}});
    IShuffleLayer* flatten = network.addShuffle(*transpose->getOutput(0));
    flatten->setReshapeDimensions(Dims2{0, kRows * kColumns});
    ITensor* padded = network.addPaddingNd(*flatten->getOutput(0), Dims{1, {2}}, Dims{1, {1}})->getOutput(0);
    ITensor* magnitude = network.addUnary(*padded, UnaryOperation::kABS)->getOutput(0);
    ITensor* total = network.addReduce(*magnitude, ReduceOperation::kSUM, 1U << 1, true)->getOutput(0);
    ITensor* share = network.addElementWise(*magnitude, *total, ElementWiseOperation::kDIV)->getOutput(0);
    std::array<ITensor*, 2> const joined{share, magnitude};
    IConcatenationLayer* concatenation = network.addConcatenation(joined.data(), 2);
    concatenation->setAxis(1); // [B, 70]
    ITensor* both = concatenation->getOutput(0);
    ITensor* squashed = network.addActivation(*both, ActivationType::kSIGMOID)->getOutput(0);
    ITensor* y = network.addIdentity(*squashed)->getOutput(0);
    y->setName("y");
    network.markOutput(*y);
}

//! x [B, 4, 8] times constant weights [1, 8, 4] (cuBLASLt; TensorRT's operands have one rank), plus a 3x3 convolution
//! (cuDNN) of x seen as [B, 4, 8, 1], padded to keep its extent, whose [B, 2, 8, 1] result is reshaped to the product's
//! [B, 4, 4].
void libraryLayers(INetworkDefinition& network)
{
    ITensor* x = network.addInput("x", DataType::kFLOAT, Dims3{-1, kRows, kColumns});
    ITensor& weights = constant(network, Dims3{1, kColumns, 4}, kiln::test::weightsOf(kColumns * 4, 1.0F));
    ITensor* product
        = network.addMatrixMultiply(*x, MatrixOperation::kNONE, weights, MatrixOperation::kNONE)->getOutput(0);
    IShuffleLayer* image = network.addShuffle(*x);
    image->setReshapeDimensions(Dims4{0, kRows, kColumns, 1});
    static std::vector<float> const kernel = kiln::test::weightsOf(2 * kRows * 3 * 3, 2.0F);
    IConvolutionLayer* convolution = network.addConvolutionNd(*image->getOutput(0), 2, Dims2{3, 3},
        Weights{DataType::kFLOAT, kernel.data(), static_cast<int64_t>(kernel.size())},
        Weights{DataType::kFLOAT, nullptr, 0});
    convolution->setPaddingNd(Dims2{1, 1});
    IShuffleLayer* rows = network.addShuffle(*convolution->getOutput(0));
    rows->setReshapeDimensions(Dims3{0, 4, 4});
    ITensor* y = network.addElementWise(*product, *rows->getOutput(0), ElementWiseOperation::kSUM)->getOutput(0);
    y->setName("y");
    network.markOutput(*y);
}

//! One built network on one backend: an engine, a context with a profile for B in [1, 4], and the input's shape.
class Runner
{
public:
    Runner(kiln::Backend backend, kiln::test::NetworkMaker const& maker)
        : mBackend(backend)
    {
        std::unique_ptr<IBuilder> builder(createInferBuilder(mLogger));
        std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
        maker(*network);
        std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
        kiln::setBackend(*config, backend);
        kiln::setCpuKernels(*config, kiln::CpuKernels::kREFERENCE);
        IOptimizationProfile* profile = builder->createOptimizationProfile();
        profile->setDimensions("x", OptProfileSelector::kMIN, Dims3{1, kRows, kColumns});
        profile->setDimensions("x", OptProfileSelector::kOPT, Dims3{2, kRows, kColumns});
        profile->setDimensions("x", OptProfileSelector::kMAX, Dims3{4, kRows, kColumns});
        config->addOptimizationProfile(profile);
        std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
        EXPECT_NE(plan, nullptr) << mLogger.errors();
        mRuntime.reset(createInferRuntime(mLogger));
        if (plan != nullptr)
        {
            mEngine.reset(mRuntime->deserializeCudaEngine(plan->data(), plan->size()));
        }
        if (mEngine != nullptr)
        {
            mContext.reset(mEngine->createExecutionContext());
        }
    }

    bool ready() const
    {
        return mContext != nullptr;
    }
    IExecutionContext& context()
    {
        return *mContext;
    }
    std::string errors() const
    {
        return mLogger.errors();
    }

    //! Sets the batch, and returns the output's shape at it.
    kiln::Shape setBatch(int64_t batch)
    {
        EXPECT_TRUE(mContext->setInputShape("x", Dims3{batch, kRows, kColumns})) << mLogger.errors();
        return kiln::test::shapeOf(mContext->getTensorShape("y"));
    }

    //! Sets the addresses and enqueues on the default stream, without waiting for the GPU.
    bool enqueue(void* input, void* output)
    {
        return mContext->setTensorAddress("x", input) && mContext->setTensorAddress("y", output)
            && mContext->enqueueV3(nullptr);
    }

private:
    kiln::Backend mBackend;
    kiln::test::RecordingLogger mLogger;
    std::unique_ptr<IRuntime> mRuntime;
    std::unique_ptr<ICudaEngine> mEngine;
    std::unique_ptr<IExecutionContext> mContext;
};

//! The input at batch `batch`, different for each `seed`.
HostTensor inputOf(int64_t batch, float seed)
{
    size_t const count = static_cast<size_t>(batch * kRows * kColumns);
    std::vector<float> values = kiln::test::spread(count, -3.0F + seed, 2.0F + 0.5F * seed);
    for (size_t i = 0; i < count; i += 3)
    {
        values[i] = -values[i]; // not monotonic, so that the softmax and the reduction see every position
    }
    return kiln::test::fromFloats({batch, kRows, kColumns}, values);
}

//! Device memory for the largest batch: an input and an output buffer, one of the pairs a pipelined application
//! alternates between.
struct DeviceBuffers
{
    kiln::test::DeviceCopy input{std::vector<uint8_t>(4 * kRows * kColumns * sizeof(float))};
    kiln::test::DeviceCopy output{std::vector<uint8_t>(4 * 2 * kRows * kColumns * 2 * sizeof(float))};
};

//! What `cpu` computes from `input`, at the batch set last.
HostTensor referenceOutput(Runner& cpu, HostTensor& input)
{
    HostTensor output = kiln::test::zeros(cpu.setBatch(input.shape[0]));
    EXPECT_TRUE(cpu.enqueue(input.bytes.data(), output.bytes.data())) << cpu.errors();
    return output;
}

//! Copies `input` into `buffers`, runs `gpu` at its batch on them (setting the shape first where `setShape`) and
//! checks its output against the CPU reference's for the same input.
void runAndCompare(Runner& gpu, Runner& cpu, DeviceBuffers& buffers, HostTensor& input, std::string const& what)
{
    ASSERT_EQ(
        cudaMemcpy(buffers.input.data, input.bytes.data(), input.bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
    HostTensor actual = kiln::test::zeros(gpu.setBatch(input.shape[0]));
    ASSERT_TRUE(gpu.enqueue(buffers.input.data, buffers.output.data)) << what << ": " << gpu.errors();
    ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess) << what;
    ASSERT_EQ(
        cudaMemcpy(actual.bytes.data(), buffers.output.data, actual.bytes.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    kiln::test::expectClose(actual, referenceOutput(cpu, input), kiln::test::Tolerance{1e-5, 1e-4}, what);
}

//! Runs `maker`'s network at batch 2 on two pairs of buffers in turn (as a pipelined application does), each pair
//! once before counting, then ten times more while counting the host's allocations inside enqueueV3; checks the
//! last outputs against the CPU reference. What cuDNN's and cuBLAS's own code allocates is counted apart and only
//! reported: cuDNN's graph API allocates inside every cudnnBackendExecute, which Kiln cannot change.
void expectSteadyStateAllocatesNothing(kiln::test::NetworkMaker const& maker)
{
    Runner gpu(kiln::Backend::kCUDA, maker);
    Runner cpu(kiln::Backend::kCPU, maker);
    ASSERT_TRUE(gpu.ready() && cpu.ready()) << gpu.errors() << cpu.errors();
    std::array<DeviceBuffers, 2> buffers;
    std::array<HostTensor, 2> inputs{inputOf(2, 0.0F), inputOf(2, 1.0F)};
    runAndCompare(gpu, cpu, buffers[0], inputs[0], "the first pair's first run");
    runAndCompare(gpu, cpu, buffers[1], inputs[1], "the second pair's first run");
    uint64_t allocations = 0;
    uint64_t libraryAllocations = 0;
    kiln_bench::attributeAllocations(true);
    for (int run = 0; run < 10; ++run)
    {
        DeviceBuffers& pair = buffers[run % 2];
        uint64_t const before = kiln_bench::allocationCount();
        uint64_t const libraryBefore = kiln_bench::libraryAllocationCount();
        bool const queued = gpu.enqueue(pair.input.data, pair.output.data);
        allocations += kiln_bench::allocationCount() - before;
        libraryAllocations += kiln_bench::libraryAllocationCount() - libraryBefore;
        ASSERT_TRUE(queued) << gpu.errors();
        ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
    }
    kiln_bench::attributeAllocations(false);
    std::cout << "allocations in 10 enqueueV3 calls: " << allocations << ", of which by cuDNN's or cuBLAS's code "
              << libraryAllocations << "\n";
    EXPECT_EQ(allocations - libraryAllocations, 0U)
        << "heap allocations by Kiln in 10 enqueueV3 calls in steady state (their stacks follow on standard error)";
    if (allocations > libraryAllocations)
    {
        kiln_bench::traceAllocations(true);
        bool const queued = gpu.enqueue(buffers[0].input.data, buffers[0].output.data);
        kiln_bench::traceAllocations(false);
        ASSERT_TRUE(queued) << gpu.errors();
        ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
    }
    for (size_t pair = 0; pair < 2; ++pair)
    {
        HostTensor actual = kiln::test::zeros(gpu.setBatch(2));
        ASSERT_EQ(
            cudaMemcpy(actual.bytes.data(), buffers[pair].output.data, actual.bytes.size(), cudaMemcpyDeviceToHost),
            cudaSuccess);
        kiln::test::expectClose(actual, referenceOutput(cpu, inputs[pair]), kiln::test::Tolerance{1e-5, 1e-4},
            "pair " + std::to_string(pair) + " after the counted runs");
    }
}

} // namespace

TEST(CudaSteadyState, OwnKernelsAllocateNothingOnceWarm)
{
    SKIP_WITHOUT_GPU();
    expectSteadyStateAllocatesNothing(ownKernels);
}

TEST(CudaSteadyState, LibraryLayersAllocateNothingOnceWarm)
{
    SKIP_WITHOUT_GPU();
    expectSteadyStateAllocatesNothing(libraryLayers);
}

// Each run at a new batch, or at new addresses, prepares its layers again: each must give the CPU reference's output.
TEST(CudaSteadyState, NewShapesAndAddressesPrepareAgain)
{
    SKIP_WITHOUT_GPU();
    for (auto maker : {&ownKernels, &libraryLayers})
    {
        Runner gpu(kiln::Backend::kCUDA, maker);
        Runner cpu(kiln::Backend::kCPU, maker);
        ASSERT_TRUE(gpu.ready() && cpu.ready()) << gpu.errors() << cpu.errors();
        std::array<DeviceBuffers, 2> buffers;
        std::array<int64_t, 6> const batches{2, 3, 3, 1, 4, 2};
        for (size_t run = 0; run < batches.size(); ++run)
        {
            HostTensor input = inputOf(batches[run], static_cast<float>(run));
            runAndCompare(gpu, cpu, buffers[run % 2], input,
                (maker == &ownKernels ? "own kernels" : "library layers") + std::string(", run ") + std::to_string(run)
                    + " at batch " + std::to_string(batches[run]));
        }
    }
}
