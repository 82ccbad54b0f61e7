#include "backend/cuda/device_facts.h"

#include "backend/cuda/cuda_error.h"

#include <string>

namespace kiln::cuda
{

int32_t multiprocessorCount(char const* what)
{
    // Asked at each call, not once a process: a process may run contexts on several devices.
    int device = 0;
    int count = 0;
    std::string const asking = std::string(what) + ": asking the device how many multiprocessors it has";
    check(cudaGetDevice(&device), asking.c_str());
    check(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device), asking.c_str());
    return count;
}

int32_t sharedMemoryPerBlock(char const* what)
{
    int device = 0;
    int bytes = 0;
    std::string const asking = std::string(what) + ": asking the device how much shared memory a block may have";
    check(cudaGetDevice(&device), asking.c_str());
    check(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), asking.c_str());
    return bytes;
}

} // namespace kiln::cuda
