// The attention layer (network/layers/attention.h) on the GPU in one kernel, as flash attention computes it: each
// block takes 64 queries of one batch, walks the keys 64 at a time, and keeps a running maximum and sum per query
// row ("online softmax"), so that neither the scores nor the probabilities are ever written to memory. FP16 runs
// its two products on tensor cores (WMMA, FP32 accumulation); FP32 computes them in FP32 on the CUDA cores, as the
// CPU reference does (no TF32). The scores, the softmax and the output accumulate in FP32 in both.
#include "backend/attention_geometry.h"
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/device_access.cuh"
#include "backend/cuda/layer_kernels.h"

#include <cuda_fp16.h>
#include <mma.h>

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::DataType;

constexpr int kWarps = 4;
constexpr int kWarpRows = 16;               //!< query rows per warp: one WMMA tile high
constexpr int kBlockRows = kWarps * kWarpRows; //!< queries per block
constexpr int kTileKeys = 64;               //!< keys per step
constexpr int kThreads = kWarps * 32;

//! What the kernel reads; plain values, as a kernel argument must be.
struct Problem
{
    void const* query;
    void const* keys;
    void const* values;
    void const* mask;
    void* output;
    DataType maskType;
    int64_t queries;
    int64_t keyCount;
    int64_t depth;
    int64_t valueDepth;
    int32_t paddedDepth;      //!< depth rounded up to 16 (the WMMA step), zero-filled
    int32_t paddedValueDepth; //!< likewise for the values
    bool keysByRow;
    bool zeroNaN;
    float scale;
    int32_t batchAxes;
    int64_t batchExtents[backend::AttentionGeometry::kMaxBatchAxes];
    //! Per operand (query, keys, values, mask): element strides along the batch axes, 0 where broadcast.
    int64_t batchStrides[4][backend::AttentionGeometry::kMaxBatchAxes];
    int64_t maskRowStride;
    int64_t maskColumnStride;
};

//! Where each array lies in the block's shared memory (in elements of its own type), and how many bytes it takes.
//! Leading dimensions are padded so that WMMA's 32-byte alignment holds at every 16-row, 16-column corner.
template <typename T>
struct SharedLayout
{
    int32_t queryLd, keyLd, valueLd, scoreLd, probabilityLd, outputLd;
    size_t keyOffset, valueOffset, scoreOffset, probabilityOffset, outputOffset, bytes; // byte offsets

    __host__ __device__ SharedLayout(int32_t paddedDepth, int32_t paddedValueDepth)
    {
        int32_t const pad = 32 / static_cast<int32_t>(sizeof(T)) / 2 * 2; // 16 halves or 8 floats: 32 bytes
        queryLd = paddedDepth + pad;
        keyLd = kTileKeys + pad; // keys are stored transposed: one row of 64 keys per depth index
        valueLd = paddedValueDepth + pad;
        probabilityLd = kTileKeys + pad;
        scoreLd = kTileKeys + 8;
        outputLd = paddedValueDepth + 8;
        size_t offset = size_t{kBlockRows} * queryLd * sizeof(T);
        keyOffset = offset;
        offset += size_t{static_cast<size_t>(paddedDepth)} * keyLd * sizeof(T);
        valueOffset = offset;
        offset += size_t{kTileKeys} * valueLd * sizeof(T);
        probabilityOffset = offset;
        offset += size_t{kBlockRows} * probabilityLd * sizeof(T);
        scoreOffset = offset;
        offset += size_t{kBlockRows} * scoreLd * sizeof(float);
        outputOffset = offset;
        offset += size_t{kBlockRows} * outputLd * sizeof(float);
        bytes = offset;
    }
};

template <typename T>
__device__ inline T fromFloat(float x);
template <>
__device__ inline float fromFloat<float>(float x)
{
    return x;
}
template <>
__device__ inline __half fromFloat<__half>(float x)
{
    return __float2half_rn(x);
}

enum Operand : int32_t
{
    kQUERY = 0,
    kKEYS = 1,
    kVALUES = 2,
    kMASK = 3,
};

//! Where output batch `batch`'s matrix of `operand` starts, in its elements.
__device__ inline int64_t batchOffset(Problem const& p, Operand operand, int64_t batch)
{
    int64_t offset = 0;
    for (int32_t axis = p.batchAxes - 1; axis >= 0; --axis)
    {
        offset += (batch % p.batchExtents[axis]) * p.batchStrides[operand][axis];
        batch /= p.batchExtents[axis];
    }
    return offset;
}

//! scores[16 x 64] = query rows [16 x depth] . keys [depth x 64], for the warp's rows.
__device__ inline void scoreTile(__half const* query, int32_t queryLd, __half const* keys, int32_t keyLd,
    float* scores, int32_t scoreLd, int32_t paddedDepth, int32_t /*lane*/)
{
    using namespace nvcuda;
    for (int32_t n = 0; n < kTileKeys; n += 16)
    {
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
        wmma::fill_fragment(acc, 0.0F);
        for (int32_t k = 0; k < paddedDepth; k += 16)
        {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
            wmma::load_matrix_sync(a, query + k, queryLd);
            wmma::load_matrix_sync(b, keys + static_cast<int64_t>(k) * keyLd + n, keyLd);
            wmma::mma_sync(acc, a, b, acc);
        }
        wmma::store_matrix_sync(scores + n, acc, scoreLd, wmma::mem_row_major);
    }
}

__device__ inline void scoreTile(float const* query, int32_t queryLd, float const* keys, int32_t keyLd, float* scores,
    int32_t scoreLd, int32_t paddedDepth, int32_t lane)
{
    // Each lane: rows lane / 8 + 4 r, columns lane % 8 + 8 c, so that a warp reads consecutive keys.
    float acc[4][8] = {};
    for (int32_t d = 0; d < paddedDepth; ++d)
    {
        float q[4];
        for (int32_t r = 0; r < 4; ++r)
        {
            q[r] = query[(lane / 8 + 4 * r) * queryLd + d];
        }
        for (int32_t c = 0; c < 8; ++c)
        {
            float const k = keys[static_cast<int64_t>(d) * keyLd + lane % 8 + 8 * c];
            for (int32_t r = 0; r < 4; ++r)
            {
                acc[r][c] = fmaf(q[r], k, acc[r][c]);
            }
        }
    }
    for (int32_t r = 0; r < 4; ++r)
    {
        for (int32_t c = 0; c < 8; ++c)
        {
            scores[(lane / 8 + 4 * r) * scoreLd + lane % 8 + 8 * c] = acc[r][c];
        }
    }
}

//! output[16 x valueDepth] += probabilities [16 x 64] . values [64 x valueDepth], for the warp's rows.
__device__ inline void accumulateTile(__half const* probabilities, int32_t probabilityLd, __half const* values,
    int32_t valueLd, float* output, int32_t outputLd, int32_t paddedValueDepth, int32_t /*lane*/)
{
    using namespace nvcuda;
    for (int32_t n = 0; n < paddedValueDepth; n += 16)
    {
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
        wmma::load_matrix_sync(acc, output + n, outputLd, wmma::mem_row_major);
        for (int32_t k = 0; k < kTileKeys; k += 16)
        {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
            wmma::load_matrix_sync(a, probabilities + k, probabilityLd);
            wmma::load_matrix_sync(b, values + static_cast<int64_t>(k) * valueLd + n, valueLd);
            wmma::mma_sync(acc, a, b, acc);
        }
        wmma::store_matrix_sync(output + n, acc, outputLd, wmma::mem_row_major);
    }
}

__device__ inline void accumulateTile(float const* probabilities, int32_t probabilityLd, float const* values,
    int32_t valueLd, float* output, int32_t outputLd, int32_t paddedValueDepth, int32_t lane)
{
    // Each lane: rows lane / 8 + 4 r, columns lane % 8 + 8 c.
    for (int32_t c0 = 0; c0 < paddedValueDepth; c0 += 64)
    {
        float acc[4][8] = {};
        for (int32_t j = 0; j < kTileKeys; ++j)
        {
            float p[4];
            for (int32_t r = 0; r < 4; ++r)
            {
                p[r] = probabilities[(lane / 8 + 4 * r) * probabilityLd + j];
            }
            for (int32_t c = 0; c < 8; ++c)
            {
                int32_t const column = c0 + lane % 8 + 8 * c;
                float const v = column < paddedValueDepth ? values[static_cast<int64_t>(j) * valueLd + column] : 0.0F;
                for (int32_t r = 0; r < 4; ++r)
                {
                    acc[r][c] = fmaf(p[r], v, acc[r][c]);
                }
            }
        }
        for (int32_t r = 0; r < 4; ++r)
        {
            for (int32_t c = 0; c < 8; ++c)
            {
                int32_t const column = c0 + lane % 8 + 8 * c;
                if (column < paddedValueDepth)
                {
                    output[(lane / 8 + 4 * r) * outputLd + column] += acc[r][c];
                }
            }
        }
    }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) attentionKernel(Problem p)
{
    extern __shared__ __align__(128) unsigned char shared[];
    SharedLayout<T> const layout(p.paddedDepth, p.paddedValueDepth);
    T* const query = reinterpret_cast<T*>(shared);
    T* const keys = reinterpret_cast<T*>(shared + layout.keyOffset);
    T* const values = reinterpret_cast<T*>(shared + layout.valueOffset);
    T* const probabilities = reinterpret_cast<T*>(shared + layout.probabilityOffset);
    float* const scores = reinterpret_cast<float*>(shared + layout.scoreOffset);
    float* const output = reinterpret_cast<float*>(shared + layout.outputOffset);

    int64_t const batch = blockIdx.y;
    int64_t const firstQuery = static_cast<int64_t>(blockIdx.x) * kBlockRows;
    T const* const queryIn = static_cast<T const*>(p.query) + batchOffset(p, kQUERY, batch);
    T const* const keysIn = static_cast<T const*>(p.keys) + batchOffset(p, kKEYS, batch);
    T const* const valuesIn = static_cast<T const*>(p.values) + batchOffset(p, kVALUES, batch);
    int64_t const maskBase = p.mask != nullptr ? batchOffset(p, kMASK, batch) : 0;
    int32_t const warp = static_cast<int32_t>(threadIdx.x) / 32;
    int32_t const lane = static_cast<int32_t>(threadIdx.x) % 32;

    for (int32_t e = threadIdx.x; e < kBlockRows * p.paddedDepth; e += kThreads)
    {
        int32_t const r = e / p.paddedDepth;
        int32_t const d = e % p.paddedDepth;
        int64_t const i = firstQuery + r;
        query[r * layout.queryLd + d] = i < p.queries && d < p.depth ? queryIn[i * p.depth + d] : fromFloat<T>(0.0F);
    }
    for (int32_t e = threadIdx.x; e < kBlockRows * layout.outputLd; e += kThreads)
    {
        output[e] = 0.0F;
    }

    // The softmax state of row lane / 2, which lanes 2r and 2r + 1 share, each taking half of the columns.
    int32_t const row = lane / 2;
    int32_t const half = lane % 2;
    int64_t const queryIndex = firstQuery + warp * kWarpRows + row;
    float runningMax = -INFINITY;
    float runningSum = 0.0F;
    float* const warpScores = scores + warp * kWarpRows * layout.scoreLd;
    T* const warpProbabilities = probabilities + warp * kWarpRows * layout.probabilityLd;
    float* const warpOutput = output + warp * kWarpRows * layout.outputLd;

    for (int64_t firstKey = 0; firstKey < p.keyCount; firstKey += kTileKeys)
    {
        __syncthreads(); // the previous step's keys and values are no longer read
        for (int32_t e = threadIdx.x; e < p.paddedDepth * kTileKeys; e += kThreads)
        {
            // Keys land transposed (depth-major); the read follows memory order either way.
            int32_t const d = p.keysByRow ? e % p.paddedDepth : e / kTileKeys;
            int32_t const j = p.keysByRow ? e / p.paddedDepth : e % kTileKeys;
            int64_t const key = firstKey + j;
            bool const inside = key < p.keyCount && d < p.depth;
            T const value = !inside ? fromFloat<T>(0.0F)
                : p.keysByRow       ? keysIn[key * p.depth + d]
                                    : keysIn[d * p.keyCount + key];
            keys[d * layout.keyLd + j] = value;
        }
        for (int32_t e = threadIdx.x; e < kTileKeys * p.paddedValueDepth; e += kThreads)
        {
            int32_t const j = e / p.paddedValueDepth;
            int32_t const c = e % p.paddedValueDepth;
            int64_t const key = firstKey + j;
            values[j * layout.valueLd + c]
                = key < p.keyCount && c < p.valueDepth ? valuesIn[key * p.valueDepth + c] : fromFloat<T>(0.0F);
        }
        __syncthreads();

        scoreTile(query + warp * kWarpRows * layout.queryLd, layout.queryLd, keys, layout.keyLd, warpScores,
            layout.scoreLd, p.paddedDepth, lane);
        __syncwarp();

        float tileScores[kTileKeys / 2];
        float tileMax = -INFINITY;
        for (int32_t c = 0; c < kTileKeys / 2; ++c)
        {
            int32_t const column = half * (kTileKeys / 2) + c;
            int64_t const key = firstKey + column;
            float score = -INFINITY;
            if (key < p.keyCount)
            {
                score = warpScores[row * layout.scoreLd + column] * p.scale;
                if (p.mask != nullptr && queryIndex < p.queries)
                {
                    score += device::loadFloat(p.mask, p.maskType,
                        maskBase + queryIndex * p.maskRowStride + key * p.maskColumnStride);
                }
            }
            tileScores[c] = score;
            tileMax = fmaxf(tileMax, score); // NaN never becomes the maximum, as on the CPU
        }
        tileMax = fmaxf(tileMax, __shfl_xor_sync(0xFFFFFFFFU, tileMax, 1));
        float const newMax = fmaxf(runningMax, tileMax);
        // While every score so far is -inf nothing accumulates; exp(-inf - -inf) would be NaN.
        float const rescale = newMax == -INFINITY ? 1.0F : expf(runningMax - newMax);
        float tileSum = 0.0F;
        for (int32_t c = 0; c < kTileKeys / 2; ++c)
        {
            float const probability = newMax == -INFINITY ? 0.0F : expf(tileScores[c] - newMax);
            tileSum += probability;
            warpProbabilities[row * layout.probabilityLd + half * (kTileKeys / 2) + c] = fromFloat<T>(probability);
        }
        tileSum += __shfl_xor_sync(0xFFFFFFFFU, tileSum, 1);
        runningSum = runningSum * rescale + tileSum;
        runningMax = newMax;
        int32_t const columns = p.paddedValueDepth / 2;
        for (int32_t c = half * columns; c < (half + 1) * columns; ++c)
        {
            warpOutput[row * layout.outputLd + c] *= rescale;
        }
        __syncwarp();

        accumulateTile(warpProbabilities, layout.probabilityLd, values, layout.valueLd, warpOutput, layout.outputLd,
            p.paddedValueDepth, lane);
        __syncwarp();
    }

    if (queryIndex >= p.queries)
    {
        return;
    }
    // A row masked throughout (maximum -inf: 0 / 0) or with a NaN score has only NaN probabilities, as on the CPU;
    // with zeroNaN they count as zeros.
    bool const nanRow = runningMax == -INFINITY || isnan(runningSum) || runningSum == 0.0F;
    T* const out = static_cast<T*>(p.output) + (batch * p.queries + queryIndex) * p.valueDepth;
    for (int64_t c = half; c < p.valueDepth; c += 2)
    {
        float const value = nanRow ? (p.zeroNaN ? 0.0F : NAN) : warpOutput[row * layout.outputLd + c] / runningSum;
        out[c] = fromFloat<T>(value);
    }
}

int32_t roundUpTo16(int64_t extent)
{
    return static_cast<int32_t>((extent + 15) / 16 * 16);
}

//! Lets the kernel for `T` use as much shared memory as the largest depths need, once per process and device
//! kind (the attribute is per function).
template <typename T>
void allowLargeSharedMemory()
{
    static std::once_flag once;
    std::call_once(once, [] {
        SharedLayout<T> const largest(kMaxAttentionDepth, kMaxAttentionDepth);
        check(cudaFuncSetAttribute(attentionKernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                  static_cast<int>(largest.bytes)),
            "attention: allowing the kernel its shared memory");
    });
}

template <typename T>
void launch(Problem const& problem, int64_t batches, cudaStream_t stream)
{
    allowLargeSharedMemory<T>();
    SharedLayout<T> const layout(problem.paddedDepth, problem.paddedValueDepth);
    dim3 const grid(static_cast<unsigned>((problem.queries + kBlockRows - 1) / kBlockRows),
        static_cast<unsigned>(batches));
    attentionKernel<T><<<grid, kThreads, layout.bytes, stream>>>(problem);
    check(cudaGetLastError(), "attention: launching the kernel");
}

} // namespace

void run(network::AttentionParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream)
{
    ConstTensorView const& query = inputs.at(0);
    ConstTensorView const& keys = inputs.at(1);
    ConstTensorView const& values = inputs.at(2);
    bool const masked = inputs.size() > 3 && inputs[3].data != nullptr;
    TensorView const& output = outputs.at(0);
    DataType const type = query.type;
    if ((type != DataType::kFLOAT && type != DataType::kHALF) || keys.type != type || values.type != type
        || output.type != type)
    {
        throw std::invalid_argument("attention: the CUDA kernel takes FP32 or FP16 query, keys, values and output "
                                    "of one type");
    }
    if (masked && inputs[3].type != DataType::kFLOAT && inputs[3].type != DataType::kHALF)
    {
        throw std::invalid_argument("attention: the CUDA kernel takes an FP32 or FP16 mask");
    }
    backend::AttentionGeometry const g = backend::attentionGeometry(
        query.shape, keys.shape, values.shape, masked ? &inputs[3].shape : nullptr, output.shape, params.keysByRow);
    if (g.depth > kMaxAttentionDepth || g.valueDepth > kMaxAttentionDepth)
    {
        throw std::invalid_argument("attention: the CUDA kernel takes depths of up to "
            + std::to_string(kMaxAttentionDepth) + ", not " + std::to_string(g.depth) + " and "
            + std::to_string(g.valueDepth));
    }
    if (g.batches > 65535)
    {
        throw std::invalid_argument(
            "attention: the CUDA kernel takes up to 65535 batches, not " + std::to_string(g.batches));
    }
    if (output.count() == 0)
    {
        return;
    }
    Problem problem{};
    problem.query = query.data;
    problem.keys = keys.data;
    problem.values = values.data;
    problem.mask = masked ? inputs[3].data : nullptr;
    problem.output = output.data;
    problem.maskType = masked ? inputs[3].type : DataType::kFLOAT;
    problem.queries = g.queries;
    problem.keyCount = g.keys;
    problem.depth = g.depth;
    problem.valueDepth = g.valueDepth;
    problem.paddedDepth = roundUpTo16(g.depth);
    problem.paddedValueDepth = roundUpTo16(g.valueDepth);
    problem.keysByRow = params.keysByRow;
    problem.zeroNaN = params.zeroNaNProbabilities;
    problem.scale = params.scale;
    problem.batchAxes = g.batchAxes;
    for (int32_t axis = 0; axis < g.batchAxes; ++axis)
    {
        problem.batchExtents[axis] = g.batchExtents[axis];
        problem.batchStrides[kQUERY][axis] = g.queryStrides[axis];
        problem.batchStrides[kKEYS][axis] = g.keyStrides[axis];
        problem.batchStrides[kVALUES][axis] = g.valueStrides[axis];
        problem.batchStrides[kMASK][axis] = g.maskStrides[axis];
    }
    problem.maskRowStride = g.maskRowStride;
    problem.maskColumnStride = g.maskColumnStride;
    if (type == DataType::kHALF)
    {
        launch<__half>(problem, g.batches, stream);
    }
    else
    {
        launch<float>(problem, g.batches, stream);
    }
}

} // namespace kiln::cuda
