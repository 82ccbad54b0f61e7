// cuDNN's graph API asked for the convolutions Model Optimizer's INT8 ResNet-50 needs, whole: INT8 input and filters
// (channels-last), sums in INT32, then per-output-channel scale and bias, an optional INT8 residual with its own scale,
// ReLU, and the result written as INT8, one graph per layer. For each of ResNet-50's kinds of convolution, with and
// without the residual, it prints how many engine configurations each heuristic mode ranks, whether they compile at
// run time, the fastest of the first few (20 runs each, ms), its agreement with a host computation of 512 outputs,
// and the same layer in FP16 (FP16 input, FP32 sums, bias and ReLU in the graph: what Kiln's FP16 convolutions run).
// On the GPU machine: scripts/device/cudnn-int8-probe.sh [batch] (builds and runs this beside cudnn_int8_probe.cpp).
#include "backend/cuda/libraries/cudnn/cudnn_backend.h"

#include "cudnn_probe_common.h"

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <random>
#include <string>
#include <vector>

using kiln::cuda::BackendDescriptor;

namespace
{

using Layer = resnet50::Convolution;

enum Id : int64_t
{
    kX = 1,
    kW,
    kScale,
    kBias,
    kResidual,
    kResidualScale,
    kY,
    kVirtual = 100,
};

std::vector<int64_t> channelsLastStrides(std::vector<int64_t> const& d)
{
    return {d[1] * d[2] * d[3], 1, d[3] * d[1], d[1]};
}

//! A graph under construction: its descriptors stay alive as long as it does.
struct Graph
{
    cudnnHandle_t handle;
    std::deque<BackendDescriptor> parts;
    std::vector<BackendDescriptor> operations;
    int64_t nextVirtual = kVirtual;

    BackendDescriptor const& tensor(int64_t id, std::vector<int64_t> const& dims, cudnnDataType_t type)
    {
        return parts.emplace_back(kiln::cuda::graphTensor(id, dims, channelsLastStrides(dims), type, false));
    }
    BackendDescriptor const& intermediate(std::vector<int64_t> const& dims, cudnnDataType_t type)
    {
        return parts.emplace_back(kiln::cuda::graphTensor(nextVirtual++, dims, channelsLastStrides(dims), type, true));
    }
    void pointwise(
        cudnnPointwiseMode_t mode, BackendDescriptor const& x, BackendDescriptor const* b, BackendDescriptor const& y)
    {
        operations.push_back(kiln::cuda::pointwiseOperation(mode, x, b, y, parts));
    }
    void convolution(Layer const& layer, BackendDescriptor const& x, BackendDescriptor const& w,
        BackendDescriptor const& y, cudnnDataType_t accumulator)
    {
        cudnnConvolutionMode_t const mode = CUDNN_CROSS_CORRELATION;
        BackendDescriptor& window = parts.emplace_back(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
        window.set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &accumulator, "accumulator")
            .set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode, "mode")
            .set(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, int64_t{2}, "axes")
            .set(CUDNN_ATTR_CONVOLUTION_DILATIONS, std::vector<int64_t>{1, 1}, "dilation")
            .set(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, std::vector<int64_t>{layer.stride, layer.stride}, "stride")
            .set(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, std::vector<int64_t>{layer.pad, layer.pad}, "padding")
            .set(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, std::vector<int64_t>{layer.pad, layer.pad}, "padding")
            .finalize("convolution");
        float const one = 1.0F;
        float const zero = 0.0F;
        BackendDescriptor& operation = operations.emplace_back(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
        operation.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, x, "x")
            .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, w, "w")
            .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, y, "y")
            .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, window, "window")
            .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &one, "alpha")
            .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &zero, "beta")
            .finalize("convolution operation");
    }
    BackendDescriptor finish()
    {
        return kiln::cuda::operationGraph(handle, operations);
    }
};

struct Variant
{
    char const* name;
    bool int8;
    bool residual;
    cudnnDataType_t convolutionOutput; //!< the virtual tensor the convolution writes (INT8 graphs)
    //! The INT8 graph's input and filter codes stored as FP16 and convolved in FP32: exact, as codes are integers of
    //! at most 128 in magnitude and a window's sum stays below 2^24 (the stem's 147 taps: 2.4 M).
    bool codesAsHalf = false;
};

Variant const kVariants[] = {
    {"INT8, scale+bias+ReLU, sums as FP32", true, false, CUDNN_DATA_FLOAT},
    {"INT8, scale+bias+ReLU, sums as INT32", true, false, CUDNN_DATA_INT32},
    {"INT8, scale+bias+residual+ReLU", true, true, CUDNN_DATA_FLOAT},
    {"INT8 codes as FP16, scale+bias+ReLU", true, false, CUDNN_DATA_FLOAT, true},
    {"FP16, bias+ReLU", false, false, CUDNN_DATA_FLOAT},
};

std::vector<__half> asHalf(std::vector<int8_t> const& codes)
{
    std::vector<__half> values(codes.size());
    std::transform(codes.begin(), codes.end(), values.begin(), [](int8_t c) { return __float2half(float(c)); });
    return values;
}

struct Buffers
{
    void* x;
    void* w;
    float* scale;
    float* bias;
    void* residual;
    float* residualScale;
    void* y;
    void* workspace;
};

int64_t globalIndex(BackendDescriptor const& config)
{
    BackendDescriptor const engine = kiln::cuda::engineOf(config);
    int64_t index = -1;
    int64_t count = 0;
    cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &count, &index);
    return index;
}

bool compilesAtRunTime(BackendDescriptor const& config)
{
    return kiln::cuda::engineHasNote(kiln::cuda::engineOf(config), CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE,
        CUDNN_TYPE_BEHAVIOR_NOTE, CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION);
}

//! Host data of one INT8 layer, for the check.
struct HostData
{
    std::vector<int8_t> x, w, residual;
    std::vector<float> scale, bias;
    float residualScale;
};

int8_t saturateRound(float v)
{
    float const r = std::nearbyint(v);
    return static_cast<int8_t>(std::min(127.0F, std::max(-128.0F, r)));
}

//! Output element (n, k, p, q) of the INT8 graph computed on the host, before rounding.
float hostOutput(Layer const& l, HostData const& d, bool residual, int n, int k, int p, int q, int P, int Q)
{
    int64_t sum = 0;
    for (int r = 0; r < l.r; ++r)
    {
        for (int s = 0; s < l.r; ++s)
        {
            int const h = p * l.stride - l.pad + r;
            int const w = q * l.stride - l.pad + s;
            if (h < 0 || h >= l.h || w < 0 || w >= l.w)
            {
                continue;
            }
            int8_t const* xs = &d.x[((int64_t(n) * l.h + h) * l.w + w) * l.c];
            int8_t const* ws = &d.w[((int64_t(k) * l.r + r) * l.r + s) * l.c];
            for (int c = 0; c < l.c; ++c)
            {
                sum += int(xs[c]) * int(ws[c]);
            }
        }
    }
    float v = float(sum) * d.scale[k] + d.bias[k];
    if (residual)
    {
        v += float(d.residual[((int64_t(n) * P + p) * Q + q) * l.k + k]) * d.residualScale;
    }
    return std::max(v, 0.0F);
}

void runLayer(cudnnHandle_t handle, Layer const& layer, int batch)
{
    int const P = (layer.h + 2 * layer.pad - layer.r) / layer.stride + 1;
    int const Q = (layer.w + 2 * layer.pad - layer.r) / layer.stride + 1;
    std::vector<int64_t> const xDims{batch, layer.c, layer.h, layer.w};
    std::vector<int64_t> const wDims{layer.k, layer.c, layer.r, layer.r};
    std::vector<int64_t> const yDims{batch, layer.k, P, Q};
    std::vector<int64_t> const channelDims{1, layer.k, 1, 1};
    std::vector<int64_t> const oneDims{1, 1, 1, 1};
    size_t const xCount = size_t(batch) * layer.c * layer.h * layer.w;
    size_t const wCount = size_t(layer.k) * layer.c * layer.r * layer.r;
    size_t const yCount = size_t(batch) * layer.k * P * Q;

    // Codes in [-8, 8) and scales that put the sums' spread over the INT8 range.
    std::mt19937 random(7);
    std::uniform_int_distribution<int> code(-8, 7);
    HostData host;
    host.x.resize(xCount);
    host.w.resize(wCount);
    host.residual.resize(yCount);
    for (int8_t& v : host.x)
        v = int8_t(code(random));
    for (int8_t& v : host.w)
        v = int8_t(code(random));
    for (int8_t& v : host.residual)
        v = int8_t(code(random) * 8);
    double const spread = std::sqrt(double(layer.c) * layer.r * layer.r) * 21.0;
    std::uniform_real_distribution<float> around(0.5F, 1.5F);
    for (int k = 0; k < layer.k; ++k)
    {
        host.scale.push_back(float(40.0 / spread) * around(random));
        host.bias.push_back(float(k % 7) - 3.0F);
    }
    host.residualScale = 0.25F;

    Buffers b{};
    size_t const workspaceBytes = size_t(512) << 20;
    CUDA_OK(cudaMalloc(&b.x, xCount * 2));
    CUDA_OK(cudaMalloc(&b.w, wCount * 2));
    CUDA_OK(cudaMalloc(&b.scale, layer.k * sizeof(float)));
    CUDA_OK(cudaMalloc(&b.bias, layer.k * sizeof(float)));
    CUDA_OK(cudaMalloc(&b.residual, yCount * 2));
    CUDA_OK(cudaMalloc(&b.residualScale, sizeof(float)));
    CUDA_OK(cudaMalloc(&b.y, yCount * 2));
    CUDA_OK(cudaMalloc(&b.workspace, workspaceBytes));

    std::printf("%s at %dx%d, batch %d\n", layer.name, layer.h, layer.w, batch);
    for (Variant const& variant : kVariants)
    {
        cudnnDataType_t const data = variant.int8 && !variant.codesAsHalf ? CUDNN_DATA_INT8 : CUDNN_DATA_HALF;
        if (variant.codesAsHalf)
        {
            CUDA_OK(cudaMemcpy(b.x, asHalf(host.x).data(), xCount * 2, cudaMemcpyHostToDevice));
            CUDA_OK(cudaMemcpy(b.w, asHalf(host.w).data(), wCount * 2, cudaMemcpyHostToDevice));
        }
        else if (variant.int8)
        {
            CUDA_OK(cudaMemcpy(b.x, host.x.data(), xCount, cudaMemcpyHostToDevice));
            CUDA_OK(cudaMemcpy(b.w, host.w.data(), wCount, cudaMemcpyHostToDevice));
        }
        if (variant.int8)
        {
            CUDA_OK(cudaMemcpy(b.residual, host.residual.data(), yCount, cudaMemcpyHostToDevice));
            CUDA_OK(cudaMemcpy(b.scale, host.scale.data(), layer.k * sizeof(float), cudaMemcpyHostToDevice));
            CUDA_OK(cudaMemcpy(b.bias, host.bias.data(), layer.k * sizeof(float), cudaMemcpyHostToDevice));
            CUDA_OK(cudaMemcpy(b.residualScale, &host.residualScale, sizeof(float), cudaMemcpyHostToDevice));
        }
        else
        {
            CUDA_OK(cudaMemset(b.x, 0, xCount * 2));
            CUDA_OK(cudaMemset(b.w, 0, wCount * 2));
            CUDA_OK(cudaMemset(b.bias, 0, layer.k * sizeof(float)));
        }
        std::string summary;
        try
        {
            Graph g{handle};
            BackendDescriptor const& x = g.tensor(kX, xDims, data);
            BackendDescriptor const& w = g.tensor(kW, wDims, data);
            BackendDescriptor const& y = g.tensor(kY, yDims, variant.int8 ? CUDNN_DATA_INT8 : CUDNN_DATA_HALF);
            std::vector<int64_t> ids{kX, kW, kY};
            std::vector<void*> pointers{b.x, b.w, b.y};
            if (variant.int8)
            {
                BackendDescriptor const& sums = g.intermediate(yDims, variant.convolutionOutput);
                g.convolution(layer, x, w, sums, variant.codesAsHalf ? CUDNN_DATA_FLOAT : CUDNN_DATA_INT32);
                BackendDescriptor const& scale = g.tensor(kScale, channelDims, CUDNN_DATA_FLOAT);
                BackendDescriptor const& bias = g.tensor(kBias, channelDims, CUDNN_DATA_FLOAT);
                BackendDescriptor const& scaled = g.intermediate(yDims, CUDNN_DATA_FLOAT);
                g.pointwise(CUDNN_POINTWISE_MUL, sums, &scale, scaled);
                BackendDescriptor const* biased = &g.intermediate(yDims, CUDNN_DATA_FLOAT);
                g.pointwise(CUDNN_POINTWISE_ADD, scaled, &bias, *biased);
                ids.insert(ids.end(), {kScale, kBias});
                pointers.insert(pointers.end(), {b.scale, b.bias});
                if (variant.residual)
                {
                    BackendDescriptor const& residual = g.tensor(kResidual, yDims, CUDNN_DATA_INT8);
                    BackendDescriptor const& residualScale = g.tensor(kResidualScale, oneDims, CUDNN_DATA_FLOAT);
                    BackendDescriptor const& residualValue = g.intermediate(yDims, CUDNN_DATA_FLOAT);
                    g.pointwise(CUDNN_POINTWISE_MUL, residual, &residualScale, residualValue);
                    BackendDescriptor const& summed = g.intermediate(yDims, CUDNN_DATA_FLOAT);
                    g.pointwise(CUDNN_POINTWISE_ADD, *biased, &residualValue, summed);
                    biased = &summed;
                    ids.insert(ids.end(), {kResidual, kResidualScale});
                    pointers.insert(pointers.end(), {b.residual, b.residualScale});
                }
                g.pointwise(CUDNN_POINTWISE_RELU_FWD, *biased, nullptr, y);
            }
            else
            {
                BackendDescriptor const& sums = g.intermediate(yDims, CUDNN_DATA_FLOAT);
                g.convolution(layer, x, w, sums, CUDNN_DATA_FLOAT);
                BackendDescriptor const& bias = g.tensor(kBias, channelDims, CUDNN_DATA_HALF);
                BackendDescriptor const& biased = g.intermediate(yDims, CUDNN_DATA_FLOAT);
                g.pointwise(CUDNN_POINTWISE_ADD, sums, &bias, biased);
                g.pointwise(CUDNN_POINTWISE_RELU_FWD, biased, nullptr, y);
                ids.push_back(kBias);
                pointers.push_back(b.bias);
            }
            BackendDescriptor const graph = g.finish();

            std::vector<BackendDescriptor> configs;
            for (cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_B, CUDNN_HEUR_MODE_FALLBACK})
            {
                std::vector<BackendDescriptor> ranked;
                try
                {
                    ranked = kiln::cuda::rankedEngineConfigs(graph, mode);
                }
                catch (std::exception const& e)
                {
                    summary += " [heuristic " + std::to_string(int(mode)) + " refused: " + e.what() + "]";
                }
                summary += " mode" + std::to_string(int(mode)) + ":" + std::to_string(ranked.size());
                if (configs.empty())
                {
                    configs = std::move(ranked);
                }
            }
            double best = -1.0;
            int64_t bestEngine = -1;
            bool bestCompiles = false;
            int tried = 0;
            for (BackendDescriptor const& config : configs)
            {
                if (tried == 6)
                {
                    break;
                }
                auto const planStart = std::chrono::steady_clock::now();
                std::optional<BackendDescriptor> plan = kiln::cuda::executionPlan(handle, config);
                double const planSeconds
                    = std::chrono::duration<double>(std::chrono::steady_clock::now() - planStart).count();
                if (!plan || kiln::cuda::workspaceBytesOf(*plan) > int64_t(workspaceBytes))
                {
                    continue;
                }
                ++tried;
                BackendDescriptor const pack = kiln::cuda::variantPack(ids, pointers, b.workspace);
                if (cudnnBackendExecute(handle, plan->get(), pack.get()) != CUDNN_STATUS_SUCCESS)
                {
                    continue;
                }
                cudaEvent_t start{};
                cudaEvent_t stop{};
                cudaEventCreate(&start);
                cudaEventCreate(&stop);
                cudaEventRecord(start);
                constexpr int kRuns = 20;
                for (int run = 0; run < kRuns; ++run)
                {
                    cudnnBackendExecute(handle, plan->get(), pack.get());
                }
                cudaEventRecord(stop);
                CUDA_OK(cudaEventSynchronize(stop));
                float ms = 0.0F;
                cudaEventElapsedTime(&ms, start, stop);
                double const each = ms / kRuns;
                std::printf("      engine %lld%s: %.3f ms (plan made in %.2f s)\n", (long long) globalIndex(config),
                    compilesAtRunTime(config) ? " (compiles at run time)" : "", each, planSeconds);
                if (best < 0.0 || each < best)
                {
                    best = each;
                    bestEngine = globalIndex(config);
                    bestCompiles = compilesAtRunTime(config);
                    if (variant.int8)
                    {
                        // Agreement with the host: 512 outputs spread over the tensor.
                        std::vector<int8_t> out(yCount);
                        CUDA_OK(cudaMemcpy(out.data(), b.y, yCount, cudaMemcpyDeviceToHost));
                        int off = 0;
                        int offByMore = 0;
                        std::mt19937 pick(11);
                        for (int i = 0; i < 512; ++i)
                        {
                            int const n = int(pick() % batch), k = int(pick() % layer.k);
                            int const p = int(pick() % P), q = int(pick() % Q);
                            float const expected = hostOutput(layer, host, variant.residual, n, k, p, q, P, Q);
                            int const got = out[((int64_t(n) * P + p) * Q + q) * layer.k + k];
                            int const difference = std::abs(got - saturateRound(expected));
                            off += difference == 1;
                            offByMore += difference > 1;
                        }
                        std::printf("        check: %d of 512 off by one, %d by more\n", off, offByMore);
                    }
                }
                cudaEventDestroy(start);
                cudaEventDestroy(stop);
            }
            double const operations = 2.0 * batch * layer.k * P * Q * double(layer.c) * layer.r * layer.r;
            if (best > 0.0)
            {
                std::printf("    %-40s %8.3f ms %7.1f TOPS engine %lld%s;%s\n", variant.name, best,
                    operations / (best * 1e9), (long long) bestEngine, bestCompiles ? " (runtime compiled)" : "",
                    summary.c_str());
            }
            else
            {
                std::printf("    %-40s no engine ran;%s\n", variant.name, summary.c_str());
            }
        }
        catch (std::exception const& e)
        {
            std::printf("    %-40s refused: %s;%s\n", variant.name, e.what(), summary.c_str());
        }
        std::fflush(stdout);
    }
    for (void* p : {b.x, b.w, static_cast<void*>(b.scale), static_cast<void*>(b.bias), b.residual,
             static_cast<void*>(b.residualScale), b.y, b.workspace})
    {
        cudaFree(p);
    }
}

} // namespace

int main(int argc, char** argv)
{
    int const batch = argc > 1 ? std::atoi(argv[1]) : 256;
    cudaDeviceProp properties{};
    CUDA_OK(cudaGetDeviceProperties(&properties, 0));
    std::printf("GPU %s (sm_%d%d), cuDNN %zu, batch %d, graph API\n", properties.name, properties.major,
        properties.minor, cudnnGetVersion(), batch);
    cudnnHandle_t handle{};
    if (cudnnCreate(&handle) != CUDNN_STATUS_SUCCESS)
    {
        return 1;
    }
    // A second argument picks the layers whose names contain it ("stem").
    char const* only = argc > 2 ? argv[2] : "";
    for (Layer const& layer : resnet50::kConvolutions)
    {
        if (std::strstr(layer.name, only) != nullptr)
        {
            runLayer(handle, layer, batch);
        }
    }
    cudnnDestroy(handle);
    return 0;
}
