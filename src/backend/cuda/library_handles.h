// cuDNN and cuBLAS handles of one execution context: its cuDNN/cuBLAS layers use them, and
// so do its V2 plugins, which receive them in IPluginV2Ext::attachToContext.
#pragma once

#include <cublas_v2.h>
#include <cudnn.h>

namespace kiln::cuda
{

//! Made when first needed, destroyed with the context.
class LibraryHandles
{
public:
    LibraryHandles() = default;
    ~LibraryHandles();
    LibraryHandles(LibraryHandles const&) = delete;
    LibraryHandles& operator=(LibraryHandles const&) = delete;

    //! The handle, bound to `stream`. Throws std::runtime_error if the library cannot start.
    cudnnHandle_t cudnn(cudaStream_t stream);
    cublasHandle_t cublas(cudaStream_t stream);

    //! Binds the handles made so far to `stream`: a plugin given them at attachToContext then queues the library's
    //! work on the stream its enqueue runs on, even if it does not set the stream itself.
    void bind(cudaStream_t stream);

private:
    cudnnHandle_t mCudnn{nullptr};
    cublasHandle_t mCublas{nullptr};
};

} // namespace kiln::cuda
