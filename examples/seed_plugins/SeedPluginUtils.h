// Small helpers shared by the seed plugins: FP16 conversion, byte (de)serialization,
// tensor volumes, the TensorRT 7 style BaseCreator of seed 003, and the message that
// enqueue prints when the library was built without CUDA.
//
// Plugin code is compiled as C++17 (the language level of the public headers), so
// nothing here needs C++20.
#pragma once

#include <NvInferRuntime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln_seed
{

//! IEEE binary16 bits from a float, rounding to nearest, ties to even (what the GPU's
//! __float2half_rn and Kiln's CPU backend do). NaN stays NaN; overflow gives infinity.
inline uint16_t floatToHalf(float value)
{
    uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof(bits));
    uint16_t const sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
    int32_t const exponent = static_cast<int32_t>((bits >> 23) & 0xFFu);
    uint32_t mantissa = bits & 0x7FFFFFu;

    if (exponent == 0xFF)
    {
        // Infinity keeps a zero mantissa; NaN gets the quiet bit.
        return static_cast<uint16_t>(sign | 0x7C00u | (mantissa != 0 ? 0x200u : 0u));
    }
    int32_t const halfExponent = exponent - 127 + 15;
    if (halfExponent >= 0x1F)
    {
        return static_cast<uint16_t>(sign | 0x7C00u);
    }
    if (halfExponent <= 0)
    {
        // Subnormal half (or zero). Shift the full significand (implicit 1 included)
        // right so that it counts units of 2^-24, then round to nearest even.
        if (halfExponent < -10)
        {
            return sign; // below half the smallest subnormal: rounds to zero
        }
        mantissa |= 0x800000u;
        uint32_t const shift = static_cast<uint32_t>(14 - halfExponent);
        uint32_t const truncated = mantissa >> shift;
        uint32_t const remainder = mantissa & ((1u << shift) - 1u);
        uint32_t const halfway = 1u << (shift - 1u);
        uint32_t rounded = truncated;
        if (remainder > halfway || (remainder == halfway && (truncated & 1u) != 0))
        {
            ++rounded; // may carry into the smallest normal, which is the right answer
        }
        return static_cast<uint16_t>(sign | rounded);
    }
    // Normal half: keep 10 mantissa bits, round on the 13 dropped bits.
    uint32_t result = (static_cast<uint32_t>(halfExponent) << 10) | (mantissa >> 13);
    uint32_t const dropped = mantissa & 0x1FFFu;
    if (dropped > 0x1000u || (dropped == 0x1000u && (result & 1u) != 0))
    {
        ++result; // a carry out of the mantissa bumps the exponent; at the top it gives infinity
    }
    return static_cast<uint16_t>(sign | result);
}

//! The float value of IEEE binary16 bits (exact).
inline float halfToFloat(uint16_t half)
{
    uint32_t const sign = static_cast<uint32_t>(half & 0x8000u) << 16;
    uint32_t exponent = (half >> 10) & 0x1Fu;
    uint32_t mantissa = half & 0x3FFu;
    uint32_t bits = 0;
    if (exponent == 0x1F)
    {
        bits = sign | 0x7F800000u | (mantissa << 13);
    }
    else if (exponent == 0)
    {
        if (mantissa == 0)
        {
            bits = sign;
        }
        else
        {
            // Normalise the subnormal: shift until the implicit bit appears.
            int32_t e = -1;
            do
            {
                mantissa <<= 1;
                ++e;
            } while ((mantissa & 0x400u) == 0);
            bits = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mantissa & 0x3FFu) << 13);
        }
    }
    else
    {
        bits = sign | ((exponent + 127u - 15u) << 23) | (mantissa << 13);
    }
    float value = 0.0f;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
}

//! Element i of a host buffer of FP32 (isHalf false) or FP16 (isHalf true) values, as a float.
inline float loadElement(void const* buffer, int64_t i, bool isHalf)
{
    return isHalf ? halfToFloat(static_cast<uint16_t const*>(buffer)[i]) : static_cast<float const*>(buffer)[i];
}

//! Stores value as element i of an FP32 or FP16 host buffer (FP16 rounds to nearest even).
inline void storeElement(void* buffer, int64_t i, bool isHalf, float value)
{
    if (isHalf)
    {
        static_cast<uint16_t*>(buffer)[i] = floatToHalf(value);
    }
    else
    {
        static_cast<float*>(buffer)[i] = value;
    }
}

//! True for the types the FP32/FP16 plugins accept.
inline bool isFloatOrHalf(nvinfer1::DataType type)
{
    return type == nvinfer1::DataType::kFLOAT || type == nvinfer1::DataType::kHALF;
}

//! Number of elements of a shape (1 for a scalar). -1 if any extent is unknown or negative.
inline int64_t volume(nvinfer1::Dims const& dims)
{
    int64_t count = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (dims.d[i] < 0)
        {
            return -1;
        }
        count *= dims.d[i];
    }
    return count;
}

//! Appends raw values to a serialization buffer.
class ByteWriter
{
public:
    explicit ByteWriter(void* buffer)
        : mCursor(static_cast<char*>(buffer))
    {
    }

    template <typename T>
    void write(T const& value)
    {
        std::memcpy(mCursor, &value, sizeof(T));
        mCursor += sizeof(T);
    }

    //! A float vector as its int32 length followed by the elements.
    void writeFloats(std::vector<float> const& values)
    {
        write(static_cast<int32_t>(values.size()));
        if (!values.empty())
        {
            std::memcpy(mCursor, values.data(), values.size() * sizeof(float));
            mCursor += values.size() * sizeof(float);
        }
    }

private:
    char* mCursor;
};

inline size_t serializedSize(std::vector<float> const& values)
{
    return sizeof(int32_t) + values.size() * sizeof(float);
}

//! Reads what ByteWriter wrote, throwing std::runtime_error on truncated or malformed data.
class ByteReader
{
public:
    ByteReader(void const* data, size_t length)
        : mCursor(static_cast<char const*>(data))
        , mLeft(data == nullptr ? 0 : length)
    {
    }

    template <typename T>
    T read()
    {
        take(sizeof(T));
        T value{};
        std::memcpy(&value, mCursor - sizeof(T), sizeof(T));
        return value;
    }

    std::vector<float> readFloats()
    {
        int32_t const count = read<int32_t>();
        if (count < 0 || static_cast<size_t>(count) > mLeft / sizeof(float))
        {
            throw std::runtime_error("serialized float array is truncated");
        }
        std::vector<float> values(static_cast<size_t>(count));
        take(values.size() * sizeof(float));
        if (!values.empty())
        {
            std::memcpy(values.data(), mCursor - values.size() * sizeof(float), values.size() * sizeof(float));
        }
        return values;
    }

    //! Throws unless every byte was consumed.
    void expectEnd() const
    {
        if (mLeft != 0)
        {
            throw std::runtime_error("serialized data has trailing bytes");
        }
    }

private:
    void take(size_t bytes)
    {
        if (bytes > mLeft)
        {
            throw std::runtime_error("serialized data is truncated");
        }
        mCursor += bytes;
        mLeft -= bytes;
    }

    char const* mCursor;
    size_t mLeft;
};

//! What enqueue does in a library built without CUDA: one line on stderr, then failure.
inline int32_t reportBuiltWithoutCuda(char const* pluginName)
{
    std::fprintf(stderr,
        "%s: built without CUDA; enqueue is unavailable, the plugin runs on Kiln's CPU backend through enqueueHost\n",
        pluginName);
    return 1;
}

//! The creator base of seed 003 (TensorRT 7 style: no noexcept). It holds the namespace
//! that createPlugin and deserializePlugin hand to the plugins they make.
class BaseCreator : public nvinfer1::IPluginCreator
{
public:
    void setPluginNamespace(const char* libNamespace) override
    {
        mNamespace = libNamespace != nullptr ? libNamespace : "";
    }

    const char* getPluginNamespace() const override
    {
        return mNamespace.c_str();
    }

protected:
    std::string mNamespace;
};

} // namespace kiln_seed
