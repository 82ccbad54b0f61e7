#include "backend/cuda/libraries/library_handles.h"

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
    if (!mCudnnBound || mCudnnStream != stream)
    {
        cudnnSetStream(mCudnn, stream);
        mCudnnStream = stream;
        mCudnnBound = true;
    }
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
    if (!mCublasBound || mCublasStream != stream)
    {
        cublasSetStream(mCublas, stream);
        mCublasStream = stream;
        mCublasBound = true;
    }
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
        mCudnnStream = stream;
        mCudnnBound = true;
    }
    if (mCublas != nullptr)
    {
        cublasSetStream(mCublas, stream);
        mCublasStream = stream;
        mCublasBound = true;
    }
}

} // namespace kiln::cuda
