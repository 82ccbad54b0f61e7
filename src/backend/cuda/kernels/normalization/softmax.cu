// ISoftMaxLayer on the GPU, as the CPU reference computes it (backend/cpu/kernels/nn/softmax.h). Rows along the
// innermost axis of up to kMaxRegisterRow elements, the common case (attention scores), are read once into registers
// and written once: a warp per row up to 1024 elements (several rows per block), a block per row beyond. Other axes,
// longer rows and an input type other than the output's take kernels that read the row again from memory.
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/element_groups.cuh"
#include "backend/cuda/layer_kernels.h"
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

//! Short contiguous rows whose input type is not the output's: one warp per row, lanes reading consecutive elements.
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

//! Contiguous rows too long for registers, or whose input type is not the output's: one block per row, merged
//! through warp shuffles and shared memory.
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

//! The two reductions over a row.
enum class Combine
{
    kMAX,
    kSUM
};

template <Combine kCombine>
__device__ float combine(float a, float b)
{
    // No NaN reaches a maximum: the row's maximum skips NaN, as the CPU reference's std::max does.
    return kCombine == Combine::kMAX ? (b > a ? b : a) : a + b;
}

//! The maximum (kMAX) or the sum of `value` over the kGroup threads that share a row: a warp's lanes, or a whole block
//! through `partial` (one entry per warp). Every thread gets the same result, combined in the same order. The caller
//! gives each kind of reduction its own `partial`, which makes the two barriers here enough between rows.
template <Combine kCombine, int kGroup>
__device__ float acrossGroup(float value, float* partial)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
    {
        value = combine<kCombine>(value, __shfl_xor_sync(0xffffffffU, value, offset));
    }
    if constexpr (kGroup > 32)
    {
        if (threadIdx.x % 32 == 0)
        {
            partial[threadIdx.x / 32] = value;
        }
        __syncthreads();
        value = partial[0];
#pragma unroll
        for (int warp = 1; warp < kGroup / 32; ++warp)
        {
            value = combine<kCombine>(value, partial[warp]);
        }
    }
    return value;
}

//! The threads per block of a register-row kernel: the group, or four warps' rows for a warp group.
__host__ __device__ constexpr int blockThreadsFor(int group)
{
    return group < 128 ? 128 : group;
}

//! Rows of up to kGroup * kChunks * 4 elements, each read once into registers: kGroup threads per row (a warp or the
//! block), each holding kChunks groups of four consecutive elements. Group c of thread t is the row's elements
//! [4 * (c * kGroup + t), +4), so that one chunk of a warp is contiguous. `grouped`: the length is a multiple of 4
//! and both tensors aligned for groups, so each group is one access. The CPU reference's steps, in float: the maximum
//! (NaN skipped), the sum of exp(x - maximum) (a NaN, or an infinite maximum, makes it NaN), then each exp(x -
//! maximum) / sum. The row is read in full before any of it is written, so the output may be the input.
template <DataType kType, int kGroup, int kChunks>
__global__ void __launch_bounds__(blockThreadsFor(kGroup))
    registerRowKernel(void const* input, void* output, int64_t rowCount, int32_t length, bool grouped)
{
    constexpr int kRowsPerBlock = blockThreadsFor(kGroup) / kGroup;
    constexpr int kSize = kType == DataType::kFLOAT ? 4 : 2;
    __shared__ float maxima[kGroup / 32];
    __shared__ float sums[kGroup / 32];
    int const thread = static_cast<int>(threadIdx.x) % kGroup;
    for (int64_t row = blockIdx.x * int64_t{kRowsPerBlock} + threadIdx.x / kGroup; row < rowCount;
         row += int64_t{gridDim.x} * kRowsPerBlock)
    {
        // Offsets within a row fit 32 bits (kMaxRegisterRow), which keeps the kernel's registers for the values.
        void const* in = static_cast<char const*>(input) + row * length * kSize;
        void* out = static_cast<char*>(output) + row * length * kSize;
        device::FloatGroup values[kChunks];
        float maximum = -INFINITY;
#pragma unroll
        for (int c = 0; c < kChunks; ++c)
        {
            int const start = device::kGroupElements * (c * kGroup + thread);
            if (grouped)
            {
                values[c] = start < length ? device::loadGroup(in, kType, start / device::kGroupElements)
                                           : device::splat(-INFINITY);
            }
#pragma unroll
            for (int k = 0; k < device::kGroupElements; ++k)
            {
                if (!grouped)
                {
                    values[c].v[k] = start + k < length ? device::loadFloat(in, kType, start + k) : -INFINITY;
                }
                maximum = values[c].v[k] > maximum ? values[c].v[k] : maximum;
            }
        }
        maximum = acrossGroup<Combine::kMAX, kGroup>(maximum, maxima);
        float sum = 0.0F;
#pragma unroll
        for (int c = 0; c < kChunks; ++c)
        {
            int const start = device::kGroupElements * (c * kGroup + thread);
#pragma unroll
            for (int k = 0; k < device::kGroupElements; ++k)
            {
                values[c].v[k] = expf(values[c].v[k] - maximum);
                sum += start + k < length ? values[c].v[k] : 0.0F; // the padding's exp(-inf - -inf) would be NaN
            }
        }
        float const inverse = 1.0F / acrossGroup<Combine::kSUM, kGroup>(sum, sums);
#pragma unroll
        for (int c = 0; c < kChunks; ++c)
        {
            int const start = device::kGroupElements * (c * kGroup + thread);
#pragma unroll
            for (int k = 0; k < device::kGroupElements; ++k)
            {
                values[c].v[k] *= inverse;
                if (!grouped && start + k < length)
                {
                    device::storeFloat(out, kType, start + k, values[c].v[k]);
                }
            }
            if (grouped && start < length)
            {
                device::storeGroup(out, kType, start / device::kGroupElements, values[c]);
            }
        }
    }
}

//! The longest row the register-row kernels hold.
constexpr int64_t kMaxRegisterRow = 16384;

//! A register-row kernel (registerRowKernel) and its launch, chosen once per shape and addresses.
struct RegisterRowLaunch
{
    void (*kernel)(void const*, void*, int64_t, int32_t, bool){nullptr};
    unsigned blocks{0};
    unsigned threads{0};
    bool grouped{false};
};

template <DataType kType, int kGroup, int kChunks>
RegisterRowLaunch registerRows(ConstTensorView const& input, TensorView const& output, Rows const& rows)
{
    constexpr int64_t kRowsPerBlock = blockThreadsFor(kGroup) / kGroup;
    int64_t const blocks = (rows.count + kRowsPerBlock - 1) / kRowsPerBlock;
    RegisterRowLaunch launch;
    launch.kernel = registerRowKernel<kType, kGroup, kChunks>;
    launch.blocks = static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8);
    launch.threads = blockThreadsFor(kGroup);
    launch.grouped = rows.length % device::kGroupElements == 0 && device::alignedForGroups(input.data, kType)
        && device::alignedForGroups(output.data, kType);
    return launch;
}

//! The register-row kernel whose rows are the shortest that hold `rows.length` elements.
template <DataType kType>
RegisterRowLaunch softmaxInRegisters(ConstTensorView const& input, TensorView const& output, Rows const& rows)
{
    int64_t const length = rows.length;
    if (length <= 128)
    {
        return registerRows<kType, 32, 1>(input, output, rows);
    }
    if (length <= 256)
    {
        return registerRows<kType, 32, 2>(input, output, rows);
    }
    if (length <= 512)
    {
        return registerRows<kType, 32, 4>(input, output, rows);
    }
    if (length <= 1024)
    {
        return registerRows<kType, 32, 8>(input, output, rows);
    }
    if (length <= 2048)
    {
        return registerRows<kType, 128, 4>(input, output, rows);
    }
    if (length <= 4096)
    {
        return registerRows<kType, 128, 8>(input, output, rows);
    }
    if (length <= 8192)
    {
        return registerRows<kType, 256, 8>(input, output, rows);
    }
    return registerRows<kType, 512, 8>(input, output, rows);
}

//! Which kernel a softmax runs.
enum class SoftMaxPath
{
    kNONE, //!< an empty tensor
    kREGISTERS,
    kTHREAD_PER_ROW,
    kWARP_PER_ROW,
    kBLOCK_PER_ROW
};

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
        mPath = SoftMaxPath::kNONE;
        if (input.count() == 0)
        {
            return; // nothing to launch
        }
        auto const axis = static_cast<size_t>(axisIndex);
        mRows.length = input.shape[axis];
        mRows.inner = 1;
        for (size_t a = axis + 1; a < input.shape.size(); ++a)
        {
            mRows.inner *= input.shape[a];
        }
        mRows.count = input.count() / mRows.length;
        choosePath(input, output);
    }

    //! The kernel for mRows, and its grid.
    void choosePath(ConstTensorView const& input, TensorView const& output)
    {
        Rows const& rows = mRows;
        if (rows.inner == 1 && rows.length <= kMaxRegisterRow && input.type == output.type)
        {
            mPath = SoftMaxPath::kREGISTERS;
            switch (input.type)
            {
            case DataType::kHALF: mRegisters = softmaxInRegisters<DataType::kHALF>(input, output, rows); break;
            case DataType::kBF16: mRegisters = softmaxInRegisters<DataType::kBF16>(input, output, rows); break;
            default: mRegisters = softmaxInRegisters<DataType::kFLOAT>(input, output, rows); break;
            }
        }
        else if (rows.inner > 1)
        {
            mPath = SoftMaxPath::kTHREAD_PER_ROW;
            mBlocks = device::blocksFor(rows.count);
        }
        else if (rows.length <= 1024)
        {
            mPath = SoftMaxPath::kWARP_PER_ROW;
            constexpr int64_t kWarpsPerBlock = device::kThreadsPerBlock / 32;
            int64_t const blocks = (rows.count + kWarpsPerBlock - 1) / kWarpsPerBlock;
            mBlocks = static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8);
        }
        else
        {
            mPath = SoftMaxPath::kBLOCK_PER_ROW;
            mBlocks = static_cast<unsigned>(rows.count < 65535 * 8 ? rows.count : 65535 * 8);
        }
    }

    void launch(cudaStream_t stream) override
    {
        switch (mPath)
        {
        case SoftMaxPath::kNONE: return;
        case SoftMaxPath::kREGISTERS:
            mRegisters.kernel<<<mRegisters.blocks, mRegisters.threads, 0, stream>>>(
                mInput, mOutput, mRows.count, static_cast<int32_t>(mRows.length), mRegisters.grouped);
            break;
        case SoftMaxPath::kTHREAD_PER_ROW:
            threadPerRowKernel<<<mBlocks, device::kThreadsPerBlock, 0, stream>>>(
                mInput, mInputType, mOutput, mOutputType, mRows);
            break;
        case SoftMaxPath::kWARP_PER_ROW:
            warpPerRowKernel<<<mBlocks, device::kThreadsPerBlock, 0, stream>>>(
                mInput, mInputType, mOutput, mOutputType, mRows);
            break;
        case SoftMaxPath::kBLOCK_PER_ROW:
            blockPerRowKernel<<<mBlocks, 512, 0, stream>>>(mInput, mInputType, mOutput, mOutputType, mRows);
            break;
        }
        check(cudaGetLastError(), "softmax: launching the kernel");
    }

    uint32_t mAxes;
    void const* mInput{nullptr};
    DataType mInputType{DataType::kFLOAT};
    void* mOutput{nullptr};
    DataType mOutputType{DataType::kFLOAT};
    Rows mRows{};
    SoftMaxPath mPath{SoftMaxPath::kNONE};
    RegisterRowLaunch mRegisters{};
    unsigned mBlocks{0}; //!< the grid of the kernels other than the register-row ones
};

} // namespace

std::unique_ptr<DeviceLayer> lower(network::SoftMaxParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<SoftMaxLayer>(params);
}

} // namespace kiln::cuda
