// What the cuDNN probes (cudnn_int8_probe.cpp, cudnn_int8_graph_probe.cpp) share: a check that ends the probe on a
// CUDA error, and ResNet-50's convolutions by kind, one of each (input channels, input extent, output maps, window,
// stride, padding; the stem's 3 channels padded to 4, as INT8 channels-last kernels read them, and to 8).
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

//! Runs CUDA call `x`; on an error, prints it with the line and ends the probe.
#define CUDA_OK(x)                                                                                                     \
    do                                                                                                                 \
    {                                                                                                                  \
        cudaError_t e_ = (x);                                                                                          \
        if (e_ != cudaSuccess)                                                                                         \
        {                                                                                                              \
            std::printf("cuda error %s at line %d\n", cudaGetErrorString(e_), __LINE__);                               \
            std::exit(1);                                                                                              \
        }                                                                                                              \
    } while (0)

namespace resnet50
{

struct Convolution
{
    char const* name;
    int c, h, w, k, r, stride, pad;
};

inline Convolution const kConvolutions[] = {
    {"stem 7x7/2 (3 -> 64, padded to 4 channels for INT8)", 4, 224, 224, 64, 7, 2, 3},
    {"stem 7x7/2 (3 -> 64, padded to 8 channels)", 8, 224, 224, 64, 7, 2, 3},
    {"layer1 1x1 64 -> 256", 64, 56, 56, 256, 1, 1, 0},
    {"layer1 3x3 64 -> 64", 64, 56, 56, 64, 3, 1, 1},
    {"layer1 1x1 256 -> 64", 256, 56, 56, 64, 1, 1, 0},
    {"layer2 3x3 128 -> 128", 128, 28, 28, 128, 3, 1, 1},
    {"layer2 1x1 512 -> 128", 512, 28, 28, 128, 1, 1, 0},
    {"layer3 3x3 256 -> 256", 256, 14, 14, 256, 3, 1, 1},
    {"layer3 1x1 1024 -> 256", 1024, 14, 14, 256, 1, 1, 0},
    {"layer4 3x3 512 -> 512", 512, 7, 7, 512, 3, 1, 1},
    {"layer4 1x1 512 -> 2048", 512, 7, 7, 2048, 1, 1, 0},
};

} // namespace resnet50
