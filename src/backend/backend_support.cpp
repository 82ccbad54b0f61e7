#include "backend/backend_support.h"

#if defined(KILN_WITH_CUDA) && KILN_WITH_CUDA
#define KILN_HAS_CUDA_BACKEND 1
#include "backend/cuda/convolution_timing.h"
#include "backend/cuda/layer_runner.h"

#include <cuda_runtime_api.h>
#include <cudnn.h>
#endif

#include <exception>

namespace kiln
{

bool cudaBackendBuilt()
{
#ifdef KILN_HAS_CUDA_BACKEND
    return true;
#else
    return false;
#endif
}

bool cudaDeviceUsable(std::string& why)
{
#ifdef KILN_HAS_CUDA_BACKEND
    int count = 0;
    cudaError_t const status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0)
    {
        why = status != cudaSuccess ? std::string("no usable CUDA GPU: ") + cudaGetErrorString(status)
                                    : std::string("no CUDA GPU is present");
        cudaGetLastError(); // clear the error, so that it does not surface in a later CUDA call
        return false;
    }
    return true;
#else
    why = "this build of Kiln has no CUDA backend (it was built without CUDA)";
    return false;
#endif
}

std::string unsupportedOnBackend(network::LayerParams const& params, Backend backend)
{
#ifdef KILN_HAS_CUDA_BACKEND
    if (backend == Backend::kCUDA)
    {
        return cuda::unsupportedReason(params);
    }
#endif
    (void) params;
    (void) backend;
    return {};
}

std::unique_ptr<CudaConvolutionTimer> makeCudaConvolutionTimer(nvinfer1::IGpuAllocator* allocator, std::string& why)
{
    if (!cudaDeviceUsable(why))
    {
        return nullptr;
    }
#ifdef KILN_HAS_CUDA_BACKEND
    try
    {
        return std::make_unique<cuda::ConvolutionTimer>(allocator);
    }
    catch (std::exception const& e)
    {
        why = e.what();
    }
#else
    (void) allocator;
#endif
    return nullptr;
}

std::string cudaDeviceIdentity()
{
    std::string why;
    if (!cudaDeviceUsable(why))
    {
        return {};
    }
#ifdef KILN_HAS_CUDA_BACKEND
    int device = 0;
    cudaDeviceProp properties{};
    if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&properties, device) != cudaSuccess)
    {
        cudaGetLastError();
        return {};
    }
    return std::string(properties.name) + ", sm_" + std::to_string(properties.major) + std::to_string(properties.minor)
        + ", cuDNN " + std::to_string(cudnnGetVersion());
#else
    return {};
#endif
}

} // namespace kiln
