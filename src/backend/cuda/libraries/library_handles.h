// cuDNN, cuBLAS and cuBLASLt handles of one execution context: its library layers use them,
// and its V2 plugins receive the cuDNN and cuBLAS ones in IPluginV2Ext::attachToContext.
#pragma once

#include <cublasLt.h>
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
    //! Throws likewise. Unbound: cuBLASLt takes the stream with each call instead.
    cublasLtHandle_t cublasLt();

    //! Binds the handles made so far to `stream`: a plugin given them at attachToContext then queues the library's
    //! work on the stream its enqueue runs on, even if it does not set the stream itself.
    void bind(cudaStream_t stream);

    //! Forgets which streams the handles are bound to, so that the next cudnn() or cublas() binds them again: after
    //! a plugin ran, which may have bound them to a stream of its own.
    void forgetStreams()
    {
        mCudnnBound = false;
        mCublasBound = false;
    }

private:
    cudnnHandle_t mCudnn{nullptr};
    cublasHandle_t mCublas{nullptr};
    cublasLtHandle_t mCublasLt{nullptr};
    // The streams the handles were last bound to: binding again only when the stream changes keeps the libraries'
    // cudnnSetStream and cublasSetStream out of every run of every layer.
    cudaStream_t mCudnnStream{nullptr};
    cudaStream_t mCublasStream{nullptr};
    bool mCudnnBound{false};
    bool mCublasBound{false};
};

} // namespace kiln::cuda
