#include "group_norm_on_chip.h"

#include "common/block_reduce.cuh"
#include "common/vector16.cuh"

#include <cooperative_groups.h>
#include <cuda_pipeline.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

namespace kiln::plugins
{
namespace
{

namespace cg = cooperative_groups;

int constexpr kThreads = 256;
// 16-byte vectors per thread, staged in shared memory: 32 KB a block, of which 6 fit an SM of an H100 (with the
// 1 KB the GPU reserves per block), so that 16.8 MB of rows are on chip at once (one wave), and blocks in different
// phases (loading, reducing, storing) keep each SM's memory traffic going.
int constexpr kMaxVectors = 8;
int constexpr kMaxClusterBlocks = 8; // the portable cluster size
// Below this many blocks (two per SM of an H100), rows are spread over more blocks of a cluster, so that a few
// large groups still fill the GPU.
int64_t constexpr kFillBlocks = 264;

struct OnChipPlan
{
    int clusterBlocks{0}; //!< 0: the shape does not fit
    int vectors{0};       //!< per thread, 1 to kMaxVectors
    int64_t chunkLength{0};
};

OnChipPlan planOnChip(int64_t rowLength, int64_t vec, int64_t rows)
{
    OnChipPlan plan;
    int64_t const perBlock = kThreads * kMaxVectors * vec;
    int64_t const needed = (rowLength + perBlock - 1) / perBlock;
    if (rowLength <= 0 || needed > kMaxClusterBlocks)
    {
        return plan;
    }
    int64_t const spread = std::min<int64_t>(
        {kMaxClusterBlocks, (kFillBlocks + rows - 1) / rows, (rowLength + kThreads * vec - 1) / (kThreads * vec)});
    int64_t const blocks = std::max<int64_t>({needed, spread, 1});
    int64_t const vectorsPerBlock = ((rowLength + vec - 1) / vec + blocks - 1) / blocks;
    plan.chunkLength = vectorsPerBlock * vec;
    plan.vectors = static_cast<int>((vectorsPerBlock + kThreads - 1) / kThreads);
    plan.clusterBlocks = static_cast<int>(blocks);
    return plan;
}

// The sum of every thread's `value` over the cluster's blocks, returned to all of them: each block's total goes to
// its `slot` in shared memory, which every block reads after a cluster barrier. Each call uses its own slot, so that
// no block can overwrite a total another is still reading (the next call's barrier follows all reads of this one).
__device__ float clusterSum(cg::cluster_group& cluster, float value, float& slot)
{
    float const blockTotal = blockSum(value);
    if (threadIdx.x == 0)
    {
        slot = blockTotal;
    }
    cluster.sync();
    float total = 0.F;
    for (unsigned r = 0; r < cluster.num_blocks(); ++r)
    {
        total += *cluster.map_shared_rank(&slot, r);
    }
    return total;
}

// Block `rank` of a cluster holds elements [rank * chunkLength, (rank + 1) * chunkLength) of the cluster's row in
// shared memory, one 16-byte vector per thread at a time: thread t's vector j starts at element (j * kThreads + t) *
// kVec of the chunk, and is copied there with cp.async (no register staging, so all of a thread's copies are in
// flight at once); each thread reads back only the vectors it copied, so no barrier guards them. The sum, then the
// squared deviations from the mean, are summed over the block, then over the cluster's blocks from their shared
// memory; both come from the staged row, so the variance is the exact two-pass one at the cost of one read.
template <typename T>
__global__ void __launch_bounds__(kThreads) groupNormOnChipKernel(
    T const* x, T* y, GroupNormShape shape, GroupNormAffine affine, int64_t chunkLength, int vectors)
{
    constexpr int kVec = kVectorElements<T>;
    extern __shared__ uint4 staged[]; // vectors * kThreads
    __shared__ float partials[2];     // this block's sum and sum of squared deviations, which the cluster reads
    cg::cluster_group cluster = cg::this_cluster();
    unsigned const blocks = cluster.num_blocks();
    unsigned const rank = cluster.block_rank();
    int64_t const channelsPerGroup = shape.channels / shape.groups;
    int64_t const rowLength = channelsPerGroup * shape.spatial;
    int64_t const row = blockIdx.x / blocks;
    int64_t const begin = rank * chunkLength;
    int64_t const end = min(rowLength, begin + chunkLength);
    T const* in = x + row * rowLength;
    auto const elementAt = [&](int j) { return begin + static_cast<int64_t>(j * kThreads + threadIdx.x) * kVec; };
    for (int j = 0; j < vectors && elementAt(j) < end; ++j)
    {
        __pipeline_memcpy_async(&staged[j * kThreads + threadIdx.x], in + elementAt(j), sizeof(uint4));
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    // The staged elements' sum of f(value), over this thread's vectors.
    auto const threadSum = [&](auto f) {
        float sum = 0.F;
        for (int j = 0; j < vectors && elementAt(j) < end; ++j)
        {
            float values[kVec];
            unpackElements(staged[j * kThreads + threadIdx.x], values);
#pragma unroll
            for (int i = 0; i < kVec; ++i)
            {
                sum += f(values[i]);
            }
        }
        return sum;
    };
    float const mean
        = clusterSum(cluster, threadSum([](float v) { return v; }), partials[0]) / static_cast<float>(rowLength);
    float const totalSquares
        = clusterSum(cluster, threadSum([mean](float v) { return (v - mean) * (v - mean); }), partials[1]);
    float const invStd = rsqrtf(totalSquares / static_cast<float>(rowLength) + affine.epsilon);
    int64_t const firstChannel = (row % shape.groups) * channelsPerGroup;
    T* out = y + row * rowLength;
    for (int j = 0; j < vectors && elementAt(j) < end; ++j)
    {
        int64_t const at = elementAt(j);
        // A vector lies in one channel: the channel size is a whole number of vectors.
        int64_t const channel = firstChannel + at / shape.spatial;
        float const scale = affine.scale[channel] * invStd;
        float const bias = affine.bias[channel];
        float values[kVec];
        unpackElements(staged[j * kThreads + threadIdx.x], values);
#pragma unroll
        for (int i = 0; i < kVec; ++i)
        {
            float const value = (values[i] - mean) * scale + bias;
            values[i] = affine.leakyRelu && value < 0.F ? value * affine.alpha : value;
        }
        storeElements(values, out + at);
    }
    cluster.sync(); // no block leaves, taking its shared memory, while another may still read its partials
}

// Rows that need a cluster pay for its synchronisation: on an H100, GroupNorm of 2 x 512 x 64 x 64 in 32 groups
// (clusters of 8) took 23 us here against 19 us for the two-pass kernels, whose second read of a 16.8 MB input hits
// the L2. So clusters serve only inputs larger than half the L2, where that second read would come from memory.
bool exceedsHalfTheL2(int64_t inputBytes)
{
    int device = 0;
    int l2Bytes = 0;
    if (cudaGetDevice(&device) != cudaSuccess
        || cudaDeviceGetAttribute(&l2Bytes, cudaDevAttrL2CacheSize, device) != cudaSuccess)
    {
        (void) cudaGetLastError();
        return false;
    }
    return inputBytes > l2Bytes / 2;
}

template <typename T>
cudaError_t launchTyped(
    void const* x, void* y, GroupNormShape const& shape, GroupNormAffine const& affine, cudaStream_t stream)
{
    int64_t constexpr vec = kVectorElements<T>;
    int64_t const rows = shape.batch * shape.groups;
    bool const aligned = reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(y) % 16 == 0;
    OnChipPlan const plan = planOnChip(shape.channels / shape.groups * shape.spatial, vec, rows);
    if (!aligned || shape.spatial % vec != 0 || plan.clusterBlocks == 0
        || rows * plan.clusterBlocks >= (int64_t{1} << 31)
        || (plan.clusterBlocks > 1
            && !exceedsHalfTheL2(rows * (shape.channels / shape.groups * shape.spatial) * int64_t{sizeof(T)})))
    {
        return cudaErrorNotSupported;
    }
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(rows * plan.clusterBlocks));
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = static_cast<size_t>(plan.vectors) * kThreads * sizeof(uint4); // at most 32 KB
    config.stream = stream;
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = static_cast<unsigned>(plan.clusterBlocks);
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    cudaError_t const status = cudaLaunchKernelEx(&config, groupNormOnChipKernel<T>, static_cast<T const*>(x),
        static_cast<T*>(y), shape, affine, plan.chunkLength, plan.vectors);
    if (status != cudaSuccess)
    {
        // A launch the device refuses (no clusters, or not enough room for one): the two-pass kernels do the work.
        // The launch error is not sticky; clear it so that their status is their own.
        (void) cudaGetLastError();
        return cudaErrorNotSupported;
    }
    return cudaSuccess;
}

} // namespace

cudaError_t launchGroupNormOnChip(
    void const* x, void* y, bool half, GroupNormShape const& shape, GroupNormAffine const& affine, cudaStream_t stream)
{
    return half ? launchTyped<__half>(x, y, shape, affine, stream) : launchTyped<float>(x, y, shape, affine, stream);
}

} // namespace kiln::plugins
