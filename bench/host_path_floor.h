// The host time of the CUDA calls an enqueue is made of, on this machine: kiln_bench_host_path prints them beside
// Kiln's time per layer, so that what Kiln adds to the calls it must make shows (CUDA builds only).
#pragma once

#include <cuda_runtime_api.h>

namespace kiln_bench
{

//! Medians of one call's host time, in microseconds; 0 where they could not be measured.
struct HostFloors
{
    double launchUs{0.0};              //!< a kernel launch (with the cudaGetLastError after it, as Kiln checks)
    double largeArgumentLaunchUs{0.0}; //!< the same with a 2 KB argument, as a fused point-wise chain passes
    double copyUs{0.0};                //!< cudaMemcpyAsync of 32 bytes from device to device
    double lastErrorUs{0.0};           //!< cudaGetLastError alone
};

//! Times each call on `stream` (idle, and drained between batches).
HostFloors measureHostFloors(cudaStream_t stream);

} // namespace kiln_bench
