// TopkLastDim's order, written once for the host and the CUDA kernels: every element becomes an unsigned key that
// orders as its value does (-0 equals +0; every NaN, whatever its sign and payload, one key above +inf), so both
// sides rank elements identically; equal keys rank by index, lower first.
#pragma once

#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define KILN_TOPK_HD __host__ __device__
#else
#define KILN_TOPK_HD
#endif

namespace kiln::plugins
{

KILN_TOPK_HD inline uint32_t floatOrderKey(float value)
{
    // One key for all NaNs: a negative NaN's bits would otherwise order it below -inf, and FP16's conversion on the
    // GPU need not keep the payload the host sees.
    if (value != value)
    {
        return 0xFFFFFFFFU;
    }
    float const canonical = value == 0.F ? 0.F : value;
    uint32_t bits = 0;
    std::memcpy(&bits, &canonical, sizeof(bits));
    return (bits & 0x80000000U) != 0U ? ~bits : (bits | 0x80000000U);
}

KILN_TOPK_HD inline uint32_t intOrderKey(int32_t value)
{
    return static_cast<uint32_t>(value) ^ 0x80000000U;
}

//! The rows of a tensor seen as [outer, length, inner] along the chosen axis.
struct TopkShape
{
    int64_t outer{1};
    int64_t length{0};
    int64_t inner{1};
    int32_t k{0};
    bool largest{true};
};

} // namespace kiln::plugins
