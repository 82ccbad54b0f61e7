// CUDA runtime errors as exceptions that say what Kiln was doing.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace kiln::cuda
{

//! Throws std::runtime_error naming `what` and CUDA's description of `status` when it is an error.
inline void check(cudaError_t status, char const* what)
{
    if (status != cudaSuccess)
    {
        throw std::runtime_error(
            std::string(what) + ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
    }
}

} // namespace kiln::cuda
