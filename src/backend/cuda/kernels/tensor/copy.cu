// A copy between two places in device memory as one kernel: what a shuffle that moves nothing and an identity of one
// type do at every run. Queued as a kernel rather than as a cudaMemcpyAsync from device to device, so that such a
// layer costs the host what any other layer's launch does (kiln_bench_host_path --backend=cuda prints the host time
// of both calls on the machine it runs on). It reads and writes the widest words both addresses and the length allow.
#include "backend/cuda/kernels/kernels.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"

#include <cstdint>

namespace kiln::cuda
{
namespace
{

template <typename Word>
__global__ void copyKernel(Word const* from, Word* to, int64_t words)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < words;
         i += static_cast<int64_t>(blockDim.x) * gridDim.x)
    {
        to[i] = from[i];
    }
}

template <typename Word>
void copyWords(void* to, void const* from, size_t bytes, cudaStream_t stream)
{
    auto const words = static_cast<int64_t>(bytes / sizeof(Word));
    copyKernel<Word><<<device::blocksFor(words), device::kThreadsPerBlock, 0, stream>>>(
        static_cast<Word const*>(from), static_cast<Word*>(to), words);
}

} // namespace

void copyOnDevice(void* to, void const* from, size_t bytes, cudaStream_t stream)
{
    if (bytes == 0)
    {
        return;
    }
    // The widest word that both addresses and the length are multiples of.
    uintptr_t const bits = reinterpret_cast<uintptr_t>(to) | reinterpret_cast<uintptr_t>(from) | bytes;
    if (bits % 16 == 0)
    {
        copyWords<uint4>(to, from, bytes, stream);
    }
    else if (bits % 8 == 0)
    {
        copyWords<uint64_t>(to, from, bytes, stream);
    }
    else if (bits % 4 == 0)
    {
        copyWords<uint32_t>(to, from, bytes, stream);
    }
    else if (bits % 2 == 0)
    {
        copyWords<uint16_t>(to, from, bytes, stream);
    }
    else
    {
        copyWords<uint8_t>(to, from, bytes, stream);
    }
    check(cudaGetLastError(), "copying in device memory");
}

} // namespace kiln::cuda
