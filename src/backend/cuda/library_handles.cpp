#include "backend/cuda/library_handles.h"

#include <stdexcept>
#include <string>

namespace kiln::cuda
{

LibraryHandles::~LibraryHandles()
{
    if (mCudnn != nullptr)
    {
        cudnnDestroy(mCudnn);
    }
    if (mCublas != nullptr)
    {
        cublasDestroy(mCublas);
    }
    if (mCublasLt != nullptr)
    {
        cublasLtDestroy(mCublasLt);
    }
}

cudnnHandle_t LibraryHandles::cudnn(cudaStream_t stream)
{
    if (mCudnn == nullptr)
    {
        if (cudnnStatus_t const status = cudnnCreate(&mCudnn); status != CUDNN_STATUS_SUCCESS)
        {
            throw std::runtime_error(std::string("cuDNN could not start: ") + cudnnGetErrorString(status));
        }
    }
    cudnnSetStream(mCudnn, stream);
    return mCudnn;
}

cublasHandle_t LibraryHandles::cublas(cudaStream_t stream)
{
    if (mCublas == nullptr)
    {
        if (cublasStatus_t const status = cublasCreate(&mCublas); status != CUBLAS_STATUS_SUCCESS)
        {
            throw std::runtime_error(std::string("cuBLAS could not start: ") + cublasGetStatusString(status));
        }
    }
    cublasSetStream(mCublas, stream);
    return mCublas;
}

cublasLtHandle_t LibraryHandles::cublasLt()
{
    if (mCublasLt == nullptr)
    {
        if (cublasStatus_t const status = cublasLtCreate(&mCublasLt); status != CUBLAS_STATUS_SUCCESS)
        {
            throw std::runtime_error(std::string("cuBLASLt could not start: ") + cublasLtGetStatusString(status));
        }
    }
    return mCublasLt;
}

void LibraryHandles::bind(cudaStream_t stream)
{
    if (mCudnn != nullptr)
    {
        cudnnSetStream(mCudnn, stream);
    }
    if (mCublas != nullptr)
    {
        cublasSetStream(mCublas, stream);
    }
}

} // namespace kiln::cuda
