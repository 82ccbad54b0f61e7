// KILN_HOST_DEVICE marks a function that CUDA device code calls as well as host code, so that a kernel and its host
// reference share one definition (element types, index rules, a plugin's box arithmetic). Plain C++ where nvcc does
// not compile the file.
#pragma once

#if defined(__CUDACC__)
#define KILN_HOST_DEVICE __host__ __device__
#else
#define KILN_HOST_DEVICE
#endif
