/*
 * Plugin code as third-party projects write it for TensorRT 8 and 10: noexcept on every
 * override, int32_t, AsciiChar const*, a BaseCreator that holds the namespace, covariant
 * createPlugin/deserializePlugin returns. This file and the plugins next to it are
 * compiled with -Wall -Wextra -Werror against Kiln's headers.
 */
#ifndef DIALECT_PLUGIN_COMMON_H
#define DIALECT_PLUGIN_COMMON_H

#include "NvInfer.h"
#include "NvInferPlugin.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace dialect
{
namespace plugin
{

//! Base of the library's creators: every creator carries the library namespace.
class BaseCreator : public nvinfer1::IPluginCreator
{
public:
    void setPluginNamespace(nvinfer1::AsciiChar const* libNamespace) noexcept override
    {
        mNamespace = libNamespace;
    }

    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }

protected:
    std::string mNamespace;
};

// Serialization helpers.
template <typename T>
void write(char*& buffer, T const& val) noexcept
{
    static_assert(std::is_trivially_copyable<T>::value, "plain data only");
    std::memcpy(buffer, &val, sizeof(T));
    buffer += sizeof(T);
}

template <typename T>
T read(char const*& buffer) noexcept
{
    static_assert(std::is_trivially_copyable<T>::value, "plain data only");
    T val{};
    std::memcpy(&val, buffer, sizeof(T));
    buffer += sizeof(T);
    return val;
}

// IEEE half <-> float on the host (round to nearest even), for the CPU path.
inline float halfToFloat(uint16_t h) noexcept
{
    uint32_t const sign = (h & 0x8000U) << 16U;
    int32_t exp = (h >> 10U) & 0x1F;
    uint32_t man = h & 0x3FFU;
    uint32_t bits;
    if (exp == 0x1F)
    {
        bits = sign | 0x7F800000U | (man << 13U);
    }
    else if (exp == 0)
    {
        if (man == 0)
        {
            bits = sign;
        }
        else
        {
            exp = 1;
            while ((man & 0x400U) == 0)
            {
                man <<= 1U;
                --exp;
            }
            bits = sign | (static_cast<uint32_t>(exp + 112) << 23U) | ((man & 0x3FFU) << 13U);
        }
    }
    else
    {
        bits = sign | (static_cast<uint32_t>(exp + 112) << 23U) | (man << 13U);
    }
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}

inline uint16_t floatToHalf(float f) noexcept
{
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    uint32_t const sign = (bits >> 16U) & 0x8000U;
    uint32_t const absBits = bits & 0x7FFFFFFFU;
    if (absBits > 0x7F800000U)
    {
        return static_cast<uint16_t>(sign | 0x7E00U);
    }
    if (absBits >= 0x47800000U) // >= 65536 (or inf): too big even before rounding
    {
        return static_cast<uint16_t>(sign | 0x7C00U);
    }
    if (absBits < 0x33000000U) // < 2^-25: rounds to zero
    {
        return static_cast<uint16_t>(sign);
    }
    int32_t const exp = static_cast<int32_t>(absBits >> 23U) - 112;
    uint32_t man = (absBits & 0x7FFFFFU) | 0x800000U;
    uint32_t shift = 13U;
    uint32_t base = static_cast<uint32_t>(exp) << 10U;
    if (exp <= 0)
    {
        shift = static_cast<uint32_t>(14 - exp);
        base = 0;
    }
    uint32_t half = base + ((man >> shift) & (exp <= 0 ? 0xFFFFFFFFU : 0x3FFU));
    uint32_t const rest = man & ((1U << shift) - 1U);
    uint32_t const mid = 1U << (shift - 1U);
    if (rest > mid || (rest == mid && (half & 1U)))
    {
        ++half;
    }
    return static_cast<uint16_t>(sign | half);
}

inline int64_t volume(nvinfer1::Dims const& d) noexcept
{
    int64_t v = 1;
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        v *= d.d[i];
    }
    return v;
}

} // namespace plugin
} // namespace dialect

#endif // DIALECT_PLUGIN_COMMON_H
