// Greedy NMS on the GPU, one thread block per segment (an image, or an image's class), for any number of
// candidates: candidates arrive in descending score order; each is kept unless a kept candidate suppresses it.
//
// The block takes blockDim.x candidates at a time. Each thread first tests its candidate against every box kept
// so far (in parallel), then the block walks the chunk in order: a surviving candidate is kept, and the threads
// behind it test themselves against it. The walk stops once `maxKept` candidates are kept.
//
// A Problem supplies
//     using Candidate = ...;                                         // what a suppression test needs
//     __device__ int32_t count(int32_t segment) const;               // candidates of the segment
//     __device__ Candidate load(int32_t segment, int32_t i) const;  // the i-th by score
//     __device__ bool suppresses(Candidate const& kept, Candidate const& later) const;
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::plugins
{

//! Per segment s: keptCount[s] candidates kept, their positions (in score order) in keptPositions[s * stride + k],
//! and their loaded form in keptCandidates (same indexing). `stride` must be >= min(count, maxKept).
template <typename Problem>
__global__ void greedyNmsKernel(Problem problem, int32_t maxKept, int64_t stride, int32_t* keptPositions,
    typename Problem::Candidate* keptCandidates, int32_t* keptCount)
{
    using Candidate = typename Problem::Candidate;
    extern __shared__ unsigned char sharedBytes[];
    auto* chunkCandidates = reinterpret_cast<Candidate*>(sharedBytes);
    auto* alive = reinterpret_cast<unsigned char*>(chunkCandidates + blockDim.x);

    int32_t const segment = blockIdx.x;
    int32_t const count = problem.count(segment);
    int32_t* positions = keptPositions + segment * stride;
    Candidate* kept = keptCandidates + segment * stride;
    int32_t nbKept = 0; // the same in every thread: all of them see the same alive flags
    for (int32_t start = 0; start < count && nbKept < maxKept; start += blockDim.x)
    {
        int32_t const i = start + static_cast<int32_t>(threadIdx.x);
        bool live = i < count;
        Candidate candidate{};
        if (live)
        {
            candidate = problem.load(segment, i);
            for (int32_t k = 0; k < nbKept && live; ++k)
            {
                live = !problem.suppresses(kept[k], candidate);
            }
        }
        chunkCandidates[threadIdx.x] = candidate;
        alive[threadIdx.x] = live ? 1 : 0;
        __syncthreads();
        int32_t const chunk = min(static_cast<int32_t>(blockDim.x), count - start);
        for (int32_t j = 0; j < chunk && nbKept < maxKept; ++j)
        {
            if (alive[j] == 0)
            {
                continue; // nothing was written since the last barrier: every thread reads the same flag
            }
            if (threadIdx.x == 0)
            {
                positions[nbKept] = start + j;
                kept[nbKept] = chunkCandidates[j];
            }
            if (static_cast<int32_t>(threadIdx.x) > j && alive[threadIdx.x] != 0
                && problem.suppresses(chunkCandidates[j], chunkCandidates[threadIdx.x]))
            {
                alive[threadIdx.x] = 0;
            }
            ++nbKept;
            __syncthreads(); // flags and kept[] written in this step are seen by every thread after it
        }
        __syncthreads(); // the chunk's shared arrays are read until here
    }
    if (threadIdx.x == 0)
    {
        keptCount[segment] = nbKept;
    }
}

//! Runs greedyNmsKernel over `segments` segments.
template <typename Problem>
cudaError_t launchGreedyNms(Problem const& problem, int32_t segments, int32_t maxKept, int64_t stride,
    int32_t* keptPositions, typename Problem::Candidate* keptCandidates, int32_t* keptCount, cudaStream_t stream)
{
    if (segments <= 0)
    {
        return cudaSuccess;
    }
    constexpr unsigned kThreads = 256;
    size_t const shared = kThreads * (sizeof(typename Problem::Candidate) + 1);
    greedyNmsKernel<Problem><<<static_cast<unsigned>(segments), kThreads, shared, stream>>>(
        problem, maxKept, stride, keptPositions, keptCandidates, keptCount);
    return cudaGetLastError();
}

} // namespace kiln::plugins
