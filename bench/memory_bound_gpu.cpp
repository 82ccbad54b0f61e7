// Benchmark: the CUDA backend's memory-bound layers at a transformer's sizes (BERT-base at 2 x 128 tokens, ViT-B/16 at
// batch 8, Whisper-tiny's encoder), each alone in an FP16 network: softmax, GELU as exported (one fused activation),
// bias and residual sums, a scaling, the attention mask, the attention heads' transposes, the keys' third of GPT-2's
// fused projection (a slice), LayerNorm (and ConvNeXt-T's over 96 and 192 channels at batch 8: many short rows), and
// attention as exporters spell it (fused into one layer). Each network is enqueued kRepeats times into a CUDA graph,
// so that the host's enqueue time stays out, and the graph replayed; the figure is GPU time per layer run, beside the
// bandwidth that the bytes it must read and write imply. Prints figures; CTest never runs it. bench/README.md says how
// to run it.
#include <NvInfer.h>
#include <kiln/Backend.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;

constexpr int kRepeats = 50; //!< enqueues per graph
constexpr int kTrials = 15;  //!< graph replays timed; the median is reported

class StderrLogger final : public ILogger
{
public:
    void log(Severity severity, char const* message) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            std::fprintf(stderr, "kiln: %s\n", message);
        }
    }
};

//! FP16 bits of a float that FP16 holds exactly (the constants below are chosen so).
uint16_t exactHalf(float value)
{
    uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof(bits));
    if ((bits & 0x7FFFFFFFU) == 0)
    {
        return static_cast<uint16_t>(bits >> 16);
    }
    uint32_t const exponent = ((bits >> 23) & 0xFFU) - 127U + 15U;
    return static_cast<uint16_t>(((bits >> 16) & 0x8000U) | (exponent << 10) | ((bits >> 13) & 0x3FFU));
}

//! FP16 constants that outlive the network definition.
struct Constants
{
    std::vector<std::unique_ptr<std::vector<uint16_t>>> held;

    ITensor& add(INetworkDefinition& network, Dims const& dims, std::vector<float> const& values)
    {
        auto bits = std::make_unique<std::vector<uint16_t>>();
        for (float value : values)
        {
            bits->push_back(exactHalf(value));
        }
        Weights const weights{DataType::kHALF, bits->data(), static_cast<int64_t>(bits->size())};
        held.push_back(std::move(bits));
        return *network.addConstant(dims, weights)->getOutput(0);
    }
};

struct Case
{
    std::string name;
    std::function<ITensor*(INetworkDefinition&, Constants&)> define; //!< returns the output
};

ITensor& binary(INetworkDefinition& network, ITensor& a, ITensor& b, ElementWiseOperation op)
{
    return *network.addElementWise(a, b, op)->getOutput(0);
}

ITensor* transposed(INetworkDefinition& network, Dims const& dims, std::vector<int32_t> const& order)
{
    IShuffleLayer* shuffle = network.addShuffle(*network.addInput("x", DataType::kHALF, dims));
    Permutation permutation{};
    for (size_t i = 0; i < order.size(); ++i)
    {
        permutation.order[i] = order[i];
    }
    shuffle->setFirstTranspose(permutation);
    return shuffle->getOutput(0);
}

ITensor* softmax(INetworkDefinition& network, ITensor& x)
{
    ISoftMaxLayer* layer = network.addSoftMax(x);
    layer->setAxes(1U << (x.getDimensions().nbDims - 1));
    return layer->getOutput(0);
}

ITensor* softmax(INetworkDefinition& network, Dims const& dims)
{
    return softmax(network, *network.addInput("x", DataType::kHALF, dims));
}

//! softmax(q . k^T / sqrt(depth) [+ mask]) . v over q, k, v [batch, heads, tokens, depth], as BERT's export spells
//! it; the mask is [batch, 1, 1, tokens]. The CUDA backend fuses it into one attention layer.
ITensor* attention(INetworkDefinition& n, Constants& c, int64_t batch, int64_t heads, int64_t tokens, bool masked)
{
    int64_t const depth = 64;
    Dims const operand{4, {batch, heads, tokens, depth}};
    ITensor& q = *n.addInput("q", DataType::kHALF, operand);
    ITensor& k = *n.addInput("k", DataType::kHALF, operand);
    ITensor& v = *n.addInput("v", DataType::kHALF, operand);
    ITensor& products = *n.addMatrixMultiply(q, MatrixOperation::kNONE, k, MatrixOperation::kTRANSPOSE)->getOutput(0);
    ITensor* scores = &binary(n, products, c.add(n, Dims{4, {1, 1, 1, 1}}, {8.0F}), ElementWiseOperation::kDIV);
    if (masked)
    {
        ITensor& mask = *n.addInput("mask", DataType::kHALF, Dims{4, {batch, 1, 1, tokens}});
        scores = &binary(n, *scores, mask, ElementWiseOperation::kSUM);
    }
    return n.addMatrixMultiply(*softmax(n, *scores), MatrixOperation::kNONE, v, MatrixOperation::kNONE)->getOutput(0);
}

//! LayerNorm over the last axis of x [..., width] with weights and bias, as one normalization layer.
ITensor* layerNorm(INetworkDefinition& n, Constants& c, Dims const& dims)
{
    int64_t const width = dims.d[dims.nbDims - 1];
    Dims scaleDims = dims;
    for (int32_t d = 0; d + 1 < dims.nbDims; ++d)
    {
        scaleDims.d[d] = 1;
    }
    std::vector<float> scale(static_cast<size_t>(width));
    std::vector<float> bias(static_cast<size_t>(width));
    for (size_t i = 0; i < scale.size(); ++i)
    {
        scale[i] = 1.0F + static_cast<float>(i % 8) / 8.0F;
        bias[i] = static_cast<float>(i % 16) / 16.0F;
    }
    ITensor& x = *n.addInput("x", DataType::kHALF, dims);
    return n.addNormalization(x, c.add(n, scaleDims, scale), c.add(n, scaleDims, bias), 1U << (dims.nbDims - 1))
        ->getOutput(0);
}

std::vector<Case> cases()
{
    Dims const tokens{3, {2, 128, 768}};
    return {
        {"softmax [1, 6, 1500, 1500] (Whisper)",
            [](INetworkDefinition& n, Constants&) {
                return softmax(n, Dims{4, {1, 6, 1500, 1500}});
            }},
        {"softmax [2, 12, 128, 128] (BERT)",
            [](INetworkDefinition& n, Constants&) {
                return softmax(n, Dims{4, {2, 12, 128, 128}});
            }},
        {"GELU as exported [2, 128, 3072]",
            [](INetworkDefinition& n, Constants& c) {
                ITensor& x = *n.addInput("x", DataType::kHALF, Dims{3, {2, 128, 3072}});
                Dims const one{3, {1, 1, 1}};
                ITensor& scaled = binary(n, x, c.add(n, one, {1.4140625F}), ElementWiseOperation::kDIV);
                ITensor& erf = *n.addUnary(scaled, UnaryOperation::kERF)->getOutput(0);
                ITensor& sum = binary(n, erf, c.add(n, one, {1.0F}), ElementWiseOperation::kSUM);
                ITensor& product = binary(n, x, sum, ElementWiseOperation::kPROD);
                return &binary(n, product, c.add(n, one, {0.5F}), ElementWiseOperation::kPROD);
            }},
        {"bias [1, 1, 768] + [2, 128, 768]",
            [tokens](INetworkDefinition& n, Constants& c) {
                std::vector<float> bias(768);
                for (size_t i = 0; i < bias.size(); ++i)
                {
                    bias[i] = static_cast<float>(static_cast<int>(i % 64) - 32) / 64.0F;
                }
                ITensor& b = c.add(n, Dims{3, {1, 1, 768}}, bias);
                return &binary(n, b, *n.addInput("x", DataType::kHALF, tokens), ElementWiseOperation::kSUM);
            }},
        {"residual [2, 128, 768] + [2, 128, 768]",
            [tokens](INetworkDefinition& n, Constants&) {
                return &binary(n, *n.addInput("x", DataType::kHALF, tokens), *n.addInput("r", DataType::kHALF, tokens),
                    ElementWiseOperation::kSUM);
            }},
        {"scale [2, 12, 128, 64] * [1, 1, 1, 1]",
            [](INetworkDefinition& n, Constants& c) {
                ITensor& x = *n.addInput("x", DataType::kHALF, Dims{4, {2, 12, 128, 64}});
                return &binary(n, x, c.add(n, Dims{4, {1, 1, 1, 1}}, {0.125F}), ElementWiseOperation::kPROD);
            }},
        {"mask [2, 12, 128, 128] + [2, 1, 128, 128]",
            [](INetworkDefinition& n, Constants&) {
                return &binary(n, *n.addInput("x", DataType::kHALF, Dims{4, {2, 12, 128, 128}}),
                    *n.addInput("mask", DataType::kHALF, Dims{4, {2, 1, 128, 128}}), ElementWiseOperation::kSUM);
            }},
        {"transpose (0, 2, 1, 3) [2, 128, 12, 64]",
            [](INetworkDefinition& n, Constants&) {
                return transposed(n, Dims{4, {2, 128, 12, 64}}, {0, 2, 1, 3});
            }},
        {"transpose (0, 2, 3, 1) [2, 128, 12, 64]",
            [](INetworkDefinition& n, Constants&) {
                return transposed(n, Dims{4, {2, 128, 12, 64}}, {0, 2, 3, 1});
            }},
        {"slice [2, 128, 768:1536] of 2304 (GPT-2)",
            [](INetworkDefinition& n, Constants&) {
                ITensor& x = *n.addInput("x", DataType::kHALF, Dims{3, {2, 128, 2304}});
                return n.addSlice(x, Dims{3, {0, 0, 768}}, Dims{3, {2, 128, 768}}, Dims{3, {1, 1, 1}})->getOutput(0);
            }},
        {"LayerNorm [2, 128, 768] (BERT)",
            [tokens](INetworkDefinition& n, Constants& c) { return layerNorm(n, c, tokens); }},
        {"LayerNorm [8, 197, 768] (ViT)",
            [](INetworkDefinition& n, Constants& c) {
                return layerNorm(n, c, Dims{3, {8, 197, 768}});
            }},
        {"LayerNorm [8, 56, 56, 96] (ConvNeXt-T stage 1)",
            [](INetworkDefinition& n, Constants& c) {
                return layerNorm(n, c, Dims{4, {8, 56, 56, 96}});
            }},
        {"LayerNorm [8, 28, 28, 192] (ConvNeXt-T stage 2)",
            [](INetworkDefinition& n, Constants& c) {
                return layerNorm(n, c, Dims{4, {8, 28, 28, 192}});
            }},
        {"attention [2, 12, 128, 64] masked (BERT)",
            [](INetworkDefinition& n, Constants& c) { return attention(n, c, 2, 12, 128, true); }},
        {"attention [8, 12, 197, 64] (ViT)",
            [](INetworkDefinition& n, Constants& c) { return attention(n, c, 8, 12, 197, false); }},
        {"attention [1, 6, 1500, 64] (Whisper)",
            [](INetworkDefinition& n, Constants& c) { return attention(n, c, 1, 6, 1500, false); }},
    };
}

//! The bytes of an engine's inputs and outputs, and device memory for them (zeros), freed with it.
struct Tensors
{
    std::vector<void*> buffers;
    double bytes{0};

    ~Tensors()
    {
        for (void* buffer : buffers)
        {
            cudaFree(buffer);
        }
    }
};

bool bindTensors(ICudaEngine const& engine, IExecutionContext& context, Tensors& tensors)
{
    for (int32_t i = 0; i < engine.getNbIOTensors(); ++i)
    {
        char const* name = engine.getIOTensorName(i);
        Dims const dims = engine.getTensorShape(name);
        size_t size = engine.getTensorDataType(name) == DataType::kFLOAT ? 4 : 2;
        for (int32_t d = 0; d < dims.nbDims; ++d)
        {
            size *= static_cast<size_t>(dims.d[d]);
        }
        void* buffer = nullptr;
        if (cudaMalloc(&buffer, size) != cudaSuccess || cudaMemset(buffer, 0, size) != cudaSuccess)
        {
            return false;
        }
        tensors.buffers.push_back(buffer);
        tensors.bytes += static_cast<double>(size);
        if (!context.setTensorAddress(name, buffer))
        {
            return false;
        }
    }
    return true;
}

//! Microseconds per layer run, the median over kTrials replays of a graph of kRepeats enqueues; negative on failure.
double timeLayer(IExecutionContext& context, cudaStream_t stream)
{
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    bool ok = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess;
    for (int r = 0; ok && r < kRepeats; ++r)
    {
        ok = context.enqueueV3(stream);
    }
    ok = cudaStreamEndCapture(stream, &graph) == cudaSuccess && ok;
    ok = ok && cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess;
    cudaEvent_t start = nullptr;
    cudaEvent_t stop = nullptr;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    std::vector<double> times;
    for (int trial = -2; ok && trial < kTrials; ++trial) // two untimed replays first
    {
        cudaEventRecord(start, stream);
        ok = cudaGraphLaunch(exec, stream) == cudaSuccess;
        cudaEventRecord(stop, stream);
        ok = ok && cudaEventSynchronize(stop) == cudaSuccess;
        float milliseconds = 0.0F;
        cudaEventElapsedTime(&milliseconds, start, stop);
        if (trial >= 0)
        {
            times.push_back(1000.0 * milliseconds / kRepeats);
        }
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    if (exec != nullptr)
    {
        cudaGraphExecDestroy(exec);
    }
    if (graph != nullptr)
    {
        cudaGraphDestroy(graph);
    }
    if (!ok || times.empty())
    {
        return -1.0;
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

} // namespace

//! argv[1], where given, picks the cases whose names contain it (to profile one kernel with Nsight Compute).
int main(int argc, char** argv)
{
    std::string const only = argc > 1 ? argv[1] : "";
    if (!kiln::backendAvailable(kiln::Backend::kCUDA))
    {
        std::fprintf(stderr, "the CUDA backend is not available here\n");
        return 3;
    }
    StderrLogger logger;
    cudaStream_t stream = nullptr;
    cudaStreamCreate(&stream);
    std::printf("%-44s %10s %12s %10s\n", "layer (FP16)", "MB moved", "us per run", "GB/s");
    int status = 0;
    for (Case const& c : cases())
    {
        if (c.name.find(only) == std::string::npos)
        {
            continue;
        }
        std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
        std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
        std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
        kiln::setBackend(*config, kiln::Backend::kCUDA);
        config->setFlag(BuilderFlag::kFP16);
        Constants constants;
        ITensor* output = c.define(*network, constants);
        output->setName("y");
        network->markOutput(*output);
        std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
        std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
        std::unique_ptr<ICudaEngine> engine(
            plan ? runtime->deserializeCudaEngine(plan->data(), plan->size()) : nullptr);
        std::unique_ptr<IExecutionContext> context(engine ? engine->createExecutionContext() : nullptr);
        Tensors tensors;
        double const microseconds = context && bindTensors(*engine, *context, tensors) ? timeLayer(*context, stream)
                                                                                       : -1.0;
        if (microseconds < 0.0)
        {
            std::printf("%-44s failed to build or run\n", c.name.c_str());
            status = 3;
            continue;
        }
        std::printf("%-44s %10.2f %12.2f %10.0f\n", c.name.c_str(), tensors.bytes / 1e6, microseconds,
            tensors.bytes / (microseconds * 1e3));
    }
    cudaStreamDestroy(stream);
    return status;
}
