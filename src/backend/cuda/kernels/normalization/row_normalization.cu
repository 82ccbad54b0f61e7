#include "backend/cuda/kernels/normalization/row_normalization.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/fp8_pairs.cuh"
#include "backend/cuda/kernels/int8_vectors.cuh"
#include "backend/cuda/memory/device_buffer.h"
#include "core/quantization.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

namespace kiln::cuda
{
namespace
{

using device::DataType;

constexpr int kWarp = 32;
//! Row elements each thread keeps in registers.
constexpr int kCache = 32;
//! The largest block: rows longer than a warp holds get one block each, of at most this many threads.
constexpr int kMaxRowThreads = 512;
//! Rows a warp holds in registers, and rows a block does.
constexpr int64_t kWarpRowLength = int64_t{kWarp} * kCache;
constexpr int64_t kBlockRowLength = int64_t{kMaxRowThreads} * kCache;
//! Rows of a warp each, in a block.
constexpr int kWarpsPerBlock = 2;
//! Rows enough that a warp each keeps an H100's multiprocessors busy (about 16 warps each); fewer get a block each.
constexpr int64_t kRowsThatFillTheGpu = 2048;
//! Blocks of kMaxRowThreads that keep an H100 busy: rows too long for a block's registers, too few to make this many
//! blocks, are cut into chunks of at least kChunkLength elements, a block each (splitRows).
constexpr int64_t kBlocksThatFillTheGpu = 512;
constexpr int64_t kChunkLength = 4096;

//! `N` elements of one type, loaded and stored as one access (16 bytes where N fills them).
template <typename Bits, int N>
struct alignas(sizeof(Bits) * N) Pack
{
    Bits bits[N];
};

//! The codes x, the residual and y may hold, known when compiling: none, INT8 or FP8; kANY: either, by each tensor's
//! type. Each kind is a kernel of its own: the conversions of both kinds, or any of them beside a plain normalization,
//! made the kernel too long for the instruction cache (ncu: twice the time, stalled on fetching instructions).
enum class Codes
{
    kNONE,
    kINT8,
    kFP8,
    kANY,
};

//! Loads, stores and roundings where every tensor has element type `T` (float, __half or __nv_bfloat16), known when
//! compiling: the conversions are device_access.cuh's, applied to registers. x, the residual and y may hold `kCodes`
//! instead.
template <typename T, Codes kCodes = Codes::kNONE>
struct TypedAccess
{
    static constexpr Codes kCodeType = kCodes;
    using Bits = std::conditional_t<std::is_same_v<T, float>, float, uint16_t>;
    static constexpr DataType kType = std::is_same_v<T, float> ? DataType::kFLOAT
        : std::is_same_v<T, __half>                            ? DataType::kHALF
                                                               : DataType::kBF16;

    //! FP16 values of a pack of an even count convert by pairs (device::halfPairsAsFloats).
    template <int N>
    static constexpr bool kHalfPairs = N % 2 == 0 && kType == DataType::kHALF;

    template <int N>
    static __device__ void convert(Pack<Bits, N> const& pack, float (&out)[N])
    {
        if constexpr (kHalfPairs<N>)
        {
            unsigned int pairs[N / 2];
            memcpy(pairs, pack.bits, sizeof(pairs));
            device::halfPairsAsFloats(pairs, out);
        }
        else
        {
#pragma unroll
            for (int j = 0; j < N; ++j)
            {
                out[j] = device::loadFloat(pack.bits, kType, j);
            }
        }
    }

    template <int N>
    static __device__ void load(RowInput const& t, int64_t at, float (&out)[N])
    {
        convert<N>(*reinterpret_cast<Pack<Bits, N> const*>(static_cast<Bits const*>(t.data) + at), out);
    }

    //! The same through the read-only data cache, for weights: such loads may move past stores, which x's may not.
    template <int N>
    static __device__ void loadWeight(RowInput const& t, int64_t at, float (&out)[N])
    {
        using Word = std::conditional_t<sizeof(Pack<Bits, N>) == 16, uint4,
            std::conditional_t<sizeof(Pack<Bits, N>) == 8, uint2,
                std::conditional_t<sizeof(Pack<Bits, N>) == 4, unsigned, unsigned short>>>;
        static_assert(sizeof(Word) == sizeof(Pack<Bits, N>), "a weight pack is one read-only load");
        Word const word = __ldg(reinterpret_cast<Word const*>(static_cast<Bits const*>(t.data) + at));
        Pack<Bits, N> pack;
        memcpy(&pack, &word, sizeof(pack));
        convert<N>(pack, out);
    }

    template <int N>
    static __device__ void store(void* data, DataType /*type*/, int64_t at, float const (&in)[N])
    {
        Pack<Bits, N> pack;
        if constexpr (kHalfPairs<N>)
        {
            unsigned int pairs[N / 2];
            device::floatsAsHalfPairs(in, pairs);
            memcpy(pack.bits, pairs, sizeof(pairs));
        }
        else
        {
#pragma unroll
            for (int j = 0; j < N; ++j)
            {
                device::storeFloat(pack.bits, kType, j, in[j]);
            }
        }
        *reinterpret_cast<Pack<Bits, N>*>(static_cast<Bits*>(data) + at) = pack;
    }

    static __device__ float round(DataType /*type*/, float value)
    {
        return device::roundedTo(kType, value);
    }
};

//! The same for tensors of different types, each read through its own type, one element at a time.
struct AnyAccess
{
    static constexpr Codes kCodeType = Codes::kANY;

    template <int N>
    static __device__ void load(RowInput const& t, int64_t at, float (&out)[N])
    {
#pragma unroll
        for (int j = 0; j < N; ++j)
        {
            out[j] = device::loadFloat(t.data, t.type, at + j);
        }
    }

    template <int N>
    static __device__ void loadWeight(RowInput const& t, int64_t at, float (&out)[N])
    {
        load<N>(t, at, out);
    }

    template <int N>
    static __device__ void store(void* data, DataType type, int64_t at, float const (&in)[N])
    {
#pragma unroll
        for (int j = 0; j < N; ++j)
        {
            device::storeFloat(data, type, at + j, in[j]);
        }
    }

    static __device__ float round(DataType type, float value)
    {
        return device::roundedTo(type, value);
    }
};

//! N codes of x or the residual, as stored.
template <int N>
__device__ Pack<uint8_t, N> loadCodes(RowInput const& t, int64_t at)
{
    return *reinterpret_cast<Pack<uint8_t, N> const*>(static_cast<uint8_t const*>(t.data) + at);
}

//! Whether a tensor holds FP8 codes: by `Access`'s kind of codes where it has one, else by the tensor's type.
template <typename Access>
__device__ bool fp8Codes(DataType type)
{
    return Access::kCodeType == Codes::kANY ? type == DataType::kFP8 : Access::kCodeType == Codes::kFP8;
}

//! Each code dequantized as a DQ layer does and rounded to the value type, as the tensor that DQ wrote held it: FP8
//! codes by pairs on the conversion instruction (exact: every FP8 value is an FP16 value), INT8 codes four at a time
//! (int8_vectors.cuh), where N allows.
template <typename Access, int N>
__device__ void dequantizeCodes(Pack<uint8_t, N> const& codes, RowInput const& t, DataType valueType, float (&out)[N])
{
    float values[N];
    if constexpr (Access::kCodeType == Codes::kFP8 && N % 2 == 0)
    {
#pragma unroll
        for (int j = 0; j < N; j += 2)
        {
            fp8PairAsFloats(static_cast<uint16_t>(codes.bits[j] | codes.bits[j + 1] << 8), values[j], values[j + 1]);
        }
    }
    else if constexpr (Access::kCodeType == Codes::kINT8 && N % 4 == 0)
    {
#pragma unroll
        for (int j = 0; j < N; j += 4)
        {
            float four[4];
            int8CodesAsFloats(reinterpret_cast<uint32_t const*>(codes.bits)[j / 4], four);
#pragma unroll
            for (int i = 0; i < 4; ++i)
            {
                values[j + i] = four[i];
            }
        }
    }
    else
    {
        bool const fp8 = fp8Codes<Access>(t.type);
#pragma unroll
        for (int j = 0; j < N; ++j)
        {
            values[j] = fp8 ? fp8E4m3BitsToFloat(codes.bits[j])
                            : static_cast<float>(static_cast<int8_t>(codes.bits[j]));
        }
    }
#pragma unroll
    for (int j = 0; j < N; ++j)
    {
        out[j] = Access::round(valueType, values[j] * t.codeScale);
    }
}

//! Elements `at` to `at + N - 1` of x or the residual: values through `Access`, or codes dequantized.
template <typename Access, int N>
__device__ void loadRows(RowInput const& t, DataType valueType, int64_t at, float (&out)[N])
{
    if constexpr (Access::kCodeType != Codes::kNONE)
    {
        if (t.codeScale > 0.0F)
        {
            dequantizeCodes<Access, N>(loadCodes<N>(t, at), t, valueType, out);
            return;
        }
    }
    Access::template load<N>(t, at, out);
}

//! Values as codes of `type` (INT8 or FP8), each rounded to the value type first (as the tensor the Q layer read held
//! it), then quantized by `scale` as a Q layer does, FP8 codes by pairs and INT8 codes four at a time where N allows
//! (fp8_pairs.cuh, int8_vectors.cuh).
template <typename Access, int N>
__device__ Pack<uint8_t, N> quantizeValues(float const (&values)[N], DataType valueType, DataType type, float scale)
{
    float v[N];
#pragma unroll
    for (int j = 0; j < N; ++j)
    {
        v[j] = Access::round(valueType, values[j]);
    }
    bool const fp8 = fp8Codes<Access>(type);
    Pack<uint8_t, N> codes;
    if constexpr (N % 4 == 0)
    {
        float const inverse = 1.0F / scale;
#pragma unroll
        for (int j = 0; j < N; j += 4)
        {
            uint32_t const word = fp8
                ? quantizeTwoToFp8(v[j], v[j + 1], scale) | quantizeTwoToFp8(v[j + 2], v[j + 3], scale) << 16
                : quantizeFourToInt8(v + j, scale, inverse);
            memcpy(codes.bits + j, &word, sizeof(word));
        }
    }
    else
    {
#pragma unroll
        for (int j = 0; j < N; ++j)
        {
            codes.bits[j] = fp8 ? quantizeToFp8(v[j], scale) : static_cast<uint8_t>(quantizeToInt8(v[j], scale));
        }
    }
    return codes;
}

template <int N>
__device__ void storeCodes(void* data, int64_t at, Pack<uint8_t, N> const& codes)
{
    *reinterpret_cast<Pack<uint8_t, N>*>(static_cast<uint8_t*>(data) + at) = codes;
}

//! Writes y's elements `at` to `at + N - 1`: values through `Access`, or codes.
template <typename Access, int N>
__device__ void storeY(RowProblem const& p, int64_t at, float const (&y)[N])
{
    if constexpr (Access::kCodeType != Codes::kNONE)
    {
        if (p.yScale > 0.0F)
        {
            storeCodes<N>(p.y, at, quantizeValues<Access, N>(y, p.valueType, p.yType, p.yScale));
            return;
        }
    }
    Access::template store<N>(p.y, p.yType, at, y);
}

//! Elements `column` to `column + N - 1` of weight `w`'s row, or `absent` where there is no weight.
template <typename Access, int N>
__device__ void weightsAt(RowInput const& w, int64_t column, float absent, float (&out)[N])
{
    if (w.data == nullptr || w.stride == 0)
    {
        float one[1]{absent};
        if (w.data != nullptr)
        {
            Access::template loadWeight<1>(w, 0, one);
        }
#pragma unroll
        for (int j = 0; j < N; ++j)
        {
            out[j] = one[0];
        }
        return;
    }
    Access::template loadWeight<N>(w, column, out);
}

//! Where one row of the output, and the rows of x and the residual it reads, start.
struct RowStarts
{
    int64_t x;
    int64_t residual;
    int64_t out;
};

//! The row of x (or of the residual) that output row `row` reads: the output's coordinates along the axes before the
//! normalized ones, with the operand's strides (a loop of fixed length, so the layout stays in parameter space).
__device__ int64_t operandRow(RowLayout const& layout, bool residual, int64_t row)
{
    if (layout.rank == 0)
    {
        return row;
    }
    int64_t result = 0;
#pragma unroll
    for (int axis = kMaxOuterAxes - 1; axis >= 0; --axis)
    {
        if (axis < layout.rank)
        {
            int64_t const extent = layout.extents[axis];
            result += (row % extent) * (residual ? layout.residual[axis] : layout.x[axis]);
            row /= extent;
        }
    }
    return result;
}

__device__ RowStarts rowStarts(RowProblem const& p, int64_t row)
{
    return RowStarts{
        operandRow(p.layout, false, row) * p.length, operandRow(p.layout, true, row) * p.length, row * p.length};
}

//! x plus the added bias plus the residual at `column` to `column + N - 1` of an output row, each sum rounded to x's
//! type as the element-wise layers these replace round theirs: what the sum output receives.
template <typename Access, int N>
__device__ void residualSumAt(RowProblem const& p, RowStarts const& starts, int64_t column, float (&s)[N])
{
    loadRows<Access, N>(p.x, p.valueType, starts.x + column, s);
    if (p.preBias.data != nullptr)
    {
        float b[N];
        weightsAt<Access, N>(p.preBias, column, 0.0F, b);
#pragma unroll
        for (int j = 0; j < N; ++j)
        {
            s[j] = Access::round(p.valueType, s[j] + b[j]);
        }
    }
    if (p.residual.data != nullptr)
    {
        float r[N];
        loadRows<Access, N>(p.residual, p.valueType, starts.residual + column, r);
#pragma unroll
        for (int j = 0; j < N; ++j)
        {
            s[j] = Access::round(p.valueType, s[j] + r[j]);
        }
    }
}

//! With a sum scale, the sums rounded through their codes as the Q -> DQ pair between the sum and the normalization
//! does; else as they are.
template <typename Access, int N>
__device__ void roundThroughSumCodes(RowProblem const& p, float (&s)[N])
{
    if constexpr (Access::kCodeType != Codes::kNONE)
    {
        if (p.sumScale > 0.0F)
        {
            Pack<uint8_t, N> const codes = quantizeValues<Access, N>(s, p.valueType, p.sumCodeType, p.sumScale);
            dequantizeCodes<Access, N>(codes, RowInput{nullptr, p.sumCodeType, 1, p.sumScale}, p.valueType, s);
        }
    }
}

//! The values an output row normalizes at `column` to `column + N - 1` (residualSumAt's, roundThroughSumCodes'),
//! the sums written to the sum output first where `writeSum`.
template <typename Access, int N>
__device__ void sumAt(RowProblem const& p, RowStarts const& starts, int64_t column, bool writeSum, float (&s)[N])
{
    residualSumAt<Access, N>(p, starts, column, s);
    if (writeSum && p.sum != nullptr)
    {
        Access::template store<N>(p.sum, p.sumType, starts.out + column, s);
    }
    roundThroughSumCodes<Access, N>(p, s);
}

//! Writes the normalized values of `s` (the output row starting at `out`, `column` on) to y.
template <typename Access, int N>
__device__ void writeAt(
    RowProblem const& p, int64_t out, int64_t column, float const (&s)[N], float mean, float offset, float inverse)
{
    float scale[N];
    float bias[N];
    weightsAt<Access, N>(p.scale, column, 1.0F, scale);
    weightsAt<Access, N>(p.bias, column, 0.0F, bias);
    float y[N];
#pragma unroll
    for (int j = 0; j < N; ++j)
    {
        y[j] = ((s[j] - mean) - offset) * inverse * scale[j] + bias[j];
    }
    storeY<Access, N>(p, out + column, y);
}

//! The sums of `value` over the `threadsPerRow` threads of a row (a power of two of a warp's lanes, a warp, or the
//! whole block), the same in every one of them: a butterfly within the row's lanes, or the warp (each lane adds the
//! same two values, so all end equal), then the warps' partial sums added in one order by every thread. Every lane of
//! the warp takes part, those past the last row too.
__device__ float2 rowSum(float2 value, int threadsPerRow, float2* partial)
{
#pragma unroll
    for (int offset = kWarp / 2; offset > 0; offset /= 2)
    {
        if (offset < threadsPerRow)
        {
            value.x += __shfl_xor_sync(0xffffffffU, value.x, offset);
            value.y += __shfl_xor_sync(0xffffffffU, value.y, offset);
        }
    }
    if (threadsPerRow <= kWarp)
    {
        return value;
    }
    if (threadIdx.x % kWarp == 0)
    {
        partial[threadIdx.x / kWarp] = value;
    }
    __syncthreads();
    float2 total{0.0F, 0.0F};
    for (int w = 0; w < threadsPerRow / kWarp; ++w)
    {
        total.x += partial[w].x;
        total.y += partial[w].y;
    }
    return total;
}

//! What the statistics of a row give every element: y = ((s - mean) - offset) * inverse * scale + bias.
struct RowStatistics
{
    float mean;
    float offset;
    float inverse;
};

//! From the row's total (centered only) and the moments of its deviations from total / length: their sum, which
//! corrects the mean, and the sum of their squares.
__device__ RowStatistics statisticsOf(RowProblem const& p, float mean, float2 moments)
{
    auto const n = static_cast<float>(p.length);
    float const offset = p.centered ? moments.x / n : 0.0F;
    float variance = moments.y / n - offset * offset;
    variance = variance < 0.0F ? 0.0F : variance; // a rounding below zero; NaN stays NaN
    return RowStatistics{mean, offset, rsqrtf(variance + p.epsilon)};
}

//! The packs of a row that a thread holds, k = 0, 1, ...: pack lane + k * threadsPerRow while it is in the row.
struct HeldPacks
{
    int lane;
    int threadsPerRow;
    int64_t packs; //!< in the row

    __device__ bool has(int k) const
    {
        return lane + static_cast<int64_t>(k) * threadsPerRow < packs;
    }
    __device__ int64_t column(int k, int n) const
    {
        return (lane + static_cast<int64_t>(k) * threadsPerRow) * n;
    }
};

//! Pack k of the packs of N elements a thread holds in `v`.
template <int N, int kHeld>
__device__ void packOf(float const (&v)[kHeld], int k, float (&pack)[N])
{
#pragma unroll
    for (int j = 0; j < N; ++j)
    {
        pack[j] = v[k * N + j];
    }
}

//! One row per `threadsPerRow` threads (a power of two up to a warp, a warp, or the block), kept in registers: each
//! thread holds up to kPacks packs of N elements, lane, lane + threadsPerRow, ... of its row. Rows of a warp's packs
//! or fewer run kPacks 1 on the fewest lanes that hold them, several rows to a warp: a row of 12 packs (96 FP16
//! values, ConvNeXt's first stage) on 16 lanes, not a whole warp. The sum output is written once the whole row is
//! read, so that no store sits between the row's loads (a store may alias a later load, which then waits for it); the
//! weights go through the read-only cache, whose loads may move past stores.
template <typename Access, int N, int kPacks = kCache / N>
__global__ void __launch_bounds__(kMaxRowThreads) cachedRowsKernel(RowProblem p, int threadsPerRow)
{
    __shared__ float2 partials[2][kMaxRowThreads / kWarp];
    int64_t const row = static_cast<int64_t>(blockIdx.x) * (static_cast<int>(blockDim.x) / threadsPerRow)
        + static_cast<int>(threadIdx.x) / threadsPerRow;
    // Threads past the last row (of the last block's warps) hold nothing but join their warp's sums.
    HeldPacks const held{static_cast<int>(threadIdx.x) % threadsPerRow, threadsPerRow, row < p.rows ? p.length / N : 0};
    RowStarts const starts = rowStarts(p, row < p.rows ? row : 0);
    float sums[kPacks * N]; // for the sum output
    float v[kPacks * N];    // the values normalized: the sums, or with a sum scale their roundings
    float total = 0.0F;
#pragma unroll
    for (int k = 0; k < kPacks; ++k)
    {
        if (held.has(k))
        {
            float s[N];
            residualSumAt<Access, N>(p, starts, held.column(k, N), s);
#pragma unroll
            for (int j = 0; j < N; ++j)
            {
                sums[k * N + j] = s[j];
            }
            roundThroughSumCodes<Access, N>(p, s);
#pragma unroll
            for (int j = 0; j < N; ++j)
            {
                v[k * N + j] = s[j];
                total += s[j];
            }
        }
    }
    if (p.sum != nullptr)
    {
#pragma unroll
        for (int k = 0; k < kPacks; ++k)
        {
            if (held.has(k))
            {
                float s[N];
                packOf<N>(sums, k, s);
                Access::template store<N>(p.sum, p.sumType, starts.out + held.column(k, N), s);
            }
        }
    }
    float const mean
        = p.centered ? rowSum(float2{total, 0.0F}, threadsPerRow, partials[0]).x / static_cast<float>(p.length) : 0.0F;
    float2 moments{0.0F, 0.0F};
#pragma unroll
    for (int k = 0; k < kPacks; ++k)
    {
        if (held.has(k))
        {
#pragma unroll
            for (int j = 0; j < N; ++j)
            {
                float const d = v[k * N + j] - mean;
                moments.x += d;
                moments.y += d * d;
            }
        }
    }
    RowStatistics const stats = statisticsOf(p, mean, rowSum(moments, threadsPerRow, partials[1]));
#pragma unroll
    for (int k = 0; k < kPacks; ++k)
    {
        if (held.has(k))
        {
            float s[N];
            packOf<N>(v, k, s);
            writeAt<Access, N>(p, starts.out, held.column(k, N), s, stats.mean, stats.offset, stats.inverse);
        }
    }
}

//! Rows too long for registers: a block per row reads it three times, computing the sums again each time.
__global__ void __launch_bounds__(kMaxRowThreads) streamedRowsKernel(RowProblem p)
{
    __shared__ float2 partials[2][kMaxRowThreads / kWarp];
    RowStarts const starts = rowStarts(p, blockIdx.x);
    int const threads = static_cast<int>(blockDim.x);
    float total = 0.0F;
    for (int64_t column = threadIdx.x; column < p.length; column += threads)
    {
        float s[1];
        sumAt<AnyAccess, 1>(p, starts, column, true, s);
        total += s[0];
    }
    float const mean = p.centered ? rowSum(float2{total, 0.0F}, threads, partials[0]).x / static_cast<float>(p.length)
                                  : 0.0F;
    float2 moments{0.0F, 0.0F};
    for (int64_t column = threadIdx.x; column < p.length; column += threads)
    {
        float s[1];
        sumAt<AnyAccess, 1>(p, starts, column, false, s);
        float const d = s[0] - mean;
        moments.x += d;
        moments.y += d * d;
    }
    RowStatistics const stats = statisticsOf(p, mean, rowSum(moments, threads, partials[1]));
    for (int64_t column = threadIdx.x; column < p.length; column += threads)
    {
        float s[1];
        sumAt<AnyAccess, 1>(p, starts, column, false, s);
        writeAt<AnyAccess, 1>(p, starts.out, column, s, stats.mean, stats.offset, stats.inverse);
    }
}

//! Long rows cut into `chunks` pieces of `chunkLength` elements (the last one shorter), and where each piece's block
//! leaves its partial sums: [rows, chunks] each.
struct RowChunks
{
    int64_t chunks{1};
    int64_t chunkLength{0};
    float* totals{nullptr};
    float2* moments{nullptr};
};

//! The columns of the chunk this block works on: [begin, end).
struct ChunkColumns
{
    int64_t begin;
    int64_t end;
};

__device__ ChunkColumns chunkColumns(RowProblem const& p, RowChunks const& c)
{
    int64_t const begin = static_cast<int64_t>(blockIdx.x) * c.chunkLength;
    return ChunkColumns{begin, begin + c.chunkLength < p.length ? begin + c.chunkLength : p.length};
}

//! The row's mean from its chunks' totals, added in chunk order by every thread of every block alike.
__device__ float chunkedMean(RowProblem const& p, RowChunks const& c, int64_t row)
{
    if (!p.centered)
    {
        return 0.0F;
    }
    float total = 0.0F;
    for (int64_t k = 0; k < c.chunks; ++k)
    {
        total += c.totals[row * c.chunks + k];
    }
    return total / static_cast<float>(p.length);
}

//! Chunked rows, first pass: each chunk's total (block (chunk, row)); writes the sum output where there is one.
__global__ void __launch_bounds__(kMaxRowThreads) chunkTotalsKernel(RowProblem p, RowChunks c)
{
    __shared__ float2 partials[kMaxRowThreads / kWarp];
    int64_t const row = blockIdx.y;
    RowStarts const starts = rowStarts(p, row);
    ChunkColumns const columns = chunkColumns(p, c);
    float total = 0.0F;
    for (int64_t column = columns.begin + threadIdx.x; column < columns.end; column += blockDim.x)
    {
        float s[1];
        sumAt<AnyAccess, 1>(p, starts, column, true, s);
        total += s[0];
    }
    float2 const sum = rowSum(float2{total, 0.0F}, static_cast<int>(blockDim.x), partials);
    if (threadIdx.x == 0)
    {
        c.totals[row * c.chunks + blockIdx.x] = sum.x;
    }
}

//! Second pass: each chunk's deviations from the row's mean, their sum and the sum of their squares.
__global__ void __launch_bounds__(kMaxRowThreads) chunkMomentsKernel(RowProblem p, RowChunks c)
{
    __shared__ float2 partials[kMaxRowThreads / kWarp];
    int64_t const row = blockIdx.y;
    RowStarts const starts = rowStarts(p, row);
    ChunkColumns const columns = chunkColumns(p, c);
    float const mean = chunkedMean(p, c, row);
    float2 moments{0.0F, 0.0F};
    for (int64_t column = columns.begin + threadIdx.x; column < columns.end; column += blockDim.x)
    {
        float s[1];
        sumAt<AnyAccess, 1>(p, starts, column, false, s);
        float const d = s[0] - mean;
        moments.x += d;
        moments.y += d * d;
    }
    float2 const sum = rowSum(moments, static_cast<int>(blockDim.x), partials);
    if (threadIdx.x == 0)
    {
        c.moments[row * c.chunks + blockIdx.x] = sum;
    }
}

//! Last pass: the row's statistics from its chunks' moments (in chunk order), then the chunk's normalized values.
__global__ void __launch_bounds__(kMaxRowThreads) chunkWriteKernel(RowProblem p, RowChunks c)
{
    int64_t const row = blockIdx.y;
    RowStarts const starts = rowStarts(p, row);
    ChunkColumns const columns = chunkColumns(p, c);
    float2 moments{0.0F, 0.0F};
    for (int64_t k = 0; k < c.chunks; ++k)
    {
        float2 const chunk = c.moments[row * c.chunks + k];
        moments.x += chunk.x;
        moments.y += chunk.y;
    }
    RowStatistics const stats = statisticsOf(p, chunkedMean(p, c, row), moments);
    for (int64_t column = columns.begin + threadIdx.x; column < columns.end; column += blockDim.x)
    {
        float s[1];
        sumAt<AnyAccess, 1>(p, starts, column, false, s);
        writeAt<AnyAccess, 1>(p, starts.out, column, s, stats.mean, stats.offset, stats.inverse);
    }
}

//! How many chunks each of `p`'s rows is cut into: enough that the rows' blocks fill the GPU, each at least
//! kChunkLength long; 1 where the rows alone fill it.
int64_t chunksOf(RowProblem const& p)
{
    int64_t const wanted = kBlocksThatFillTheGpu / p.rows;
    return std::clamp<int64_t>(wanted, 1, std::max<int64_t>(p.length / kChunkLength, 1));
}

//! Queues the three passes over rows cut into `chunks` pieces, their partial sums in `scratch`.
void launchChunked(RowProblem const& p, int64_t chunks, DeviceBuffer& scratch, cudaStream_t stream)
{
    auto const partials = static_cast<size_t>(p.rows * chunks);
    scratch.reserve(partials * (sizeof(float2) + sizeof(float)), stream, "a normalization's partial sums");
    RowChunks c;
    c.chunks = chunks;
    c.chunkLength = (p.length + chunks - 1) / chunks;
    c.moments = reinterpret_cast<float2*>(scratch.data());
    c.totals = reinterpret_cast<float*>(c.moments + partials);
    dim3 const grid(static_cast<unsigned>(chunks), static_cast<unsigned>(p.rows));
    chunkTotalsKernel<<<grid, kMaxRowThreads, 0, stream>>>(p, c);
    chunkMomentsKernel<<<grid, kMaxRowThreads, 0, stream>>>(p, c);
    chunkWriteKernel<<<grid, kMaxRowThreads, 0, stream>>>(p, c);
}

int64_t roundUp(int64_t value, int64_t multiple)
{
    return (value + multiple - 1) / multiple * multiple;
}

//! The fewest lanes, a power of two, that hold `packs` packs at most `packsPerLane` each; a warp's where none do.
int lanesFor(int64_t packs, int64_t packsPerLane)
{
    int lanes = 1;
    while (lanes < kWarp && lanes * packsPerLane < packs)
    {
        lanes *= 2;
    }
    return lanes;
}

//! Queues cachedRowsKernel<Access, N, kPacks> with a row on `lanes` lanes, several rows to a warp where they are few.
template <typename Access, int N, int kPacks>
void launchOnLanes(RowProblem const& p, int lanes, cudaStream_t stream)
{
    int64_t const rowsPerBlock = kWarpsPerBlock * kWarp / lanes;
    int64_t const blocks = (p.rows + rowsPerBlock - 1) / rowsPerBlock;
    cachedRowsKernel<Access, N, kPacks><<<static_cast<unsigned>(blocks), kWarpsPerBlock * kWarp, 0, stream>>>(p, lanes);
}

template <typename Access, int N>
void launchCached(RowProblem const& p, cudaStream_t stream)
{
    int64_t const packs = p.length / N;
    if (packs <= kWarp && p.rows >= kRowsThatFillTheGpu)
    {
        launchOnLanes<Access, N, 1>(p, lanesFor(packs, 1), stream);
        return;
    }
    if (p.length <= kWarpRowLength && p.rows >= kRowsThatFillTheGpu)
    {
        // Whisper's 384 FP16 values, 48 packs, on 16 lanes of 3 packs: on a warp, half its lanes would idle while the
        // others read their second pack.
        launchOnLanes<Access, N, kCache / N>(p, lanesFor(packs, kCache / N), stream);
        return;
    }
    // A block per row: few rows (a sentence's tokens) would leave most of the GPU idle as warps, each thread
    // working through many packs one memory round trip after another; so each thread holds about one pack (few
    // rows) or about 8 elements (long rows), at least enough threads to hold the row.
    int64_t const perThread = p.rows >= kRowsThatFillTheGpu ? std::max<int64_t>(1, 8 / N) : 1;
    auto const threads
        = static_cast<int>(std::min<int64_t>(kMaxRowThreads, roundUp((packs + perThread - 1) / perThread, kWarp)));
    if (packs <= threads)
    {
        // One pack a thread at most (every transformer's LayerNorm at a small batch): the one-pack kernel, a third
        // of the code and fewer registers than the one looping over kCache / N packs.
        cachedRowsKernel<Access, N, 1><<<static_cast<unsigned>(p.rows), threads, 0, stream>>>(p, threads);
        return;
    }
    cachedRowsKernel<Access, N><<<static_cast<unsigned>(p.rows), threads, 0, stream>>>(p, threads);
}

bool aligned(void const* data)
{
    return reinterpret_cast<uintptr_t>(data) % 16 == 0;
}

//! Whether every tensor of `p` can be read and written in packs of `n` elements: aligned rows of whole packs.
bool packs(RowProblem const& p, int64_t n)
{
    auto const rowOk = [](RowInput const& t) { return t.data == nullptr || t.stride == 0 || aligned(t.data); };
    return p.length % n == 0 && aligned(p.x.data) && aligned(p.y) && (p.sum == nullptr || aligned(p.sum))
        && (p.residual.data == nullptr || aligned(p.residual.data)) && rowOk(p.preBias) && rowOk(p.scale)
        && rowOk(p.bias);
}

template <typename T, Codes kCodes>
void launchVectors(RowProblem const& p, cudaStream_t stream)
{
    constexpr int kVector = 16 / static_cast<int>(sizeof(T));
    if (packs(p, kVector))
    {
        launchCached<TypedAccess<T, kCodes>, kVector>(p, stream);
    }
    else
    {
        launchCached<TypedAccess<T, kCodes>, 1>(p, stream);
    }
}

//! The codes x, the residual and y hold: none, one kind, or both (kANY).
Codes codesOf(RowProblem const& p)
{
    bool int8 = false;
    bool fp8 = false;
    auto const note = [&](bool coded, DataType type) {
        int8 = int8 || (coded && type == DataType::kINT8);
        fp8 = fp8 || (coded && type == DataType::kFP8);
    };
    note(p.x.codeScale > 0.0F, p.x.type);
    note(p.residual.codeScale > 0.0F, p.residual.type);
    note(p.yScale > 0.0F, p.yType);
    note(p.sumScale > 0.0F, p.sumCodeType);
    return int8 && fp8 ? Codes::kANY : int8 ? Codes::kINT8 : fp8 ? Codes::kFP8 : Codes::kNONE;
}

//! Whether every floating-point tensor `p` reads or writes has its value type (codes may be of either type).
bool oneType(RowProblem const& p)
{
    DataType const type = p.valueType;
    auto const same = [&](RowInput const& t) { return t.data == nullptr || t.codeScale > 0.0F || t.type == type; };
    return same(p.x) && same(p.preBias) && same(p.residual) && same(p.scale) && same(p.bias)
        && (p.yScale > 0.0F || p.yType == type) && (p.sum == nullptr || p.sumType == type);
}

template <typename T>
void launchTyped(RowProblem const& p, cudaStream_t stream)
{
    switch (codesOf(p))
    {
    case Codes::kINT8: launchVectors<T, Codes::kINT8>(p, stream); break;
    case Codes::kFP8: launchVectors<T, Codes::kFP8>(p, stream); break;
    default: launchVectors<T, Codes::kNONE>(p, stream); break;
    }
}

} // namespace

void normalizeRows(RowProblem const& given, DeviceBuffer* scratch, cudaStream_t stream)
{
    RowProblem problem = given;
    if (codesOf(problem) == Codes::kNONE)
    {
        problem.valueType = problem.x.type;
    }
    if (problem.rows == 0 || problem.length == 0)
    {
        return;
    }
    if (problem.rows > int64_t{0x7FFFFFFF})
    {
        throw std::invalid_argument("normalization: more rows than the CUDA backend's grid holds");
    }
    int64_t const chunks = scratch != nullptr && problem.length > kBlockRowLength ? chunksOf(problem) : 1;
    if (chunks > 1)
    {
        launchChunked(problem, chunks, *scratch, stream);
    }
    else if (problem.length > kBlockRowLength)
    {
        streamedRowsKernel<<<static_cast<unsigned>(problem.rows), kMaxRowThreads, 0, stream>>>(problem);
    }
    else if (!oneType(problem) || codesOf(problem) == Codes::kANY)
    {
        launchCached<AnyAccess, 1>(problem, stream);
    }
    else if (problem.valueType == DataType::kHALF)
    {
        launchTyped<__half>(problem, stream);
    }
    else if (problem.valueType == DataType::kBF16)
    {
        launchTyped<__nv_bfloat16>(problem, stream);
    }
    else
    {
        launchTyped<float>(problem, stream);
    }
    check(cudaGetLastError(), "normalization: launching the kernel");
}

} // namespace kiln::cuda
