// ISoftMaxLayer on the GPU, as the CPU reference computes it (backend/cpu/kernels/nn/softmax.h).
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/device_access.cuh"
#include "backend/cuda/prepared_kernel_layer.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::DataType;

//! A running maximum and the sum of exp(x - maximum) over the elements seen so far ("online softmax"), so that
//! one pass over a row gives both.
struct MaxSum
{
    float maximum;
    float sum;
};

__device__ MaxSum addElement(MaxSum acc, float x)
{
    // As the CPU: NaN never becomes the maximum, but exp(NaN - m) makes the sum NaN. A new maximum contributes
    // exp(x - x), NaN for +inf, as on the CPU where max = +inf makes every exp(x - max) term NaN or 0.
    if (x > acc.maximum)
    {
        float const rescaled = acc.sum == 0.0F ? 0.0F : acc.sum * expf(acc.maximum - x);
        return MaxSum{x, rescaled + expf(x - x)};
    }
    if (x == -INFINITY && acc.maximum == -INFINITY)
    {
        // exp(-inf - -inf) is NaN, but the CPU only sees it when -inf stays the row's maximum; writeRow then
        // computes exp(NaN) for every element anyway.
        return acc;
    }
    return MaxSum{acc.maximum, acc.sum + expf(x - acc.maximum)};
}

__device__ MaxSum merge(MaxSum a, MaxSum b)
{
    float const maximum = b.maximum > a.maximum ? b.maximum : a.maximum;
    // A part with nothing summed contributes nothing (exp(-inf - -inf) would be NaN); a NaN sum stays NaN.
    float const first = a.sum == 0.0F ? 0.0F : a.sum * expf(a.maximum - maximum);
    float const second = b.sum == 0.0F ? 0.0F : b.sum * expf(b.maximum - maximum);
    return MaxSum{maximum, first + second};
}

__device__ MaxSum warpMerge(MaxSum acc)
{
    for (int offset = 16; offset > 0; offset /= 2)
    {
        MaxSum const other{
            __shfl_xor_sync(0xffffffffU, acc.maximum, offset), __shfl_xor_sync(0xffffffffU, acc.sum, offset)};
        acc = merge(acc, other);
    }
    return acc;
}

//! Element k of a row is at base + k * step (step 1 for the innermost axis).
struct Rows
{
    int64_t count;  //!< rows
    int64_t length; //!< elements per row
    int64_t inner;  //!< the row elements' stride: the volume after the axis
};

__device__ int64_t rowBase(int64_t row, Rows const& rows)
{
    return (row / rows.inner) * rows.length * rows.inner + row % rows.inner;
}

__device__ void writeRow(void const* input, DataType inType, void* output, DataType outType, int64_t base, int64_t step,
    int64_t begin, int64_t end, int64_t stride, MaxSum total)
{
    float const inverse = 1.0F / total.sum;
    for (int64_t k = begin; k < end; k += stride)
    {
        int64_t const i = base + k * step;
        device::storeFloat(output, outType, i, expf(device::loadFloat(input, inType, i) - total.maximum) * inverse);
    }
}

//! Short contiguous rows: one warp per row, lanes reading consecutive elements.
__global__ void warpPerRowKernel(void const* input, DataType inType, void* output, DataType outType, Rows rows)
{
    int const lane = threadIdx.x % 32;
    int64_t const warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
    for (int64_t row = blockIdx.x * static_cast<int64_t>(blockDim.x / 32) + threadIdx.x / 32; row < rows.count;
         row += warps)
    {
        int64_t const base = row * rows.length;
        MaxSum acc{-INFINITY, 0.0F};
        for (int64_t k = lane; k < rows.length; k += 32)
        {
            acc = addElement(acc, device::loadFloat(input, inType, base + k));
        }
        acc = warpMerge(acc);
        writeRow(input, inType, output, outType, base, 1, lane, rows.length, 32, acc);
    }
}

//! Long contiguous rows: one block per row, merged through warp shuffles and shared memory.
__global__ void blockPerRowKernel(void const* input, DataType inType, void* output, DataType outType, Rows rows)
{
    __shared__ MaxSum partial[32];
    __shared__ MaxSum total;
    int const lane = threadIdx.x % 32;
    int const warp = threadIdx.x / 32;
    for (int64_t row = blockIdx.x; row < rows.count; row += gridDim.x)
    {
        int64_t const base = row * rows.length;
        MaxSum acc{-INFINITY, 0.0F};
        for (int64_t k = threadIdx.x; k < rows.length; k += blockDim.x)
        {
            acc = addElement(acc, device::loadFloat(input, inType, base + k));
        }
        acc = warpMerge(acc);
        if (lane == 0)
        {
            partial[warp] = acc;
        }
        __syncthreads();
        if (warp == 0)
        {
            acc = lane < static_cast<int>(blockDim.x / 32) ? partial[lane] : MaxSum{-INFINITY, 0.0F};
            acc = warpMerge(acc);
            if (lane == 0)
            {
                total = acc;
            }
        }
        __syncthreads();
        writeRow(input, inType, output, outType, base, 1, threadIdx.x, rows.length, blockDim.x, total);
        __syncthreads(); // `total` and `partial` are reused by the next row
    }
}

//! An axis other than the innermost: one thread per row; neighbouring threads take neighbouring rows, which are
//! neighbours in memory, so every step along the axis is a coalesced load.
__global__ void threadPerRowKernel(void const* input, DataType inType, void* output, DataType outType, Rows rows)
{
    for (int64_t row = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; row < rows.count;
         row += static_cast<int64_t>(blockDim.x) * gridDim.x)
    {
        int64_t const base = rowBase(row, rows);
        MaxSum acc{-INFINITY, 0.0F};
        for (int64_t k = 0; k < rows.length; ++k)
        {
            acc = addElement(acc, device::loadFloat(input, inType, base + k * rows.inner));
        }
        writeRow(input, inType, output, outType, base, rows.inner, 0, rows.length, 1, acc);
    }
}

//! The axis `axes` names when it names exactly one below `rank`, else -1.
int32_t singleAxis(uint32_t axes, int32_t rank)
{
    for (int32_t axis = 0; axis < rank && axis < 32; ++axis)
    {
        if (axes == (1U << axis))
        {
            return axis;
        }
    }
    return -1;
}

//! Softmax along the one axis that `axes` names, over FP32/FP16/BF16 tensors of one shape. Stable: exponentials are
//! taken relative to the axis maximum (NaN is skipped by the maximum, then makes the whole row NaN, as on the CPU).
class SoftMaxLayer final : public PreparedKernelLayer
{
public:
    explicit SoftMaxLayer(network::SoftMaxParams const& params)
        : mAxes(params.axes)
    {
    }

private:
    void prepare(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        ConstTensorView const& input = inputs[0];
        TensorView const& output = outputs[0];
        if (input.shape != output.shape || !isFloatType(input.type) || !isFloatType(output.type))
        {
            throw std::invalid_argument("softmax: input and output must be FP32, FP16 or BF16 of one shape");
        }
        int32_t const rank = input.rank();
        int32_t const axisIndex = singleAxis(mAxes, rank);
        if (axisIndex < 0)
        {
            throw std::invalid_argument("softmax: axes mask " + std::to_string(mAxes)
                + " must name exactly one axis of a rank-" + std::to_string(rank) + " input");
        }
        mInput = input.data;
        mInputType = input.type;
        mOutput = output.data;
        mOutputType = output.type;
        mRows = Rows{};
        if (input.count() == 0)
        {
            return; // mRows.count stays 0: nothing to launch
        }
        auto const axis = static_cast<size_t>(axisIndex);
        mRows.length = input.shape[axis];
        mRows.inner = 1;
        for (size_t a = axis + 1; a < input.shape.size(); ++a)
        {
            mRows.inner *= input.shape[a];
        }
        mRows.count = input.count() / mRows.length;
    }

    void launch(cudaStream_t stream) override
    {
        Rows const& rows = mRows;
        if (rows.count == 0)
        {
            return;
        }
        if (rows.inner > 1)
        {
            threadPerRowKernel<<<device::blocksFor(rows.count), device::kThreadsPerBlock, 0, stream>>>(
                mInput, mInputType, mOutput, mOutputType, rows);
        }
        else if (rows.length <= 1024)
        {
            constexpr int64_t kWarpsPerBlock = device::kThreadsPerBlock / 32;
            int64_t const blocks = (rows.count + kWarpsPerBlock - 1) / kWarpsPerBlock;
            warpPerRowKernel<<<static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8), device::kThreadsPerBlock,
                0, stream>>>(mInput, mInputType, mOutput, mOutputType, rows);
        }
        else
        {
            int64_t const blocks = rows.count < 65535 * 8 ? rows.count : 65535 * 8;
            blockPerRowKernel<<<static_cast<unsigned>(blocks), 512, 0, stream>>>(
                mInput, mInputType, mOutput, mOutputType, rows);
        }
        check(cudaGetLastError(), "softmax: launching the kernel");
    }

    uint32_t mAxes;
    void const* mInput{nullptr};
    DataType mInputType{DataType::kFLOAT};
    void* mOutput{nullptr};
    DataType mOutputType{DataType::kFLOAT};
    Rows mRows{};
};

} // namespace

std::unique_ptr<DeviceLayer> lower(network::SoftMaxParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<SoftMaxLayer>(params);
}

} // namespace kiln::cuda
