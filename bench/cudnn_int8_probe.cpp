// cuDNN's own INT8 convolutions beside its FP16 ones on ResNet-50's layer shapes (one of each kind), through the legacy
// convolution API: INT8 NHWC with INT8 output (INT8_CONFIG) or FP32 output (INT8_EXT_CONFIG), INT8x32 NC/32HW32, and
// FP16 NHWC with FP32 sums; for each, the fastest algorithm cudnnFindConvolutionForwardAlgorithmEx finds, timed over 20
// runs: ms and tera-operations a second. Kiln's INT8 convolutions are an implicit GEMM of its own; this measures what
// cuDNN's kernels would give for the convolution alone (no bias, activation, residual or per-channel scale: the legacy
// API takes one scale for the whole output). On the GPU machine: scripts/device/cudnn-int8-probe.sh [batch], or
//   nvcc -O2 bench/cudnn_int8_probe.cpp -lcudnn -o /tmp/cudnn_int8_probe && /tmp/cudnn_int8_probe [batch]
#include "cudnn_probe_common.h"

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace
{

//! A cuDNN call that may fail for a configuration: false (with the reason printed) instead of exiting.
bool ok(cudnnStatus_t status, char const* what)
{
    if (status != CUDNN_STATUS_SUCCESS)
    {
        std::printf("    %s: %s\n", what, cudnnGetErrorString(status));
        return false;
    }
    return true;
}

using Layer = resnet50::Convolution;

struct Config
{
    char const* name;
    cudnnTensorFormat_t format;
    cudnnDataType_t input;   //!< x and w
    cudnnDataType_t output;  //!< y
    cudnnDataType_t compute; //!< the convolution's
    size_t inputBytes;       //!< per element of x and w
    size_t outputBytes;      //!< per element of y
    int channelMultiple;     //!< the channels the format needs a multiple of
};

Config const kConfigs[] = {
    {"FP16 NHWC, FP32 sums", CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, 2, 2, 1},
    {"INT8 NHWC -> INT8 (INT8_CONFIG)", CUDNN_TENSOR_NHWC, CUDNN_DATA_INT8, CUDNN_DATA_INT8, CUDNN_DATA_INT32, 1, 1, 4},
    {"INT8 NHWC -> FP32 (INT8_EXT_CONFIG)", CUDNN_TENSOR_NHWC, CUDNN_DATA_INT8, CUDNN_DATA_FLOAT, CUDNN_DATA_INT32, 1,
        4, 4},
    {"INT8x32 NC/32HW32 -> INT8x32", CUDNN_TENSOR_NCHW_VECT_C, CUDNN_DATA_INT8x32, CUDNN_DATA_INT8x32, CUDNN_DATA_INT32,
        1, 1, 32},
};

char const* algorithmName(cudnnConvolutionFwdAlgo_t algorithm)
{
    switch (algorithm)
    {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "implicit GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "implicit precomputed GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "direct";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "FFT tiling";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "Winograd";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "Winograd nonfused";
    default: return "?";
    }
}

//! The best of cuDNN's forward algorithms for `layer` in `config`, timed by cudnnFindConvolutionForwardAlgorithmEx
//! and then 20 runs of the winner: milliseconds, or a negative number where cuDNN takes no algorithm.
double timeLayer(cudnnHandle_t handle, Layer const& layer, Config const& config, int batch)
{
    int const c = (layer.c + config.channelMultiple - 1) / config.channelMultiple * config.channelMultiple;
    int const k = (layer.k + config.channelMultiple - 1) / config.channelMultiple * config.channelMultiple;
    int const p = (layer.h + 2 * layer.pad - layer.r) / layer.stride + 1;
    int const q = (layer.w + 2 * layer.pad - layer.r) / layer.stride + 1;
    cudnnTensorDescriptor_t x{};
    cudnnTensorDescriptor_t y{};
    cudnnFilterDescriptor_t w{};
    cudnnConvolutionDescriptor_t conv{};
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&y);
    cudnnCreateFilterDescriptor(&w);
    cudnnCreateConvolutionDescriptor(&conv);
    double result = -1.0;
    void* xData = nullptr;
    void* wData = nullptr;
    void* yData = nullptr;
    void* workspace = nullptr;
    size_t const xBytes = size_t(batch) * c * layer.h * layer.w * config.inputBytes;
    size_t const wBytes = size_t(k) * c * layer.r * layer.r * config.inputBytes;
    size_t const yBytes = size_t(batch) * k * p * q * config.outputBytes;
    size_t const workspaceBytes = size_t(256) << 20;
    CUDA_OK(cudaMalloc(&xData, xBytes));
    CUDA_OK(cudaMalloc(&wData, wBytes));
    CUDA_OK(cudaMalloc(&yData, yBytes));
    CUDA_OK(cudaMalloc(&workspace, workspaceBytes));
    CUDA_OK(cudaMemset(xData, 1, xBytes));
    CUDA_OK(cudaMemset(wData, 1, wBytes));
    bool const described
        = ok(cudnnSetTensor4dDescriptor(x, config.format, config.input, batch, c, layer.h, layer.w), "x")
        && ok(cudnnSetFilter4dDescriptor(w, config.input, config.format, k, c, layer.r, layer.r), "w")
        && ok(cudnnSetTensor4dDescriptor(y, config.format, config.output, batch, k, p, q), "y")
        && ok(cudnnSetConvolution2dDescriptor(conv, layer.pad, layer.pad, layer.stride, layer.stride, 1, 1,
                  CUDNN_CROSS_CORRELATION, config.compute),
            "convolution")
        && ok(cudnnSetConvolutionMathType(conv, CUDNN_TENSOR_OP_MATH), "math type");
    cudnnConvolutionFwdAlgoPerf_t found[8]{};
    int count = 0;
    if (described
        && ok(cudnnFindConvolutionForwardAlgorithmEx(
                  handle, x, xData, w, wData, conv, y, yData, 8, &count, found, workspace, workspaceBytes),
            "find"))
    {
        for (int i = 0; i < count; ++i)
        {
            if (found[i].status != CUDNN_STATUS_SUCCESS || found[i].memory > workspaceBytes)
            {
                continue;
            }
            float const one = 1.0F;
            float const zero = 0.0F;
            cudaEvent_t start{};
            cudaEvent_t stop{};
            cudaEventCreate(&start);
            cudaEventCreate(&stop);
            cudnnConvolutionForward(
                handle, &one, x, xData, w, wData, conv, found[i].algo, workspace, workspaceBytes, &zero, y, yData);
            cudaEventRecord(start);
            constexpr int kRuns = 20;
            for (int run = 0; run < kRuns; ++run)
            {
                cudnnConvolutionForward(
                    handle, &one, x, xData, w, wData, conv, found[i].algo, workspace, workspaceBytes, &zero, y, yData);
            }
            cudaEventRecord(stop);
            CUDA_OK(cudaEventSynchronize(stop));
            float ms = 0.0F;
            cudaEventElapsedTime(&ms, start, stop);
            result = ms / kRuns;
            double const operations = 2.0 * batch * k * p * q * double(c) * layer.r * layer.r;
            std::printf("    %-38s %8.3f ms  %7.1f TOPS  %s, math %d\n", config.name, result,
                operations / (result * 1e9), algorithmName(found[i].algo), int(found[i].mathType));
            cudaEventDestroy(start);
            cudaEventDestroy(stop);
            break;
        }
    }
    if (result < 0.0)
    {
        std::printf("    %-38s no algorithm\n", config.name);
    }
    cudaFree(xData);
    cudaFree(wData);
    cudaFree(yData);
    cudaFree(workspace);
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyConvolutionDescriptor(conv);
    return result;
}

} // namespace

int main(int argc, char** argv)
{
    int const batch = argc > 1 ? std::atoi(argv[1]) : 256;
    cudaDeviceProp properties{};
    CUDA_OK(cudaGetDeviceProperties(&properties, 0));
    std::printf("GPU %s (sm_%d%d), cuDNN %zu, batch %d\n", properties.name, properties.major, properties.minor,
        cudnnGetVersion(), batch);
    cudnnHandle_t handle{};
    if (!ok(cudnnCreate(&handle), "cudnnCreate"))
    {
        return 1;
    }
    std::vector<double> totals(sizeof(kConfigs) / sizeof(kConfigs[0]), 0.0);
    for (Layer const& layer : resnet50::kConvolutions)
    {
        std::printf("%s at %dx%d\n", layer.name, layer.h, layer.w);
        for (size_t i = 0; i < totals.size(); ++i)
        {
            double const ms = timeLayer(handle, layer, kConfigs[i], batch);
            totals[i] += ms > 0.0 ? ms : 0.0;
        }
    }
    std::printf("sum over the layers above (one of each):\n");
    for (size_t i = 0; i < totals.size(); ++i)
    {
        std::printf("    %-38s %8.3f ms\n", kConfigs[i].name, totals[i]);
    }
    cudnnDestroy(handle);
    return 0;
}
