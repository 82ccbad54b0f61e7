#include "blas_handle.h"

#include "common/plugin_error.h"

#ifdef KILN_WITH_CUDA
#include <cublas_v2.h>
#endif

#include <string>

namespace kiln::plugins
{

BlasHandle::~BlasHandle()
{
#ifdef KILN_WITH_CUDA
    if (mHandle != nullptr)
    {
        cublasDestroy(static_cast<cublasHandle_t>(mHandle));
    }
#endif
}

void* BlasHandle::get(char const* plugin) const
{
#ifdef KILN_WITH_CUDA
    std::lock_guard<std::mutex> lock(mMutex);
    if (mHandle == nullptr)
    {
        cublasHandle_t handle = nullptr;
        cublasStatus_t const status = cublasCreate(&handle);
        if (status != CUBLAS_STATUS_SUCCESS)
        {
            throw PluginError(
                std::string(plugin) + ": could not create a cuBLAS handle: " + cublasGetStatusString(status));
        }
        mHandle = handle;
    }
    return mHandle;
#else
    throw PluginError(std::string(plugin) + ": this Kiln was built without CUDA");
#endif
}

} // namespace kiln::plugins
