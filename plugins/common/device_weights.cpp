#include "device_weights.h"

#include "plugin_error.h"

#ifdef KILN_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

#include <string>

namespace kiln::plugins
{

DeviceWeights::~DeviceWeights()
{
#ifdef KILN_WITH_CUDA
    if (mDevice != nullptr)
    {
        cudaFree(mDevice);
    }
#endif
}

float const* DeviceWeights::get(char const* plugin, std::vector<float> const& values) const
{
    if (values.empty())
    {
        return nullptr;
    }
#ifdef KILN_WITH_CUDA
    std::lock_guard<std::mutex> lock(mMutex);
    if (mDevice == nullptr)
    {
        size_t const bytes = values.size() * sizeof(float);
        void* device = nullptr;
        cudaError_t status = cudaMalloc(&device, bytes);
        if (status == cudaSuccess)
        {
            status = cudaMemcpy(device, values.data(), bytes, cudaMemcpyHostToDevice);
        }
        if (status != cudaSuccess)
        {
            cudaFree(device);
            throw PluginError(
                std::string(plugin) + ": could not copy its weights to the GPU: " + cudaGetErrorString(status));
        }
        mDevice = static_cast<float*>(device);
    }
    return mDevice;
#else
    throw PluginError(std::string(plugin) + ": this Kiln was built without CUDA");
#endif
}

} // namespace kiln::plugins
