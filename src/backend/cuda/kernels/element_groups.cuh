// Groups of four consecutive elements of a floating-point tensor, moved in one access (16 bytes of FP32, 8 of FP16 or
// BF16) where the tensor is aligned for it, element by element where not. The memory-bound kernels (softmax, point-wise
// chains, element-wise) compute on groups so that a warp reads and writes whole sectors with few instructions; both
// ways give the same values, since each element converts as device_access.cuh converts it.
#pragma once

#include "backend/cuda/kernels/device_access.cuh"

#include <cstdint>

namespace kiln::cuda::device
{

constexpr int kGroupElements = 4;

//! Four floats a kernel computes on; 16-byte aligned, so that an array of them in local memory moves in one access.
struct alignas(16) FloatGroup
{
    float v[kGroupElements];
};

__device__ inline FloatGroup splat(float value)
{
    return FloatGroup{{value, value, value, value}};
}

//! Whether element 0 of a tensor at `data` starts a group, so that every group [4g, 4g + 4) is one aligned access.
inline bool alignedForGroups(void const* data, DataType type)
{
    return reinterpret_cast<uintptr_t>(data) % (kGroupElements * elementSize(type)) == 0;
}

//! Elements [4 * group, 4 * group + 4) of a floating-point tensor aligned for groups (alignedForGroups).
__device__ inline FloatGroup loadGroup(void const* data, DataType type, int64_t group)
{
    switch (type)
    {
    case DataType::kHALF:
    {
        uint2 const bits = static_cast<uint2 const*>(data)[group];
        unsigned int const pairs[2]{bits.x, bits.y};
        FloatGroup values;
        halfPairsAsFloats(pairs, values.v);
        return values;
    }
    case DataType::kBF16:
    {
        uint2 const bits = static_cast<uint2 const*>(data)[group];
        return FloatGroup{{bf16BitsAsFloat(bits.x & 0xFFFFU), bf16BitsAsFloat(bits.x >> 16),
            bf16BitsAsFloat(bits.y & 0xFFFFU), bf16BitsAsFloat(bits.y >> 16)}};
    }
    default:
    {
        float4 const values = static_cast<float4 const*>(data)[group];
        return FloatGroup{{values.x, values.y, values.z, values.w}};
    }
    }
}

//! Stores elements [4 * group, 4 * group + 4) of a floating-point tensor aligned for groups.
__device__ inline void storeGroup(void* data, DataType type, int64_t group, FloatGroup const& values)
{
    switch (type)
    {
    case DataType::kHALF:
    {
        unsigned int pairs[2];
        floatsAsHalfPairs(values.v, pairs);
        static_cast<uint2*>(data)[group] = make_uint2(pairs[0], pairs[1]);
        break;
    }
    case DataType::kBF16:
        static_cast<uint2*>(data)[group]
            = make_uint2(packPair(floatAsBf16Bits(values.v[0]), floatAsBf16Bits(values.v[1])),
                packPair(floatAsBf16Bits(values.v[2]), floatAsBf16Bits(values.v[3])));
        break;
    default: static_cast<float4*>(data)[group] = make_float4(values.v[0], values.v[1], values.v[2], values.v[3]); break;
    }
}

//! The group element by element, for data not aligned for groups or a group that runs past `count`: elements at or
//! past `count` read as 0.
__device__ inline FloatGroup loadGroupByElement(void const* data, DataType type, int64_t group, int64_t count)
{
    FloatGroup values;
#pragma unroll
    for (int k = 0; k < kGroupElements; ++k)
    {
        int64_t const i = group * kGroupElements + k;
        values.v[k] = i < count ? loadFloat(data, type, i) : 0.0F;
    }
    return values;
}

//! Stores the group element by element, leaving elements at or past `count` alone.
__device__ inline void storeGroupByElement(void* data, DataType type, int64_t group, int64_t count, FloatGroup values)
{
#pragma unroll
    for (int k = 0; k < kGroupElements; ++k)
    {
        int64_t const i = group * kGroupElements + k;
        if (i < count)
        {
            storeFloat(data, type, i, values.v[k]);
        }
    }
}

} // namespace kiln::cuda::device
