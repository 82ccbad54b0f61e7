// What the host pays per CUDA call that an enqueue is made of, measured beside kiln_bench_host_path's figures: the
// floor under Kiln's time per layer on this machine (issue 16's host path).
#include "host_path_floor.h"

#include <algorithm>
#include <chrono>
#include <vector>

namespace kiln_bench
{
namespace
{

using Clock = std::chrono::steady_clock;

__global__ void emptyKernel(float* data)
{
    if (data != nullptr && threadIdx.x == 0 && blockIdx.x == 0)
    {
        data[0] = data[0];
    }
}

//! An argument of 2 KB, as a fused point-wise chain's program is about.
struct LargeArgument
{
    float values[512];
};

__global__ void largeArgumentKernel(LargeArgument argument, float* data)
{
    if (data != nullptr && threadIdx.x == 0 && blockIdx.x == 0)
    {
        data[0] = argument.values[0];
    }
}

//! The median over `batches` of the host time of one `call`, timed `perBatch` calls at a time; the stream is
//! drained between batches, outside the timing.
template <typename Call>
double medianMicroseconds(cudaStream_t stream, int batches, int perBatch, Call&& call)
{
    std::vector<double> times;
    for (int b = 0; b < batches; ++b)
    {
        cudaStreamSynchronize(stream);
        Clock::time_point const start = Clock::now();
        for (int i = 0; i < perBatch; ++i)
        {
            call();
        }
        Clock::time_point const end = Clock::now();
        times.push_back(std::chrono::duration<double, std::micro>(end - start).count() / perBatch);
    }
    cudaStreamSynchronize(stream);
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

} // namespace

HostFloors measureHostFloors(cudaStream_t stream)
{
    constexpr int kBatches = 21;
    constexpr int kPerBatch = 100;
    float* scratch = nullptr;
    if (cudaMalloc(&scratch, 2 * 32) != cudaSuccess)
    {
        return HostFloors{};
    }
    LargeArgument const large{};
    HostFloors floors;
    floors.launchUs = medianMicroseconds(stream, kBatches, kPerBatch, [&] {
        emptyKernel<<<1, 32, 0, stream>>>(scratch);
        cudaGetLastError();
    });
    floors.largeArgumentLaunchUs = medianMicroseconds(stream, kBatches, kPerBatch, [&] {
        largeArgumentKernel<<<1, 32, 0, stream>>>(large, scratch);
        cudaGetLastError();
    });
    floors.copyUs = medianMicroseconds(stream, kBatches, kPerBatch,
        [&] { cudaMemcpyAsync(scratch + 8, scratch, 32, cudaMemcpyDeviceToDevice, stream); });
    floors.lastErrorUs = medianMicroseconds(stream, kBatches, kPerBatch, [] { cudaGetLastError(); });
    cudaStreamSynchronize(stream);
    cudaFree(scratch);
    return floors;
}

} // namespace kiln_bench
