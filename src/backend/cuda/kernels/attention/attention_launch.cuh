// What the attention kernels' launches share (host code): the ladder from a problem's depth to the depth a kernel is
// compiled for, the grid of blocks of queries, and the grant of shared memory past 48 KiB a block.
#pragma once

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/attention/attention_problem.cuh"
#include "backend/cuda/layer_kernels.h"

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace kiln::cuda::attention
{

//! Calls `body` with the depth of the kernels that take operands `depth` deep (32, 64 or 128: each kernel is compiled
//! for one) as a std::integral_constant, and returns what it returns.
template <typename Body>
decltype(auto) withKernelDepth(int64_t depth, Body&& body)
{
    static_assert(kMaxAttentionDepth == 128, "the depths below cover kMaxAttentionDepth");
    if (depth <= 32)
    {
        return body(std::integral_constant<int, 32>{});
    }
    if (depth <= 64)
    {
        return body(std::integral_constant<int, 64>{});
    }
    return body(std::integral_constant<int, 128>{});
}

//! The blocks a kernel whose blocks take `blockQueries` queries each runs for `problem` over `batches` batches, with
//! problem.queryTiles set to the blocks of one batch. Throws std::invalid_argument where they are more than a grid
//! holds.
template <typename T>
unsigned queryBlocks(Problem<T>& problem, int64_t batches, int64_t blockQueries)
{
    int64_t const queryTiles = (problem.queries + blockQueries - 1) / blockQueries;
    int64_t const blocks = batches * queryTiles;
    if (blocks > INT32_MAX)
    {
        throw std::invalid_argument("attention: " + std::to_string(blocks) + " blocks of queries are too many");
    }
    problem.queryTiles = static_cast<int32_t>(queryTiles);
    return static_cast<unsigned>(blocks);
}

//! Allows kernel `kKernel` `bytes` of dynamic shared memory on the current device. A grant past 48 KiB holds for the
//! kernel on that device until a larger one, so each device's largest grant is kept and a launch within it costs no
//! call into CUDA.
template <auto kKernel>
void grantSharedMemory(size_t bytes, char const* what)
{
    constexpr int kDevicesKept = 64;
    static std::array<std::atomic<size_t>, kDevicesKept> granted{};
    int device = 0;
    check(cudaGetDevice(&device), "attention: finding the device");
    std::atomic<size_t>* const largest = device >= 0 && device < kDevicesKept ? &granted[static_cast<size_t>(device)]
                                                                              : nullptr;
    if (largest != nullptr && largest->load(std::memory_order_relaxed) >= bytes)
    {
        return;
    }
    check(cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)), what);
    for (size_t seen = largest != nullptr ? largest->load(std::memory_order_relaxed) : bytes;
         seen < bytes && !largest->compare_exchange_weak(seen, bytes, std::memory_order_relaxed);)
    {
    }
}

} // namespace kiln::cuda::attention
