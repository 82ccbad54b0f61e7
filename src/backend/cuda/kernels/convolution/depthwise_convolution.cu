// The kernels of depthwise_convolution.h. Each thread computes one output position's value of one channel
// (channels-first) or of a group of V consecutive channels (channels-last, read and written as one vector), or a
// strip of S neighbouring positions' values (channels-first) or groups (channels-last FP16), summing the window's taps
// in FP32; grid-stride loops cover any size.
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/convolution/depthwise_convolution.h"
#include "backend/cuda/kernels/float_or_half.cuh"
#include "backend/shared/channel_order.h"

#include <cuda_fp16.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace kiln::cuda
{
namespace
{

using device::fromFloat;
using device::toFloat;
using Problem = DepthwiseConvolution::Problem;

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = int64_t{1} << 20;

//! V values of T moved as one piece: 16 bytes for eight FP16 values, so that a load is one vector instruction.
template <typename T, int V>
struct alignas(sizeof(T) * V) Vector
{
    T values[V];
};

__device__ __forceinline__ float epilogue(Problem const& p, float sum, float bias)
{
    float const value = sum + bias;
    return p.relu ? fmaxf(value, 0.0F) : value;
}

//! Channels-first: thread per output value, consecutive threads along an output row.
template <typename T>
__global__ void depthwiseChannelsFirst(Problem p, T const* input, T const* kernel, T const* bias, T* output)
{
    int const taps = p.kernelHeight * p.kernelWidth;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < p.outputs;
         i += int64_t{gridDim.x} * blockDim.x)
    {
        int const q = static_cast<int>(i % p.outWidth);
        int64_t const rows = i / p.outWidth; // (n * C + c) * P + row
        int const row = static_cast<int>(rows % p.outHeight);
        int64_t const plane = rows / p.outHeight; // n * C + c
        int const c = static_cast<int>(plane % p.channels);
        T const* in = input + plane * p.height * p.width;
        T const* weights = kernel + int64_t{c} * taps;
        float sum = 0.0F;
        for (int ky = 0; ky < p.kernelHeight; ++ky)
        {
            int const y = row * p.strideY - p.padY + ky * p.dilationY;
            if (y < 0 || y >= p.height)
            {
                continue;
            }
            for (int kx = 0; kx < p.kernelWidth; ++kx)
            {
                int const x = q * p.strideX - p.padX + kx * p.dilationX;
                if (x >= 0 && x < p.width)
                {
                    sum += toFloat(in[int64_t{y} * p.width + x]) * toFloat(weights[ky * p.kernelWidth + kx]);
                }
            }
        }
        output[i] = fromFloat<T>(epilogue(p, sum, bias ? toFloat(bias[c]) : 0.0F));
    }
}

//! Channels-last: thread per output position and group of V channels, consecutive threads along the channels; the
//! kernel is [taps, C], so that a warp reads each tap's weights, as its data, in consecutive vectors.
template <typename T, int V>
__global__ void depthwiseChannelsLast(Problem p, T const* input, T const* kernel, T const* bias, T* output)
{
    using Chunk = Vector<T, V>;
    int const groups = p.channels / V;
    int64_t const threads = p.outputs / V;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < threads; i += int64_t{gridDim.x} * blockDim.x)
    {
        int const c0 = static_cast<int>(i % groups) * V;
        int64_t const position = i / groups; // (n * P + row) * Q + q
        int const q = static_cast<int>(position % p.outWidth);
        int64_t const rows = position / p.outWidth;
        int const row = static_cast<int>(rows % p.outHeight);
        int64_t const n = rows / p.outHeight;
        float sum[V] = {};
        for (int ky = 0; ky < p.kernelHeight; ++ky)
        {
            int const y = row * p.strideY - p.padY + ky * p.dilationY;
            if (y < 0 || y >= p.height)
            {
                continue;
            }
            for (int kx = 0; kx < p.kernelWidth; ++kx)
            {
                int const x = q * p.strideX - p.padX + kx * p.dilationX;
                if (x < 0 || x >= p.width)
                {
                    continue;
                }
                Chunk const chunk
                    = *reinterpret_cast<Chunk const*>(input + ((n * p.height + y) * p.width + x) * p.channels + c0);
                int64_t const tap = ky * p.kernelWidth + kx;
                Chunk const weights = *reinterpret_cast<Chunk const*>(kernel + tap * p.channels + c0);
#pragma unroll
                for (int v = 0; v < V; ++v)
                {
                    sum[v] += toFloat(chunk.values[v]) * toFloat(weights.values[v]);
                }
            }
        }
        Chunk const biases = bias ? *reinterpret_cast<Chunk const*>(bias + c0) : Chunk{};
        Chunk result;
#pragma unroll
        for (int v = 0; v < V; ++v)
        {
            result.values[v] = fromFloat<T>(epilogue(p, sum[v], bias ? toFloat(biases.values[v]) : 0.0F));
        }
        *reinterpret_cast<Chunk*>(output + position * p.channels + c0) = result;
    }
}

//! Channels-last in strips: thread per S consecutive output positions of a row and group of V channels. The windows
//! of neighbouring positions overlap, so the strip reads each input vector of a window row once for its S positions
//! and each tap's weights once (a 7x7 window of stride 1 in strips of 4: 10 input and 7 weight loads a window row for
//! 4 positions, where one position a thread makes 14 for 1). The window's width KW and stride SX are fixed at compile
//! time so that a window row's vectors stay in registers (two blocks a multiprocessor at least: a strip of 4 of FP16
//! asks 136 registers a thread otherwise); the taps are summed in the one-position kernel's order.
template <typename T, int V, int KW, int SX, int S>
__global__ void __launch_bounds__(kThreads, 2)
    depthwiseChannelsLastStrips(Problem p, T const* input, T const* kernel, T const* bias, T* output)
{
    using Chunk = Vector<T, V>;
    constexpr int kColumns = (S - 1) * SX + KW; // input vectors a strip's window rows span
    int const groups = p.channels / V;
    int const strips = (p.outWidth + S - 1) / S;
    int64_t const outputRows = p.outputs / (int64_t{p.outWidth} * p.channels); // N * P
    int64_t const threads = outputRows * strips * groups;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < threads; i += int64_t{gridDim.x} * blockDim.x)
    {
        int const c0 = static_cast<int>(i % groups) * V;
        int64_t const rowStrip = i / groups; // (n * P + row) * strips + strip
        int const q0 = static_cast<int>(rowStrip % strips) * S;
        int64_t const rows = rowStrip / strips;
        int const row = static_cast<int>(rows % p.outHeight);
        int64_t const n = rows / p.outHeight;
        int const x0 = q0 * SX - p.padX;
        float sum[S][V] = {};
        for (int ky = 0; ky < p.kernelHeight; ++ky)
        {
            int const y = row * p.strideY - p.padY + ky * p.dilationY;
            if (y < 0 || y >= p.height)
            {
                continue;
            }
            T const* const line = input + (n * p.height + y) * p.width * p.channels + c0;
            Chunk columns[kColumns];
#pragma unroll
            for (int w = 0; w < kColumns; ++w)
            {
                // Columns outside the image are the padding's zeros (or lie past the row's last strip position).
                int const x = x0 + w;
                columns[w] = x >= 0 && x < p.width ? *reinterpret_cast<Chunk const*>(line + int64_t{x} * p.channels)
                                                   : Chunk{};
            }
            T const* const rowWeights = kernel + int64_t{ky} * KW * p.channels + c0;
#pragma unroll
            for (int kx = 0; kx < KW; ++kx)
            {
                Chunk const weights = *reinterpret_cast<Chunk const*>(rowWeights + int64_t{kx} * p.channels);
#pragma unroll
                for (int j = 0; j < S; ++j)
                {
#pragma unroll
                    for (int v = 0; v < V; ++v)
                    {
                        sum[j][v] += toFloat(columns[j * SX + kx].values[v]) * toFloat(weights.values[v]);
                    }
                }
            }
        }
        Chunk const biases = bias ? *reinterpret_cast<Chunk const*>(bias + c0) : Chunk{};
        T* const out = output + (rows * p.outWidth + q0) * p.channels + c0;
#pragma unroll
        for (int j = 0; j < S; ++j)
        {
            if (q0 + j < p.outWidth)
            {
                Chunk result;
#pragma unroll
                for (int v = 0; v < V; ++v)
                {
                    result.values[v] = fromFloat<T>(epilogue(p, sum[j][v], bias ? toFloat(biases.values[v]) : 0.0F));
                }
                *reinterpret_cast<Chunk*>(out + int64_t{j} * p.channels) = result;
            }
        }
    }
}

//! Channels-first in strips: thread per S consecutive output values of a row of one channel, consecutive threads along
//! the row. As in the channels-last strips, a window row's input values are loaded once for the strip's S values
//! and each tap's weight once; the taps are summed in the one-position kernel's order.
template <typename T, int KW, int SX, int S>
__global__ void depthwiseChannelsFirstStrips(Problem p, T const* input, T const* kernel, T const* bias, T* output)
{
    constexpr int kColumns = (S - 1) * SX + KW; // input values a strip's window rows span
    int const strips = (p.outWidth + S - 1) / S;
    int64_t const outputRows = p.outputs / p.outWidth; // N * C * P
    int64_t const threads = outputRows * strips;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < threads; i += int64_t{gridDim.x} * blockDim.x)
    {
        int const q0 = static_cast<int>(i % strips) * S;
        int64_t const rows = i / strips; // (n * C + c) * P + row
        int const row = static_cast<int>(rows % p.outHeight);
        int64_t const plane = rows / p.outHeight; // n * C + c
        int const c = static_cast<int>(plane % p.channels);
        T const* const in = input + plane * p.height * p.width;
        T const* const weights = kernel + int64_t{c} * p.kernelHeight * KW;
        int const x0 = q0 * SX - p.padX;
        float sum[S] = {};
        for (int ky = 0; ky < p.kernelHeight; ++ky)
        {
            int const y = row * p.strideY - p.padY + ky * p.dilationY;
            if (y < 0 || y >= p.height)
            {
                continue;
            }
            T const* const line = in + int64_t{y} * p.width;
            float columns[kColumns];
#pragma unroll
            for (int w = 0; w < kColumns; ++w)
            {
                // Columns outside the image are the padding's zeros (or lie past the row's last strip value).
                int const x = x0 + w;
                columns[w] = x >= 0 && x < p.width ? toFloat(line[x]) : 0.0F;
            }
#pragma unroll
            for (int kx = 0; kx < KW; ++kx)
            {
                float const weight = toFloat(weights[ky * KW + kx]);
#pragma unroll
                for (int j = 0; j < S; ++j)
                {
                    sum[j] += columns[j * SX + kx] * weight;
                }
            }
        }
        float const biasValue = bias ? toFloat(bias[c]) : 0.0F;
        T* const out = output + rows * p.outWidth + q0;
#pragma unroll
        for (int j = 0; j < S; ++j)
        {
            if (q0 + j < p.outWidth)
            {
                out[j] = fromFloat<T>(epilogue(p, sum[j], biasValue));
            }
        }
    }
}

int64_t blocksFor(int64_t threads)
{
    return std::min(kMaxBlocks, (threads + kThreads - 1) / kThreads);
}

template <typename T, int V>
void launchChannelsLast(
    Problem const& p, void const* input, void const* kernel, void const* bias, void* output, cudaStream_t stream)
{
    depthwiseChannelsLast<T, V><<<static_cast<unsigned>(blocksFor(p.outputs / V)), kThreads, 0, stream>>>(p,
        static_cast<T const*>(input), static_cast<T const*>(kernel), static_cast<T const*>(bias),
        static_cast<T*>(output));
}

//! The strips kernel of `format` (kHWC: FP16 alone, in vectors of 16 bytes; kLINEAR).
template <typename T, int KW, int SX, int S>
void launchStrips(Problem const& p, TensorFormat format, void const* input, void const* kernel, void const* bias,
    void* output, cudaStream_t stream)
{
    int64_t const strips = (p.outWidth + S - 1) / S;
    if constexpr (std::is_same_v<T, __half>)
    {
        if (format == TensorFormat::kHWC)
        {
            constexpr int kVector = 8;
            int64_t const threads = p.outputs / (int64_t{p.outWidth} * p.channels) * strips * (p.channels / kVector);
            depthwiseChannelsLastStrips<T, kVector, KW, SX, S>
                <<<static_cast<unsigned>(blocksFor(threads)), kThreads, 0, stream>>>(p, static_cast<T const*>(input),
                    static_cast<T const*>(kernel), static_cast<T const*>(bias), static_cast<T*>(output));
            return;
        }
    }
    int64_t const threads = p.outputs / p.outWidth * strips;
    depthwiseChannelsFirstStrips<T, KW, SX, S><<<static_cast<unsigned>(blocksFor(threads)), kThreads, 0, stream>>>(p,
        static_cast<T const*>(input), static_cast<T const*>(kernel), static_cast<T const*>(bias),
        static_cast<T*>(output));
}

//! Strips of 4 only at stride 1 (DepthwiseConvolution::strips).
template <typename T, int KW, int SX>
void launchStripsOf(Problem const& p, TensorFormat format, void const* input, void const* kernel, void const* bias,
    void* output, cudaStream_t stream)
{
    if constexpr (SX == 1)
    {
        if (p.strip == 4)
        {
            launchStrips<T, KW, SX, 4>(p, format, input, kernel, bias, output, stream);
            return;
        }
    }
    if (p.strip == 2)
    {
        launchStrips<T, KW, SX, 2>(p, format, input, kernel, bias, output, stream);
        return;
    }
    launchStrips<T, KW, SX, 1>(p, format, input, kernel, bias, output, stream);
}

template <typename T, int KW>
void launchStripsOfWidth(Problem const& p, TensorFormat format, void const* input, void const* kernel, void const* bias,
    void* output, cudaStream_t stream)
{
    if (p.strideX == 1)
    {
        launchStripsOf<T, KW, 1>(p, format, input, kernel, bias, output, stream);
    }
    else
    {
        launchStripsOf<T, KW, 2>(p, format, input, kernel, bias, output, stream);
    }
}

template <typename T>
void launch(Problem const& p, TensorFormat format, void const* input, void const* kernel, void const* bias,
    void* output, cudaStream_t stream)
{
    if (p.strip > 0)
    {
        switch (p.kernelWidth)
        {
        case 3: launchStripsOfWidth<T, 3>(p, format, input, kernel, bias, output, stream); return;
        case 5: launchStripsOfWidth<T, 5>(p, format, input, kernel, bias, output, stream); return;
        default: launchStripsOfWidth<T, 7>(p, format, input, kernel, bias, output, stream); return;
        }
    }
    if (format == TensorFormat::kLINEAR)
    {
        int64_t const blocks = std::min(kMaxBlocks, (p.outputs + kThreads - 1) / kThreads);
        depthwiseChannelsFirst<T><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(p,
            static_cast<T const*>(input), static_cast<T const*>(kernel), static_cast<T const*>(bias),
            static_cast<T*>(output));
        return;
    }
    // 16-byte vectors where the channels divide into them (every tensor starts 256-byte aligned).
    constexpr int kWide = static_cast<int>(16 / sizeof(T));
    if (p.channels % kWide == 0)
    {
        launchChannelsLast<T, kWide>(p, input, kernel, bias, output, stream);
    }
    else if (p.channels % 2 == 0)
    {
        launchChannelsLast<T, 2>(p, input, kernel, bias, output, stream);
    }
    else
    {
        launchChannelsLast<T, 1>(p, input, kernel, bias, output, stream);
    }
}

} // namespace

bool DepthwiseConvolution::takes(network::ConvolutionParams const& params, plan::Epilogue const& epilogue,
    Shape const& inputShape, nvinfer1::DataType type, TensorFormat format)
{
    if (inputShape.size() != 4 || params.kernelSize.nbDims != 2
        || (type != nvinfer1::DataType::kFLOAT && type != nvinfer1::DataType::kHALF)
        || (format != TensorFormat::kLINEAR && format != TensorFormat::kHWC))
    {
        return false;
    }
    int64_t const channels = inputShape[1];
    int64_t const taps = int64_t{params.kernelSize.d[0]} * params.kernelSize.d[1];
    bool const depthwise = channels > 0 && params.nbGroups == channels && params.nbOutputMaps == channels
        && params.kernel.count() == channels * taps;
    // Positions and rows are counted in 32 bits within a plane, planes in 64.
    bool const fits = inputShape[2] <= INT32_MAX && inputShape[3] <= INT32_MAX && channels <= INT32_MAX
        && inputShape[2] * inputShape[3] <= INT32_MAX;
    bool const epilogueRuns = !epilogue.addsResidual && (!epilogue.activates || epilogue.relu());
    return depthwise && fits && epilogueRuns;
}

DeviceBuffer DepthwiseConvolution::uploadKernel(
    network::ConvolutionParams const& params, nvinfer1::DataType type, TensorFormat format)
{
    network::WeightsBuffer const& kernel = params.kernel;
    int64_t const channels = params.nbOutputMaps;
    if (format != TensorFormat::kHWC || channels <= 0 || kernel.count() % channels != 0)
    {
        return uploadWeights(kernel, type);
    }
    int64_t const taps = kernel.count() / channels;
    std::vector<std::byte> tapMajor(static_cast<size_t>(kernel.count()) * elementSize(kernel.type()));
    backend::transposeBatched(kernel.data(), tapMajor.data(), 1, channels, taps, elementSize(kernel.type()));
    return uploadWeights(
        network::WeightsBuffer(nvinfer1::Weights{kernel.type(), tapMajor.data(), kernel.count()}), type);
}

std::vector<int32_t> DepthwiseConvolution::strips(
    ConvolutionGeometry const& geometry, nvinfer1::DataType type, TensorFormat format)
{
    // Channels-last: FP16 alone (plans store only FP16 convolution chains channels-last), in vectors of 8 channels,
    // 16 bytes, as launch reads them.
    bool const layoutTakes = format == TensorFormat::kLINEAR
        || (format == TensorFormat::kHWC && type == nvinfer1::DataType::kHALF && geometry.input.size() > 1
            && geometry.input[1] % 8 == 0);
    bool const takesStrips = geometry.input.size() == 4 && geometry.filter.size() == 4 && geometry.stride.size() == 2
        && geometry.dilation.size() == 2 && layoutTakes
        && (type == nvinfer1::DataType::kHALF || type == nvinfer1::DataType::kFLOAT) && geometry.dilation[1] == 1
        && (geometry.filter[3] == 3 || geometry.filter[3] == 5 || geometry.filter[3] == 7);
    if (takesStrips && geometry.stride[1] == 1)
    {
        return {0, 1, 2, 4};
    }
    if (takesStrips && geometry.stride[1] == 2)
    {
        return {0, 1, 2};
    }
    return {0};
}

DepthwiseConvolution::DepthwiseConvolution(
    ConvolutionGeometry const& geometry, nvinfer1::DataType type, TensorFormat format, bool relu, int32_t strip)
    : mType(type)
    , mFormat(format)
{
    Shape const& input = geometry.input;
    Shape const& output = geometry.output;
    if (input.size() != 4 || output.size() != 4 || geometry.filter.size() != 4 || output[1] != input[1]
        || geometry.filter[0] != input[1] || geometry.filter[1] != 1)
    {
        throw std::invalid_argument("convolution: Kiln's depthwise kernel does not take this geometry");
    }
    auto const narrow = [](int64_t value) { return static_cast<int32_t>(value); };
    mProblem.outputs = output[0] * output[1] * output[2] * output[3];
    mProblem.channels = narrow(input[1]);
    mProblem.height = narrow(input[2]);
    mProblem.width = narrow(input[3]);
    mProblem.outHeight = narrow(output[2]);
    mProblem.outWidth = narrow(output[3]);
    mProblem.kernelHeight = narrow(geometry.filter[2]);
    mProblem.kernelWidth = narrow(geometry.filter[3]);
    mProblem.strideY = narrow(geometry.stride[0]);
    mProblem.strideX = narrow(geometry.stride[1]);
    mProblem.padY = narrow(geometry.padding[0]);
    mProblem.padX = narrow(geometry.padding[1]);
    mProblem.dilationY = narrow(geometry.dilation[0]);
    mProblem.dilationX = narrow(geometry.dilation[1]);
    mProblem.relu = relu;
    std::vector<int32_t> const offered = strips(geometry, type, format);
    if (std::find(offered.begin(), offered.end(), strip) == offered.end())
    {
        throw std::invalid_argument("convolution: Kiln's depthwise kernel has no strips of " + std::to_string(strip)
            + " positions for this geometry");
    }
    mProblem.strip = strip;
}

void DepthwiseConvolution::run(
    void const* input, void const* kernel, void const* bias, void* output, cudaStream_t stream) const
{
    if (mProblem.outputs == 0)
    {
        return;
    }
    if (mType == nvinfer1::DataType::kHALF)
    {
        launch<__half>(mProblem, mFormat, input, kernel, bias, output, stream);
    }
    else
    {
        launch<float>(mProblem, mFormat, input, kernel, bias, output, stream);
    }
    check(cudaGetLastError(), "convolution: launching the depthwise kernel");
}

} // namespace kiln::cuda
