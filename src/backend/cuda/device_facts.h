// What kernels ask of the GPU they launch on, to size their grids and tiles.
#pragma once

#include <cstdint>

namespace kiln::cuda
{

//! The streaming multiprocessors of the current device. Throws std::runtime_error naming `what` where CUDA cannot
//! say (no device, a broken context).
int32_t multiprocessorCount(char const* what);

//! The shared memory a block of the current device may ask for (past the default 48 KiB, by
//! cudaFuncAttributeMaxDynamicSharedMemorySize), in bytes. Throws as multiprocessorCount does.
int32_t sharedMemoryPerBlock(char const* what);

} // namespace kiln::cuda
