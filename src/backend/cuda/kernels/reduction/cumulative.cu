// ICumulativeLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/cumulative.h): a running kSUM
// along one axis, exclusive (each element left out of its own sum) and/or reverse (from the end of the axis).
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/strided_index.cuh"
#include "backend/cuda/layer_kernels.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::DataType;

constexpr int kWarpSize = 32;
constexpr unsigned kWholeWarp = 0xffffffffU;

//! The input's extents. Which one is the axis is known only on the device (it is in device memory).
struct ScanInput
{
    int32_t rank{0};
    int64_t extents[device::kMaxRank]{};
    int64_t count{0};
};

//! The lines along the axis: element `step` of line `l` is at ((l / inner) * extent + step) * inner + l % inner.
struct Lines
{
    int64_t count{0};
    int64_t extent{0};
    int64_t inner{1};
};

__device__ Lines linesAlong(ScanInput const& input, void const* axisData, DataType axisType)
{
    int64_t axis = device::loadInteger(axisData, axisType, 0);
    axis = axis < 0 ? axis + input.rank : axis;
    Lines lines;
    if (axis < 0 || axis >= input.rank)
    {
        return lines; // no lines: the builder rejects such an axis, so this only guards the reads
    }
    lines.extent = input.extents[axis];
    for (int64_t d = axis + 1; d < input.rank; ++d)
    {
        lines.inner *= input.extents[d];
    }
    lines.count = input.count / lines.extent;
    return lines;
}

__device__ int64_t positionOf(Lines const& lines, int64_t line, int64_t step, bool reverse)
{
    int64_t const j = reverse ? lines.extent - 1 - step : step;
    return (line / lines.inner * lines.extent + j) * lines.inner + line % lines.inner;
}

//! How elements become summands and sums become elements: in double for floating types (as the CPU accumulates),
//! in uint64 for integers, so that overflow wraps as on the CPU.
template <bool Integer>
struct Summation;

template <>
struct Summation<false>
{
    using Sum = double;
    static __device__ Sum load(void const* data, DataType type, int64_t i)
    {
        return device::loadFloat(data, type, i);
    }
    static __device__ void store(void* data, DataType type, int64_t i, Sum sum)
    {
        device::storeFloat(data, type, i, static_cast<float>(sum));
    }
};

template <>
struct Summation<true>
{
    using Sum = unsigned long long; // a type every __shfl_*_sync overload takes
    static __device__ Sum load(void const* data, DataType type, int64_t i)
    {
        return static_cast<Sum>(device::loadInteger(data, type, i));
    }
    static __device__ void store(void* data, DataType type, int64_t i, Sum sum)
    {
        device::storeInteger(data, type, i, static_cast<int64_t>(sum));
    }
};

//! One thread runs one line from start to end, adding in the CPU's order (so floating sums match it exactly).
template <bool Integer>
__device__ void scanLinePerThread(
    void const* input, void* output, DataType type, Lines const& lines, bool exclusive, bool reverse)
{
    using S = Summation<Integer>;
    int64_t const threads = static_cast<int64_t>(blockDim.x) * gridDim.x;
    for (int64_t line = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; line < lines.count;
         line += threads)
    {
        typename S::Sum sum = 0;
        for (int64_t step = 0; step < lines.extent; ++step)
        {
            int64_t const position = positionOf(lines, line, step, reverse);
            typename S::Sum const value = S::load(input, type, position);
            S::store(output, type, position, exclusive ? sum : sum + value);
            sum += value;
        }
    }
}

//! One warp runs one line, 32 elements at a time: a warp-wide scan of each chunk plus the sum of the chunks before.
//! Floating sums are grouped differently from the CPU's, which changes them only in double's last bits.
template <bool Integer>
__device__ void scanLinePerWarp(
    void const* input, void* output, DataType type, Lines const& lines, bool exclusive, bool reverse)
{
    using S = Summation<Integer>;
    using Sum = typename S::Sum;
    int const lane = static_cast<int>(threadIdx.x % kWarpSize);
    int64_t const warps = static_cast<int64_t>(blockDim.x) * gridDim.x / kWarpSize;
    // Every lane of a warp takes the same lines and chunks, so the shuffles below always have the whole warp.
    for (int64_t line = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / kWarpSize; line < lines.count;
         line += warps)
    {
        Sum carry = 0; // the sum of the line's earlier chunks
        for (int64_t first = 0; first < lines.extent; first += kWarpSize)
        {
            int64_t const step = first + lane;
            bool const inside = step < lines.extent;
            int64_t const position = inside ? positionOf(lines, line, step, reverse) : 0;
            Sum const value = inside ? S::load(input, type, position) : Sum{0};
            Sum inclusive = value;
            for (int offset = 1; offset < kWarpSize; offset *= 2)
            {
                Sum const before = __shfl_up_sync(kWholeWarp, inclusive, offset);
                if (lane >= offset)
                {
                    inclusive += before;
                }
            }
            // Exclusive sums come from the previous lane rather than inclusive - value, which rounding would spoil.
            Sum const previous = __shfl_up_sync(kWholeWarp, inclusive, 1);
            Sum const own = exclusive ? (lane == 0 ? Sum{0} : previous) : inclusive;
            if (inside)
            {
                S::store(output, type, position, carry + own);
            }
            carry += __shfl_sync(kWholeWarp, inclusive, kWarpSize - 1);
        }
    }
}

template <bool Integer>
__global__ void cumulativeKernel(void const* input, void* output, DataType type, void const* axisData,
    DataType axisType, ScanInput shape, bool exclusive, bool reverse)
{
    Lines const lines = linesAlong(shape, axisData, axisType);
    // A warp per line where a line's elements are close together and long enough to share out, as along the last
    // axis; otherwise a thread per line, which reads coalesced when the lines interleave (inner >= 32) and is
    // enough when there are many short lines.
    if (lines.inner < kWarpSize && lines.extent >= kWarpSize)
    {
        scanLinePerWarp<Integer>(input, output, type, lines, exclusive, reverse);
    }
    else
    {
        scanLinePerThread<Integer>(input, output, type, lines, exclusive, reverse);
    }
}

//! `axis` is the layer's input 1: a 0-D INT32/INT64 tensor in device memory, negative counting from the end. The
//! builder checked its value, a build-time constant, against the rank; the kernel reads it on the device, so that
//! nothing waits for the GPU (an axis still out of range leaves the output unwritten). FP32/FP16/BF16 accumulate
//! in double and round on store; INT32/INT64 wrap. Throws std::invalid_argument for other types or operations.
void cumulativeOnDevice(nvinfer1::CumulativeOperation operation, bool exclusive, bool reverse,
    ConstTensorView const& input, ConstTensorView const& axis, TensorView const& output, cudaStream_t stream)
{
    if (operation != nvinfer1::CumulativeOperation::kSUM)
    {
        throw std::invalid_argument("cumulative: unknown CumulativeOperation");
    }
    if (output.shape != input.shape || output.type != input.type)
    {
        throw std::invalid_argument("cumulative: the output's shape and type must be the input's");
    }
    bool const integer = isIndexType(input.type);
    if (!integer && !isFloatType(input.type))
    {
        throw std::invalid_argument("cumulative: the input must be FP32, FP16, BF16, INT32 or INT64");
    }
    if (!isIndexType(axis.type) || axis.count() != 1 || axis.data == nullptr)
    {
        throw std::invalid_argument("cumulative: the axis (input 1) must be one INT32 or INT64 value");
    }
    if (input.rank() < 1 || input.rank() > device::kMaxRank)
    {
        throw std::invalid_argument("cumulative: the input's rank must be 1 to 8");
    }
    int64_t const count = input.count();
    if (count == 0)
    {
        return;
    }
    ScanInput shape;
    shape.rank = input.rank();
    std::copy(input.shape.begin(), input.shape.end(), shape.extents);
    shape.count = count;
    // Enough threads for a warp per line along the shortest extent, the most lines any axis can have; the kernel's
    // loops stride over whatever the actual axis gives.
    int64_t const mostLines = count / *std::min_element(input.shape.begin(), input.shape.end());
    unsigned const blocks = device::blocksFor(mostLines * kWarpSize);
    auto launch = [&](auto kernel) {
        kernel<<<blocks, device::kThreadsPerBlock, 0, stream>>>(
            input.data, output.data, input.type, axis.data, axis.type, shape, exclusive, reverse);
    };
    if (integer)
    {
        launch(cumulativeKernel<true>);
    }
    else
    {
        launch(cumulativeKernel<false>);
    }
    check(cudaGetLastError(), "cumulative: launching the kernel");
}

} // namespace

void run(network::CumulativeParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream)
{
    cumulativeOnDevice(params.operation, params.exclusive, params.reverse, inputs[0], inputs[1], outputs[0], stream);
}

} // namespace kiln::cuda
