// IReduceLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/reduce.h).
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/element_groups.cuh"
#include "backend/cuda/kernels/storage_order.h"
#include "backend/cuda/kernels/strided_index.cuh"
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/prepared_kernel_layer.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::DataType;
using device::StridedShape;
using nvinfer1::ReduceOperation;

//! Which input elements each output element combines: `kept` maps an output index to its first input element,
//! `reduced` maps 0..reducedCount to the offsets of the rest.
struct Reduction
{
    ReduceOperation op{ReduceOperation::kSUM};
    StridedShape kept;
    StridedShape reduced;
    int64_t reducedCount{1};
    int64_t outputCount{0};
    //! The reduced elements lie `reducedStep` apart in their order (the spatial axes of [N, C, H, W] reduced to [N, C,
    //! 1, 1]: 1; stored channels-last: C), so that their offsets need no division.
    bool uniform{false};
    int64_t reducedStep{0};
};

//! The offset of reduced element k from its output's first.
__device__ int64_t reducedOffset(int64_t k, Reduction const& r)
{
    return r.uniform ? k * r.reducedStep : device::stridedOffset(k, r.reduced);
}

//! Floating-point accumulation, combining as the CPU's fold does so NaN propagates through max and min.
__device__ double combineFloat(ReduceOperation op, double a, double b)
{
    switch (op)
    {
    case ReduceOperation::kPROD: return a * b;
    case ReduceOperation::kMAX: return (isnan(a) || a >= b) ? a : b;
    case ReduceOperation::kMIN: return (isnan(a) || a <= b) ? a : b;
    default: return a + b;
    }
}

__device__ double identityFloat(ReduceOperation op)
{
    switch (op)
    {
    case ReduceOperation::kPROD: return 1.0;
    case ReduceOperation::kMAX: return -INFINITY;
    case ReduceOperation::kMIN: return INFINITY;
    default: return 0.0;
    }
}

//! Integer accumulation in int64, wrapping through unsigned arithmetic instead of overflowing.
__device__ int64_t combineInteger(ReduceOperation op, int64_t a, int64_t b)
{
    switch (op)
    {
    case ReduceOperation::kPROD: return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    case ReduceOperation::kMAX: return a > b ? a : b;
    case ReduceOperation::kMIN: return a < b ? a : b;
    default: return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    }
}

__device__ int64_t identityInteger(ReduceOperation op, DataType type)
{
    bool const is32 = type == DataType::kINT32;
    switch (op)
    {
    case ReduceOperation::kPROD: return 1;
    case ReduceOperation::kMAX: return is32 ? INT32_MIN : INT64_MIN;
    case ReduceOperation::kMIN: return is32 ? INT32_MAX : INT64_MAX;
    default: return 0;
    }
}

//! One accumulator type per family, so the kernels below are written once.
struct FloatFold
{
    using Value = double;
    __device__ static Value identity(ReduceOperation op, DataType)
    {
        return identityFloat(op);
    }
    __device__ static Value combine(ReduceOperation op, Value a, Value b)
    {
        return combineFloat(op, a, b);
    }
    __device__ static Value load(void const* data, DataType type, int64_t i)
    {
        return static_cast<double>(device::loadFloat(data, type, i));
    }
    __device__ static void store(void* data, DataType type, int64_t i, ReduceOperation op, Value v, int64_t n)
    {
        if (op == ReduceOperation::kAVG)
        {
            v = n == 0 ? NAN : v / static_cast<double>(n);
        }
        device::storeFloat(data, type, i, static_cast<float>(v));
    }
    __device__ static Value shuffle(Value v, int offset)
    {
        return __shfl_xor_sync(0xffffffffU, v, offset);
    }
};

struct IntegerFold
{
    using Value = int64_t;
    __device__ static Value identity(ReduceOperation op, DataType type)
    {
        return identityInteger(op, type);
    }
    __device__ static Value combine(ReduceOperation op, Value a, Value b)
    {
        return combineInteger(op, a, b);
    }
    __device__ static Value load(void const* data, DataType type, int64_t i)
    {
        return device::loadInteger(data, type, i);
    }
    __device__ static void store(void* data, DataType type, int64_t i, ReduceOperation op, Value v, int64_t n)
    {
        if (op == ReduceOperation::kAVG)
        {
            v = n == 0 ? 0 : v / n;
        }
        device::storeInteger(data, type, i, v);
    }
    __device__ static Value shuffle(Value v, int offset)
    {
        return static_cast<Value>(__shfl_xor_sync(0xffffffffU, static_cast<long long>(v), offset));
    }
};

//! The innermost input axis is reduced: one warp per output, lanes reading neighbouring elements, combined with
//! warp shuffles.
template <typename Fold>
__global__ void warpPerOutputKernel(void const* input, DataType inType, void* output, DataType outType, Reduction r)
{
    int const lane = threadIdx.x % 32;
    int64_t const warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
    for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x / 32) + threadIdx.x / 32; o < r.outputCount;
         o += warps)
    {
        int64_t const base = device::stridedOffset(o, r.kept);
        typename Fold::Value acc = Fold::identity(r.op, inType);
        for (int64_t k = lane; k < r.reducedCount; k += 32)
        {
            acc = Fold::combine(r.op, acc, Fold::load(input, inType, base + reducedOffset(k, r)));
        }
        for (int offset = 16; offset > 0; offset /= 2)
        {
            acc = Fold::combine(r.op, acc, Fold::shuffle(acc, offset));
        }
        if (lane == 0)
        {
            Fold::store(output, outType, o, r.op, acc, r.reducedCount);
        }
    }
}

//! The innermost input axis is reduced, the outputs are few and their reductions long (a whole tensor's maximum): one
//! block per output and slice of the reduced range, its warps combined with shuffles and then through shared memory.
//! With one slice the block stores the output; with several it stores partials[slice][output], which
//! finishPartialsKernel combines.
template <typename Fold>
__global__ void __launch_bounds__(device::kThreadsPerBlock) blockPerOutputSliceKernel(void const* input,
    DataType inType, void* output, DataType outType, Reduction r, int64_t chunk, typename Fold::Value* partials)
{
    constexpr int kWarps = device::kThreadsPerBlock / 32;
    __shared__ typename Fold::Value warpResults[kWarps];
    int const lane = threadIdx.x % 32;
    int const warp = threadIdx.x / 32;
    int64_t const o = blockIdx.x;
    int64_t const begin = static_cast<int64_t>(blockIdx.y) * chunk;
    int64_t const end = begin + chunk < r.reducedCount ? begin + chunk : r.reducedCount;
    int64_t const base = device::stridedOffset(o, r.kept);
    typename Fold::Value acc = Fold::identity(r.op, inType);
    for (int64_t k = begin + threadIdx.x; k < end; k += device::kThreadsPerBlock)
    {
        acc = Fold::combine(r.op, acc, Fold::load(input, inType, base + reducedOffset(k, r)));
    }
    for (int offset = 16; offset > 0; offset /= 2)
    {
        acc = Fold::combine(r.op, acc, Fold::shuffle(acc, offset));
    }
    if (lane == 0)
    {
        warpResults[warp] = acc;
    }
    __syncthreads();
    if (warp != 0)
    {
        return;
    }
    acc = lane < kWarps ? warpResults[lane] : Fold::identity(r.op, inType);
    for (int offset = 16; offset > 0; offset /= 2)
    {
        acc = Fold::combine(r.op, acc, Fold::shuffle(acc, offset));
    }
    if (lane != 0)
    {
        return;
    }
    if (partials == nullptr)
    {
        Fold::store(output, outType, o, r.op, acc, r.reducedCount);
    }
    else
    {
        partials[blockIdx.y * r.outputCount + o] = acc;
    }
}

//! A kept axis is innermost: one thread per output; neighbouring threads read neighbouring elements at each step.
template <typename Fold>
__global__ void threadPerOutputKernel(void const* input, DataType inType, void* output, DataType outType, Reduction r)
{
    KILN_GRID_STRIDE_LOOP(o, r.outputCount)
    {
        int64_t const base = device::stridedOffset(o, r.kept);
        typename Fold::Value acc = Fold::identity(r.op, inType);
        for (int64_t k = 0; k < r.reducedCount; ++k)
        {
            acc = Fold::combine(r.op, acc, Fold::load(input, inType, base + reducedOffset(k, r)));
        }
        Fold::store(output, outType, o, r.op, acc, r.reducedCount);
    }
}

//! A kept axis is innermost and the reduction is long: one block per 32 neighbouring outputs and slice of the
//! reduced range, whose 32 x kSlicesPerBlock threads read rows of neighbouring elements; the block's threads of one
//! output combine in shared memory. With one slice of the range the block stores the outputs; with several it
//! stores partial results, partials[slice][output], which finishPartialsKernel combines.
constexpr int kOutputsPerBlock = 32;
constexpr int kSlicesPerBlock = 8;

template <typename Fold>
__global__ void splitReductionKernel(void const* input, DataType inType, void* output, DataType outType, Reduction r,
    int64_t chunk, typename Fold::Value* partials)
{
    __shared__ typename Fold::Value slices[kSlicesPerBlock][kOutputsPerBlock];
    int64_t const o = static_cast<int64_t>(blockIdx.x) * kOutputsPerBlock + threadIdx.x;
    int64_t const begin = static_cast<int64_t>(blockIdx.y) * chunk;
    int64_t const end = begin + chunk < r.reducedCount ? begin + chunk : r.reducedCount;
    typename Fold::Value acc = Fold::identity(r.op, inType);
    if (o < r.outputCount)
    {
        int64_t const base = device::stridedOffset(o, r.kept);
        for (int64_t k = begin + threadIdx.y; k < end; k += kSlicesPerBlock)
        {
            acc = Fold::combine(r.op, acc, Fold::load(input, inType, base + reducedOffset(k, r)));
        }
    }
    slices[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y != 0 || o >= r.outputCount)
    {
        return;
    }
    for (int y = 1; y < kSlicesPerBlock; ++y)
    {
        acc = Fold::combine(r.op, acc, slices[y][threadIdx.x]);
    }
    if (partials == nullptr)
    {
        Fold::store(output, outType, o, r.op, acc, r.reducedCount);
    }
    else
    {
        partials[blockIdx.y * r.outputCount + o] = acc;
    }
}

template <typename Fold>
__global__ void finishPartialsKernel(
    typename Fold::Value const* partials, int64_t slices, void* output, DataType inType, DataType outType, Reduction r)
{
    KILN_GRID_STRIDE_LOOP(o, r.outputCount)
    {
        typename Fold::Value acc = Fold::identity(r.op, inType);
        for (int64_t s = 0; s < slices; ++s)
        {
            acc = Fold::combine(r.op, acc, partials[s * r.outputCount + o]);
        }
        Fold::store(output, outType, o, r.op, acc, r.reducedCount);
    }
}

//! A channels-last spatial reduction of floating-point data (a global average pooling of kHWC [N, C, H, W]): the
//! input is [N, positions, C] with C a multiple of four and aligned for groups (element_groups.cuh), the outputs
//! [N, C]. A block's 32 x kPoolRows threads take 32 neighbouring groups of four channels, each thread every
//! kPoolRows-th position of the block's slice, so that a warp reads 32 groups in a row (256 bytes of FP16, 512 of
//! FP32) with one access each, where a thread per channel moved one element per access. The rows combine in shared
//! memory; with one slice per output the block stores the outputs, with several partials[slice][output], which
//! finishPartialsKernel combines.
constexpr int kPoolLanes = 32;
constexpr int kPoolRows = 8;

struct ChannelsLastPool
{
    int64_t images{0};
    int64_t positions{0};
    int64_t channels{0};
};

__global__ void __launch_bounds__(kPoolLanes* kPoolRows) channelsLastPoolKernel(void const* input, DataType inType,
    void* output, DataType outType, Reduction r, ChannelsLastPool pool, int64_t chunk, double* partials)
{
    __shared__ double rows[kPoolRows][kPoolLanes * device::kGroupElements];
    int64_t const groupsPerImage = pool.channels / device::kGroupElements;
    int64_t const g = static_cast<int64_t>(blockIdx.x) * kPoolLanes + threadIdx.x; // over [N, C / 4]
    bool const active = g < pool.images * groupsPerImage;
    int64_t const image = active ? g / groupsPerImage : 0;
    int64_t const begin = static_cast<int64_t>(blockIdx.y) * chunk;
    int64_t const end = begin + chunk < pool.positions ? begin + chunk : pool.positions;
    double acc[device::kGroupElements];
#pragma unroll
    for (int k = 0; k < device::kGroupElements; ++k)
    {
        acc[k] = identityFloat(r.op);
    }
    // Group `g` of image `image`'s position p is group (image * positions + p) * groupsPerImage + g % groupsPerImage.
    int64_t const column = g - image * groupsPerImage;
    for (int64_t p = begin + threadIdx.y; active && p < end; p += kPoolRows)
    {
        device::FloatGroup const values
            = device::loadGroup(input, inType, (image * pool.positions + p) * groupsPerImage + column);
#pragma unroll
        for (int k = 0; k < device::kGroupElements; ++k)
        {
            acc[k] = combineFloat(r.op, acc[k], static_cast<double>(values.v[k]));
        }
    }
#pragma unroll
    for (int k = 0; k < device::kGroupElements; ++k)
    {
        rows[threadIdx.y][threadIdx.x * device::kGroupElements + k] = acc[k];
    }
    __syncthreads();
    if (threadIdx.y != 0 || !active)
    {
        return;
    }
#pragma unroll
    for (int k = 0; k < device::kGroupElements; ++k)
    {
        for (int y = 1; y < kPoolRows; ++y)
        {
            acc[k] = combineFloat(r.op, acc[k], rows[y][threadIdx.x * device::kGroupElements + k]);
        }
        int64_t const o = g * device::kGroupElements + k; // image * C + channel: the output's index
        if (partials == nullptr)
        {
            FloatFold::store(output, outType, o, r.op, acc[k], r.reducedCount);
        }
        else
        {
            partials[blockIdx.y * r.outputCount + o] = acc[k];
        }
    }
}

//! Reductions at least this long, with a kept axis innermost, are split between threads (splitReductionKernel).
constexpr int64_t kSplitFrom = 64;
//! Reductions of the innermost axis at least this long, of fewer outputs than kSplitBlocks, are split between blocks
//! (blockPerOutputSliceKernel): a warp alone would walk them for hundreds of microseconds.
constexpr int64_t kBlockSplitFrom = 4 * device::kThreadsPerBlock;
//! The blocks a split reduction aims for: enough to keep every SM of a large GPU busy.
constexpr int64_t kSplitBlocks = 1024;

//! The tensors of one reduction, as its kernels take them.
struct ReductionTensors
{
    void const* input{nullptr};
    DataType inputType{DataType::kFLOAT};
    void* output{nullptr};
    DataType outputType{DataType::kFLOAT};
};

//! How a split reduction divides each output's range: `used` slices of `chunk` elements (the last may be shorter).
struct Slicing
{
    int64_t chunk;
    int64_t used;
};

//! As many slices as make `groups` blocks fill the GPU, each at least `minimum` elements long.
Slicing sliceFor(int64_t reducedCount, int64_t groups, int64_t minimum)
{
    int64_t const slices = std::clamp<int64_t>(kSplitBlocks / groups, 1, std::max<int64_t>(reducedCount / minimum, 1));
    int64_t const chunk = (reducedCount + slices - 1) / slices;
    return Slicing{chunk, (reducedCount + chunk - 1) / chunk};
}

//! Where a split reduction's blocks store their partial results; none where each output has one slice.
template <typename Fold>
typename Fold::Value* partialsFor(
    Slicing const& slicing, Reduction const& r, DeviceBuffer& scratch, cudaStream_t stream)
{
    if (slicing.used == 1)
    {
        return nullptr;
    }
    scratch.reserve(static_cast<size_t>(slicing.used * r.outputCount) * sizeof(typename Fold::Value), stream,
        "a reduction's partials");
    return reinterpret_cast<typename Fold::Value*>(scratch.data());
}

template <typename Fold>
void finishPartials(typename Fold::Value const* partials, Slicing const& slicing, ReductionTensors const& t,
    Reduction const& r, cudaStream_t stream)
{
    if (partials != nullptr)
    {
        finishPartialsKernel<Fold><<<device::blocksFor(r.outputCount), device::kThreadsPerBlock, 0, stream>>>(
            partials, slicing.used, t.output, t.inputType, t.outputType, r);
    }
}

template <typename Fold>
void launchReduction(
    bool innermostReduced, ReductionTensors const& t, Reduction const& r, DeviceBuffer& scratch, cudaStream_t stream)
{
    if (innermostReduced && r.reducedCount >= kBlockSplitFrom && r.outputCount < kSplitBlocks)
    {
        Slicing const slicing = sliceFor(r.reducedCount, r.outputCount, kBlockSplitFrom);
        typename Fold::Value* partials = partialsFor<Fold>(slicing, r, scratch, stream);
        dim3 const grid(static_cast<unsigned>(r.outputCount), static_cast<unsigned>(slicing.used));
        blockPerOutputSliceKernel<Fold><<<grid, device::kThreadsPerBlock, 0, stream>>>(
            t.input, t.inputType, t.output, t.outputType, r, slicing.chunk, partials);
        finishPartials<Fold>(partials, slicing, t, r, stream);
        return;
    }
    if (innermostReduced)
    {
        constexpr int64_t kWarpsPerBlock = device::kThreadsPerBlock / 32;
        int64_t const blocks = (r.outputCount + kWarpsPerBlock - 1) / kWarpsPerBlock;
        warpPerOutputKernel<Fold>
            <<<static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8), device::kThreadsPerBlock, 0, stream>>>(
                t.input, t.inputType, t.output, t.outputType, r);
        return;
    }
    int64_t const groups = (r.outputCount + kOutputsPerBlock - 1) / kOutputsPerBlock;
    if (r.reducedCount < kSplitFrom || groups > 65535)
    {
        threadPerOutputKernel<Fold><<<device::blocksFor(r.outputCount), device::kThreadsPerBlock, 0, stream>>>(
            t.input, t.inputType, t.output, t.outputType, r);
        return;
    }
    // Slices of the range, each long enough that its threads loop a few times, as many as fill the GPU.
    Slicing const slicing = sliceFor(r.reducedCount, groups, 4 * kSlicesPerBlock);
    typename Fold::Value* partials = partialsFor<Fold>(slicing, r, scratch, stream);
    dim3 const grid(static_cast<unsigned>(groups), static_cast<unsigned>(slicing.used));
    dim3 const block(kOutputsPerBlock, kSlicesPerBlock);
    splitReductionKernel<Fold>
        <<<grid, block, 0, stream>>>(t.input, t.inputType, t.output, t.outputType, r, slicing.chunk, partials);
    finishPartials<Fold>(partials, slicing, t, r, stream);
}

//! Queues channelsLastPoolKernel: as many slices of the positions as fill the GPU, each long enough that a thread
//! reads a few groups.
void launchChannelsLastPool(ReductionTensors const& t, Reduction const& r, ChannelsLastPool const& pool,
    DeviceBuffer& scratch, cudaStream_t stream)
{
    int64_t const groups = pool.images * (pool.channels / device::kGroupElements);
    int64_t const blocks = (groups + kPoolLanes - 1) / kPoolLanes;
    Slicing const slicing = sliceFor(pool.positions, blocks, 4 * kPoolRows);
    double* const partials = partialsFor<FloatFold>(slicing, r, scratch, stream);
    dim3 const grid(static_cast<unsigned>(blocks), static_cast<unsigned>(slicing.used));
    channelsLastPoolKernel<<<grid, dim3(kPoolLanes, kPoolRows), 0, stream>>>(
        t.input, t.inputType, t.output, t.outputType, r, pool, slicing.chunk, partials);
    finishPartials<FloatFold>(partials, slicing, t, r, stream);
}

//! Sets `r.uniform` where the reduced axes' strides are those of one row-major range with a constant step: then
//! stridedOffset(k, r.reduced) is k * step. Extents of 1 have no say, since their coordinate is always 0.
void setUniformStep(Reduction& r)
{
    StridedShape const& reduced = r.reduced;
    int64_t step = 0;
    int64_t expected = 0;
    for (int32_t axis = reduced.rank; axis-- > 0;)
    {
        if (reduced.extents[axis] == 1)
        {
            continue;
        }
        if (step == 0)
        {
            step = reduced.strides[axis];
            expected = step;
        }
        if (reduced.strides[axis] != expected)
        {
            return;
        }
        expected *= reduced.extents[axis];
    }
    r.uniform = true;
    r.reducedStep = step;
}

//! One reduction as it is launched.
struct ReductionLaunch
{
    ReductionTensors tensors;
    Reduction reduction;
    bool innermostReduced{false};
    bool floats{true};
    //! A channels-last spatial reduction channelsLastPoolKernel takes: `pool` holds its extents.
    bool channelsLastPool{false};
    ChannelsLastPool pool;
};

//! Whether channelsLastPoolKernel computes this reduction: floating-point kHWC data of at least three axes reduced
//! over exactly its spatial axes, its channels a multiple of four and its data aligned for groups of four.
bool poolsChannelsLast(uint32_t axes, ConstTensorView const& input)
{
    size_t const rank = input.shape.size();
    if (input.format != TensorFormat::kHWC || rank < 3 || rank >= 32 || !isFloatType(input.type))
    {
        return false;
    }
    uint32_t const spatial = ((1U << rank) - 1U) & ~3U;
    return axes == spatial && input.shape[1] % device::kGroupElements == 0
        && device::alignedForGroups(input.data, input.type);
}

//! Whether `output` holds its elements as a kLINEAR tensor does: kLINEAR, or kHWC stored alike ([N, C, 1, 1]).
bool linearBytes(TensorView const& output)
{
    return output.format == TensorFormat::kLINEAR
        || (output.format == TensorFormat::kHWC && storedAlikeChannelsLast(output.shape));
}

//! Every ReduceOperation over the axes bit i of `axes` names; the output has the kept dims (and 1 for each reduced
//! one with keepDimensions). FP32/FP16/BF16 accumulate in double (max/min propagate NaN; avg of nothing is NaN);
//! INT32/INT64 wrap and avg truncates toward zero. Reducing nothing gives the operation's identity. The input may be
//! stored kLINEAR or kHWC (read through its strides; a spatial reduction of kHWC data by channelsLastPoolKernel); the
//! output is kLINEAR, or kHWC where that stores it alike ([N, C, 1, 1]). Its outputCount is 0 where there is nothing to
//! launch.
ReductionLaunch prepareReduction(
    ReduceOperation op, uint32_t axes, bool keepDimensions, ConstTensorView const& input, TensorView const& output)
{
    size_t const rank = input.shape.size();
    if (rank < 32 && (axes >> rank) != 0)
    {
        throw std::invalid_argument("reduce: reduceAxes mask has bits beyond rank " + std::to_string(rank));
    }
    if (input.type != output.type)
    {
        throw std::invalid_argument("reduce: the input and output types differ");
    }
    if (!isFloatType(input.type) && !isIndexType(input.type))
    {
        throw std::invalid_argument("reduce: the CUDA backend takes FP32, FP16, BF16, INT32 or INT64");
    }
    if (!linearBytes(output))
    {
        throw std::invalid_argument("reduce: the CUDA backend writes kLINEAR outputs, or kHWC ones stored alike");
    }
    if (rank > static_cast<size_t>(device::kMaxRank))
    {
        throw std::invalid_argument("the CUDA backend takes tensors of rank at most 8");
    }
    // The input may be stored channels-last: only the strides through which its logical axes are read change.
    int64_t strides[device::kMaxRank]{};
    device::storedStridesOf(input.shape, input.format, strides);
    ReductionLaunch launch;
    Reduction& r = launch.reduction;
    r.op = op;
    size_t expectedRank = 0;
    bool shaped = true; // whether the output's shape is the reduced input's
    auto expect = [&](int64_t extent) {
        shaped = shaped && expectedRank < output.shape.size() && output.shape[expectedRank] == extent;
        ++expectedRank;
    };
    for (size_t d = 0; d < rank; ++d)
    {
        if ((axes >> d) & 1U)
        {
            r.reduced.extents[r.reduced.rank] = input.shape[d];
            r.reduced.strides[r.reduced.rank] = strides[d];
            ++r.reduced.rank;
            r.reducedCount *= input.shape[d];
            if (keepDimensions)
            {
                expect(1);
            }
        }
        else
        {
            r.kept.extents[r.kept.rank] = input.shape[d];
            r.kept.strides[r.kept.rank] = strides[d];
            ++r.kept.rank;
            expect(input.shape[d]);
        }
    }
    if (!shaped || expectedRank != output.shape.size())
    {
        throw std::invalid_argument("reduce: the output's shape is not the reduced input's");
    }
    r.outputCount = output.count();
    setUniformStep(r);
    // Whether the axis adjacent in memory is reduced: then a warp (or, for few long reductions, blocks) per output
    // reads neighbouring elements.
    size_t const innermost = input.format == TensorFormat::kHWC && rank >= 3 ? 1 : rank - 1;
    launch.innermostReduced = rank > 0 && ((axes >> innermost) & 1U) != 0;
    launch.floats = isFloatType(input.type);
    launch.tensors = ReductionTensors{input.data, input.type, output.data, output.type};
    launch.channelsLastPool = poolsChannelsLast(axes, input) && r.reducedCount > 0;
    if (launch.channelsLastPool)
    {
        launch.pool = ChannelsLastPool{input.shape[0], r.reducedCount, input.shape[1]};
    }
    return launch;
}

//! The layer in one execution context: its state is the prepared launch and the scratch memory of split reductions'
//! partial results, kept for the context's life so that runs after the first allocate nothing.
class ReduceLayer final : public PreparedKernelLayer
{
public:
    explicit ReduceLayer(network::ReduceParams const& params)
        : mParams(params)
    {
    }

private:
    void prepare(std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mLaunch = prepareReduction(
            mParams.operation, mParams.reduceAxes, mParams.keepDimensions, inputs.at(0), outputs.at(0));
    }

    void launch(cudaStream_t stream) override
    {
        ReductionLaunch const& l = mLaunch;
        if (l.reduction.outputCount == 0)
        {
            return;
        }
        if (l.channelsLastPool)
        {
            launchChannelsLastPool(l.tensors, l.reduction, l.pool, mScratch, stream);
        }
        else if (l.floats)
        {
            launchReduction<FloatFold>(l.innermostReduced, l.tensors, l.reduction, mScratch, stream);
        }
        else
        {
            launchReduction<IntegerFold>(l.innermostReduced, l.tensors, l.reduction, mScratch, stream);
        }
        check(cudaGetLastError(), "reduce: launching the kernel");
    }

    network::ReduceParams mParams;
    ReductionLaunch mLaunch;
    DeviceBuffer mScratch;
};

} // namespace

std::unique_ptr<DeviceLayer> lower(network::ReduceParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<ReduceLayer>(params);
}

} // namespace kiln::cuda
