// IPoolingLayer on the GPU, as the CPU reference (backend/cpu/kernels/nn/pooling.h): N-d windows over the
// last windowSize.size() axes, strides, explicit and SAME padding modes, max / average / max-average blend.
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/strided_index.cuh"
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/prepared_kernel_layer.h"
#include "backend/shared/pooling_geometry.h"
#include "network/layers/layer_utils.h"

#include <cuda_fp16.h>

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::DataType;
using device::kMaxRank;

//! Where the windows fall, per spatial axis.
struct Windows
{
    int32_t rank{0};
    int64_t inputSize[kMaxRank]{};
    int64_t outputSize[kMaxRank]{};
    int64_t window[kMaxRank]{};
    int64_t stride[kMaxRank]{};
    int64_t pre[kMaxRank]{};
    int64_t post[kMaxRank]{};
    nvinfer1::PoolingType type{nvinfer1::PoolingType::kMAX};
    float blendFactor{0.0F};
    bool excludePadding{true};
    int64_t inputPlane{1};
    int64_t outputPlane{1};
};

//! A window's result from its maximum and sum over `inputCount` input elements (`paddedCount` with padding).
__device__ float pooled(Windows const& w, float maximum, double sum, int64_t inputCount, int64_t paddedCount)
{
    int64_t const divisor = w.excludePadding ? inputCount : paddedCount;
    float const maxPart = inputCount > 0 ? maximum : 0.0F;
    float const averagePart = divisor > 0 ? static_cast<float>(sum / static_cast<double>(divisor)) : 0.0F;
    switch (w.type)
    {
    case nvinfer1::PoolingType::kAVERAGE: return averagePart;
    case nvinfer1::PoolingType::kMAX_AVERAGE_BLEND:
        return (1.0F - w.blendFactor) * maxPart + w.blendFactor * averagePart;
    default: return maxPart;
    }
}

//! Where one output position's window falls along spatial `axis`: [first, last) clipped to the input, and how many
//! positions of the padded input it covers (what averages that count padding divide by).
template <typename Index>
struct AxisWindow
{
    Index first;
    Index last;
    Index padded;

    __device__ Index inside() const
    {
        return last > first ? last - first : 0;
    }
};

template <typename Index>
__device__ AxisWindow<Index> axisWindow(Windows const& w, int axis, Index position)
{
    auto const pre = static_cast<Index>(w.pre[axis]);
    auto const size = static_cast<Index>(w.inputSize[axis]);
    Index const start = position * static_cast<Index>(w.stride[axis]) - pre;
    Index const end = start + static_cast<Index>(w.window[axis]);
    Index const padded = min(end, size + static_cast<Index>(w.post[axis])) - max(start, -pre);
    return {max(start, Index{0}), min(end, size), max(padded, Index{0})};
}

//! An element of the pooled tensor as a float: INT8 too, which only max pooling takes (the maximum of INT8 values is
//! one of them, so it goes back exactly; a window wholly in the padding gives 0).
__device__ inline float loadPooled(void const* data, DataType type, int64_t i)
{
    return type == DataType::kINT8 ? static_cast<float>(static_cast<int8_t const*>(data)[i])
                                   : device::loadFloat(data, type, i);
}

__device__ inline void storePooled(void* data, DataType type, int64_t i, float value)
{
    if (type == DataType::kINT8)
    {
        static_cast<int8_t*>(data)[i] = static_cast<int8_t>(value);
        return;
    }
    device::storeFloat(data, type, i, value);
}

//! A window's values folded as the CPU folds them: the maximum, through which NaN propagates, and (for averages)
//! the sum in double, so long windows lose nothing to float rounding.
struct WindowFold
{
    bool averages;
    double sum{0.0};
    float maximum{-INFINITY};

    __device__ void add(float value)
    {
        if (averages)
        {
            sum += value;
        }
        if (!isnan(maximum) && (isnan(value) || value > maximum))
        {
            maximum = value;
        }
    }
};

//! One thread per output element; neighbouring threads take neighbouring output positions of one plane, so their
//! windows overlap and their loads share cache lines.
__global__ void poolingKernel(
    void const* input, DataType inType, void* output, DataType outType, Windows w, int64_t count)
{
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        int64_t const plane = i / w.outputPlane;
        int64_t position = i % w.outputPlane;
        // The window clipped to the input (first, extent), and the counts the average divides by.
        int64_t first[kMaxRank];
        int64_t extent[kMaxRank];
        int64_t inputStride[kMaxRank];
        int64_t paddedCount = 1;
        int64_t inputCount = 1;
        int64_t stride = 1;
        for (int32_t axis = w.rank - 1; axis >= 0; --axis)
        {
            int64_t const coordinate = position % w.outputSize[axis];
            position /= w.outputSize[axis];
            AxisWindow<int64_t> const span = axisWindow(w, axis, coordinate);
            paddedCount *= span.padded;
            first[axis] = span.first;
            extent[axis] = span.inside();
            inputCount *= extent[axis];
            inputStride[axis] = stride;
            stride *= w.inputSize[axis];
        }
        WindowFold fold{true};
        int64_t const base = plane * w.inputPlane;
        for (int64_t k = 0; k < inputCount; ++k)
        {
            int64_t rest = k;
            int64_t offset = base;
            for (int32_t axis = w.rank - 1; axis >= 0; --axis)
            {
                offset += (first[axis] + rest % extent[axis]) * inputStride[axis];
                rest /= extent[axis];
            }
            fold.add(loadPooled(input, inType, offset));
        }
        storePooled(output, outType, i, pooled(w, fold.maximum, fold.sum, inputCount, paddedCount));
    }
}

//! The common case of two spatial axes, as poolingKernel computes it, without poolingKernel's per-tap divisions:
//! the window's rows and columns are plain loops. (ResNet's max pooling ran 27 times slower than memory allows
//! through the general kernel.)
__global__ void pooling2dKernel(
    void const* input, DataType inType, void* output, DataType outType, Windows w, int64_t count)
{
    int64_t const inputWidth = w.inputSize[1];
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        int64_t const plane = i / w.outputPlane;
        int64_t const position = i - plane * w.outputPlane;
        int64_t const outputY = position / w.outputSize[1];
        AxisWindow<int64_t> const rows = axisWindow(w, 0, outputY);
        AxisWindow<int64_t> const columns = axisWindow(w, 1, position - outputY * w.outputSize[1]);
        WindowFold fold{w.type != nvinfer1::PoolingType::kMAX};
        int64_t const base = plane * w.inputPlane;
        for (int64_t y = rows.first; y < rows.last; ++y)
        {
            for (int64_t x = columns.first; x < columns.last; ++x)
            {
                fold.add(loadPooled(input, inType, base + y * inputWidth + x));
            }
        }
        storePooled(output, outType, i,
            pooled(w, fold.maximum, fold.sum, rows.inside() * columns.inside(), rows.padded * columns.padded));
    }
}

//! Two spatial axes over kHWC data ([N, H, W, C] in memory). A block row per output row of one image (blockIdx.y:
//! image * outputHeight + y), its threads across the row's (x, channel) pairs: neighbouring threads read the
//! neighbouring channels of one pixel, and the index arithmetic is 32-bit and done once per row where it can be.
__global__ void poolingChannelsLastKernel(
    void const* input, DataType inType, void* output, DataType outType, Windows w, int32_t channels, int32_t rows)
{
    auto const inputHeight = static_cast<int32_t>(w.inputSize[0]);
    auto const inputWidth = static_cast<int32_t>(w.inputSize[1]);
    auto const outputHeight = static_cast<int32_t>(w.outputSize[0]);
    int32_t const rowLength = static_cast<int32_t>(w.outputSize[1]) * channels;
    for (int32_t row = blockIdx.y; row < rows; row += gridDim.y)
    {
        int32_t const image = row / outputHeight;
        AxisWindow<int32_t> const windowRows = axisWindow(w, 0, row - image * outputHeight);
        int64_t const imageBase = static_cast<int64_t>(image) * inputHeight * inputWidth * channels;
        for (int32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < rowLength; j += blockDim.x * gridDim.x)
        {
            int32_t const outputX = j / channels;
            int32_t const channel = j - outputX * channels;
            AxisWindow<int32_t> const windowColumns = axisWindow(w, 1, outputX);
            WindowFold fold{w.type != nvinfer1::PoolingType::kMAX};
            for (int32_t y = windowRows.first; y < windowRows.last; ++y)
            {
                for (int32_t x = windowColumns.first; x < windowColumns.last; ++x)
                {
                    fold.add(loadPooled(
                        input, inType, imageBase + static_cast<int64_t>(y * inputWidth + x) * channels + channel));
                }
            }
            int64_t const inputCount = static_cast<int64_t>(windowRows.inside()) * windowColumns.inside();
            int64_t const paddedCount = static_cast<int64_t>(windowRows.padded) * windowColumns.padded;
            storePooled(output, outType, static_cast<int64_t>(row) * rowLength + j,
                pooled(w, fold.maximum, fold.sum, inputCount, paddedCount));
        }
    }
}

//! The 16-byte lanes of a vector max pooling: FP16 (8 channels, NaN propagating, as on the CPU) or INT8 (16 channels;
//! the maximum of INT8 values is the maximum of what they dequantize to, the scale being positive).
struct HalfLanes
{
    static constexpr int kChannels = 8;
    __device__ static uint32_t lowest()
    {
        return 0xFC00FC00U; // two FP16 -inf
    }
    __device__ static uint32_t maximum(uint32_t a, uint32_t b)
    {
        __half2 const m = __hmax2_nan(*reinterpret_cast<__half2 const*>(&a), *reinterpret_cast<__half2 const*>(&b));
        return *reinterpret_cast<uint32_t const*>(&m);
    }
};

struct Int8Lanes
{
    static constexpr int kChannels = 16;
    __device__ static uint32_t lowest()
    {
        return 0x80808080U; // four -128
    }
    __device__ static uint32_t maximum(uint32_t a, uint32_t b)
    {
        return __vmaxs4(a, b);
    }
};

//! Max pooling of FP16 or INT8 kHWC data whose channels fill 16-byte vectors (a ResNet stem's): one thread per vector
//! of an output pixel, each window position read as one vector and folded 4 bytes at a time. The general kernel
//! above reads one element per thread and load, and runs at a tenth of the memory's speed on such tensors.
template <typename Lanes>
__global__ void maxPoolVectorKernel(uint4 const* input, uint4* output, Windows w, int32_t groups, int64_t count)
{
    auto const inputHeight = static_cast<int64_t>(w.inputSize[0]);
    auto const inputWidth = static_cast<int64_t>(w.inputSize[1]);
    auto const outputHeight = static_cast<int64_t>(w.outputSize[0]);
    auto const outputWidth = static_cast<int64_t>(w.outputSize[1]);
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count; i += int64_t{gridDim.x} * blockDim.x)
    {
        int64_t const pixel = i / groups;
        int64_t const group = i - pixel * groups;
        int64_t const x = pixel % outputWidth;
        int64_t const y = pixel / outputWidth % outputHeight;
        int64_t const image = pixel / (outputWidth * outputHeight);
        AxisWindow<int64_t> const rows = axisWindow(w, 0, y);
        AxisWindow<int64_t> const columns = axisWindow(w, 1, x);
        uint4 maximum{Lanes::lowest(), Lanes::lowest(), Lanes::lowest(), Lanes::lowest()};
        for (int64_t row = rows.first; row < rows.last; ++row)
        {
            for (int64_t column = columns.first; column < columns.last; ++column)
            {
                uint4 const v = input[((image * inputHeight + row) * inputWidth + column) * groups + group];
                maximum = uint4{Lanes::maximum(maximum.x, v.x), Lanes::maximum(maximum.y, v.y),
                    Lanes::maximum(maximum.z, v.z), Lanes::maximum(maximum.w, v.w)};
            }
        }
        // A window wholly in the padding pools to 0.
        output[i] = rows.inside() == 0 || columns.inside() == 0 ? uint4{0, 0, 0, 0} : maximum;
    }
}

//! The channels of one 16-byte vector where maxPoolVectorKernel takes this pooling, else 0.
int32_t vectorChannels(network::PoolingParams const& params, ConstTensorView const& input, TensorView const& output)
{
    auto const aligned = [](void const* pointer) { return reinterpret_cast<uintptr_t>(pointer) % 16 == 0; };
    int32_t const channels = input.type == DataType::kHALF ? HalfLanes::kChannels
        : input.type == DataType::kINT8                    ? Int8Lanes::kChannels
                                                           : 0;
    bool const takes = channels > 0 && params.poolingType == nvinfer1::PoolingType::kMAX && output.type == input.type
        && input.format == TensorFormat::kHWC && input.rank() == 4 && input.shape[1] % channels == 0
        && aligned(input.data) && aligned(output.data);
    return takes ? channels : 0;
}

//! Throws std::invalid_argument where the CUDA kernels cannot pool `input` into `output` by `params`.
void checkPoolingArguments(network::PoolingParams const& params, ConstTensorView const& input, TensorView const& output)
{
    // The CPU reference's geometry, so that both backends place windows and pad identically.
    if (output.shape != backend::poolingOutputShape(input.shape, params))
    {
        throw std::invalid_argument("pooling: the output's shape is not the pooled input's");
    }
    bool const int8Max = params.poolingType == nvinfer1::PoolingType::kMAX && input.type == DataType::kINT8
        && output.type == DataType::kINT8;
    if (!int8Max && (!isFloatType(input.type) || !isFloatType(output.type)))
    {
        throw std::invalid_argument("pooling: the CUDA backend takes FP32, FP16 or BF16 tensors, and INT8 ones for "
                                    "max pooling");
    }
    size_t const rank = static_cast<size_t>(params.windowSize.nbDims);
    if (rank > static_cast<size_t>(kMaxRank))
    {
        throw std::invalid_argument("pooling: at most 8 spatial axes");
    }
    bool const channelsLast = input.format == TensorFormat::kHWC;
    if (input.format != output.format || (input.format != TensorFormat::kLINEAR && !channelsLast))
    {
        throw std::invalid_argument("pooling: the CUDA backend pools kLINEAR and kHWC tensors");
    }
    bool const fitsInt32 = input.rank() == 4 && input.shape[1] * input.shape[2] * input.shape[3] <= INT32_MAX
        && input.shape[0] * input.shape[2] <= INT32_MAX;
    if (channelsLast && (rank != 2 || !fitsInt32))
    {
        throw std::invalid_argument("pooling: kHWC tensors are pooled over two spatial axes, with fewer than 2^31 "
                                    "elements per image and rows in the batch");
    }
}

//! The windows of `params` over the trailing spatial axes of `inputShape`, placed as the CPU reference places them.
Windows windowsOf(network::PoolingParams const& params, Shape const& inputShape)
{
    Shape const windowSize = network::dimsToVector(params.windowSize);
    size_t const rank = windowSize.size();
    size_t const leading = inputShape.size() - rank;
    Shape const inputSize(inputShape.begin() + static_cast<std::ptrdiff_t>(leading), inputShape.end());
    Shape const stride = backend::spatialParameter(params.stride, rank, 1, "pooling stride");
    backend::WindowGeometry const geometry = backend::forwardWindowGeometry(inputSize, windowSize, stride,
        backend::spatialParameter(params.prePadding, rank, 0, "pooling prePadding"),
        backend::spatialParameter(params.postPadding, rank, 0, "pooling postPadding"), params.paddingMode);
    Windows w;
    w.rank = static_cast<int32_t>(rank);
    w.type = params.poolingType;
    w.blendFactor = params.blendFactor;
    w.excludePadding = params.averageCountExcludesPadding;
    for (size_t axis = 0; axis < rank; ++axis)
    {
        w.inputSize[axis] = inputSize[axis];
        w.outputSize[axis] = geometry.outputSize[axis];
        w.window[axis] = windowSize[axis];
        w.stride[axis] = stride[axis];
        w.pre[axis] = geometry.prePadding[axis];
        w.post[axis] = geometry.postPadding[axis];
        w.inputPlane *= inputSize[axis];
        w.outputPlane *= geometry.outputSize[axis];
    }
    return w;
}

//! Which kernel pools, and its grid.
enum class PoolingKernel : uint8_t
{
    kNONE,        //!< an empty output
    kMAX_VECTORS, //!< maxPoolVectorKernel
    kCHANNELS_LAST,
    kTWO_AXES,
    kANY_AXES,
};

struct PoolingLaunch
{
    PoolingKernel kernel{PoolingKernel::kNONE};
    Windows windows{};
    void const* input{nullptr};
    DataType inputType{DataType::kFLOAT};
    void* output{nullptr};
    DataType outputType{DataType::kFLOAT};
    int64_t count{0};    //!< outputs (kMAX_VECTORS: 16-byte vectors of them)
    int32_t channels{0}; //!< kMAX_VECTORS: vectors of channels; kCHANNELS_LAST: channels
    int32_t rows{0};     //!< kCHANNELS_LAST: output rows in the batch
    dim3 grid{1, 1, 1};  //!< kCHANNELS_LAST
};

//! Same parameters and rules as cpu::runPooling (FP32/FP16/BF16; NaN propagates through max and average; a window
//! over padding only gives 0). Throws std::invalid_argument for inconsistent parameters or shapes.
PoolingLaunch preparePooling(
    network::PoolingParams const& params, ConstTensorView const& input, TensorView const& output)
{
    checkPoolingArguments(params, input, output);
    PoolingLaunch launch;
    int64_t const count = output.count();
    if (count == 0)
    {
        return launch;
    }
    launch.windows = windowsOf(params, input.shape);
    launch.input = input.data;
    launch.inputType = input.type;
    launch.output = output.data;
    launch.outputType = output.type;
    launch.count = count;
    Windows const& w = launch.windows;
    bool const channelsLast = input.format == TensorFormat::kHWC;
    int32_t const perVector = channelsLast ? vectorChannels(params, input, output) : 0;
    if (perVector > 0)
    {
        launch.kernel = PoolingKernel::kMAX_VECTORS;
        launch.count = count / perVector;
        launch.channels = static_cast<int32_t>(input.shape[1] / perVector);
    }
    else if (channelsLast)
    {
        // A block of 256 threads covers 256 (x, channel) pairs of an output row; rows beyond the grid's 65535 loop.
        int64_t const rowLength = w.outputSize[1] * input.shape[1];
        int64_t const rows = input.shape[0] * w.outputSize[0];
        launch.kernel = PoolingKernel::kCHANNELS_LAST;
        launch.grid = dim3(static_cast<unsigned>(std::min<int64_t>(
                               (rowLength + device::kThreadsPerBlock - 1) / device::kThreadsPerBlock, 65535)),
            static_cast<unsigned>(std::min<int64_t>(rows, 65535)));
        launch.channels = static_cast<int32_t>(input.shape[1]);
        launch.rows = static_cast<int32_t>(rows);
    }
    else
    {
        launch.kernel = w.rank == 2 ? PoolingKernel::kTWO_AXES : PoolingKernel::kANY_AXES;
    }
    return launch;
}

void launchPooling(PoolingLaunch const& l, cudaStream_t stream)
{
    switch (l.kernel)
    {
    case PoolingKernel::kNONE: return;
    case PoolingKernel::kMAX_VECTORS:
        if (l.inputType == DataType::kINT8)
        {
            maxPoolVectorKernel<Int8Lanes><<<device::blocksFor(l.count), device::kThreadsPerBlock, 0, stream>>>(
                static_cast<uint4 const*>(l.input), static_cast<uint4*>(l.output), l.windows, l.channels, l.count);
        }
        else
        {
            maxPoolVectorKernel<HalfLanes><<<device::blocksFor(l.count), device::kThreadsPerBlock, 0, stream>>>(
                static_cast<uint4 const*>(l.input), static_cast<uint4*>(l.output), l.windows, l.channels, l.count);
        }
        break;
    case PoolingKernel::kCHANNELS_LAST:
        poolingChannelsLastKernel<<<l.grid, device::kThreadsPerBlock, 0, stream>>>(
            l.input, l.inputType, l.output, l.outputType, l.windows, l.channels, l.rows);
        break;
    case PoolingKernel::kTWO_AXES:
        pooling2dKernel<<<device::blocksFor(l.count), device::kThreadsPerBlock, 0, stream>>>(
            l.input, l.inputType, l.output, l.outputType, l.windows, l.count);
        break;
    case PoolingKernel::kANY_AXES:
        poolingKernel<<<device::blocksFor(l.count), device::kThreadsPerBlock, 0, stream>>>(
            l.input, l.inputType, l.output, l.outputType, l.windows, l.count);
        break;
    }
    check(cudaGetLastError(), "pooling: launching the kernel");
}

class PoolingLayer final : public PreparedKernelLayer
{
public:
    explicit PoolingLayer(network::PoolingParams const& params)
        : mParams(params)
    {
    }

private:
    void prepare(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        mLaunch = preparePooling(mParams, inputs[0], outputs[0]);
    }
    void launch(cudaStream_t stream) override
    {
        launchPooling(mLaunch, stream);
    }

    network::PoolingParams const& mParams;
    PoolingLaunch mLaunch;
};

} // namespace

std::unique_ptr<DeviceLayer> lower(network::PoolingParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<PoolingLayer>(params);
}

} // namespace kiln::cuda
