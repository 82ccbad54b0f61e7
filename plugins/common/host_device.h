// Marks small index helpers that both a plugin's host kernel and its CUDA kernels call, so the two backends share
// one definition of where each element comes from.
#pragma once

#ifdef __CUDACC__
#define KILN_HOST_DEVICE __host__ __device__
#else
#define KILN_HOST_DEVICE
#endif
