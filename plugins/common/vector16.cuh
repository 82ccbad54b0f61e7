// 16-byte vector access for memory-bound kernels: a thread moves 4 floats or 8 halves per load or store, and
// computes in float. Pointers must be 16-byte aligned; the callers check the base pointers and the row lengths.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

namespace kiln::plugins
{

//! The elements of type T in one 16-byte vector.
template <typename T>
constexpr int kVectorElements = static_cast<int>(16 / sizeof(T));

//! kVec floats from 16-byte aligned float memory, as kVec / 4 vector loads.
template <int kVec>
__device__ inline void loadFloats(float const* from, float (&to)[kVec])
{
#pragma unroll
    for (int i = 0; i < kVec; i += 4)
    {
        float4 const v = *reinterpret_cast<float4 const*>(from + i);
        to[i] = v.x;
        to[i + 1] = v.y;
        to[i + 2] = v.z;
        to[i + 3] = v.w;
    }
}

//! A 16-byte vector's elements as floats: 4 floats, or 8 halves (the array's size says which).
__device__ inline void unpackElements(uint4 const& raw, float (&to)[4])
{
    to[0] = __uint_as_float(raw.x);
    to[1] = __uint_as_float(raw.y);
    to[2] = __uint_as_float(raw.z);
    to[3] = __uint_as_float(raw.w);
}

__device__ inline void unpackElements(uint4 const& raw, float (&to)[8])
{
    __half2 const* pairs = reinterpret_cast<__half2 const*>(&raw);
#pragma unroll
    for (int i = 0; i < 4; ++i)
    {
        float2 const f = __half22float2(pairs[i]);
        to[2 * i] = f.x;
        to[2 * i + 1] = f.y;
    }
}

//! One 16-byte vector of T (16-byte aligned), unconverted.
template <typename T>
__device__ inline uint4 loadVector(T const* from)
{
    return *reinterpret_cast<uint4 const*>(from);
}

//! kVec elements of type T (16 bytes) as floats.
template <typename T, int kVec>
__device__ inline void loadElements(T const* from, float (&to)[kVec])
{
    static_assert(kVec * sizeof(T) == 16, "one 16-byte vector");
    unpackElements(loadVector(from), to);
}

//! Stores kVec floats as elements of type T (16 bytes), rounded to nearest.
template <int kVec>
__device__ inline void storeElements(float const (&from)[kVec], float* to)
{
#pragma unroll
    for (int i = 0; i < kVec; i += 4)
    {
        *reinterpret_cast<float4*>(to + i) = make_float4(from[i], from[i + 1], from[i + 2], from[i + 3]);
    }
}

template <int kVec>
__device__ inline void storeElements(float const (&from)[kVec], __half* to)
{
    static_assert(kVec == 8, "16 bytes of halves");
    uint4 raw;
    __half2* pairs = reinterpret_cast<__half2*>(&raw);
#pragma unroll
    for (int i = 0; i < 4; ++i)
    {
        pairs[i] = __floats2half2_rn(from[2 * i], from[2 * i + 1]);
    }
    *reinterpret_cast<uint4*>(to) = raw;
}

} // namespace kiln::plugins
