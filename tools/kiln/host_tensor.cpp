#include "host_tensor.h"

#include <cmath>
#include <cstring>
#include <random>

namespace kiln::cli
{
namespace
{

using nvinfer1::DataType;

template <typename T>
T load(std::vector<uint8_t> const& bytes, int64_t i)
{
    T value;
    std::memcpy(&value, bytes.data() + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
    return value;
}

template <typename T>
void store(std::vector<uint8_t>& bytes, int64_t i, T value)
{
    std::memcpy(bytes.data() + i * static_cast<int64_t>(sizeof(T)), &value, sizeof(T));
}

float halfToFloat(uint16_t h)
{
    int const sign = (h >> 15) ? -1 : 1;
    int const exponent = (h >> 10) & 0x1F;
    int const mantissa = h & 0x3FF;
    if (exponent == 0)
    {
        return sign * std::ldexp(static_cast<float>(mantissa), -24);
    }
    if (exponent == 31)
    {
        return mantissa == 0 ? sign * INFINITY : NAN;
    }
    return sign * std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
}

//! Round to nearest even, as Kiln stores FP16 (finite inputs in [-1, 1] only need the normal path).
uint16_t floatToHalf(float f)
{
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    uint32_t const sign = (bits >> 16) & 0x8000;
    int32_t const exponent = static_cast<int32_t>((bits >> 23) & 0xFF) - 127 + 15;
    uint32_t mantissa = bits & 0x7FFFFF;
    if (exponent <= 0)
    {
        // Subnormal or zero: shift the implicit bit in, then round.
        if (exponent < -10)
        {
            return static_cast<uint16_t>(sign);
        }
        mantissa |= 0x800000;
        uint32_t const shift = static_cast<uint32_t>(14 - exponent);
        uint32_t half = mantissa >> shift;
        uint32_t const rest = mantissa & ((1U << shift) - 1);
        uint32_t const midpoint = 1U << (shift - 1);
        half += (rest > midpoint || (rest == midpoint && (half & 1))) ? 1 : 0;
        return static_cast<uint16_t>(sign | half);
    }
    if (exponent >= 31)
    {
        return static_cast<uint16_t>(sign | 0x7C00);
    }
    uint32_t half = (static_cast<uint32_t>(exponent) << 10) | (mantissa >> 13);
    uint32_t const rest = mantissa & 0x1FFF;
    half += (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ? 1 : 0;
    return static_cast<uint16_t>(sign | half);
}

float fp8e4m3ToFloat(uint8_t v)
{
    int const sign = (v >> 7) ? -1 : 1;
    int const exponent = (v >> 3) & 0xF;
    int const mantissa = v & 0x7;
    if (exponent == 15 && mantissa == 7)
    {
        return NAN;
    }
    if (exponent == 0)
    {
        return sign * std::ldexp(static_cast<float>(mantissa), -9);
    }
    return sign * std::ldexp(static_cast<float>(mantissa | 0x8), exponent - 10);
}

} // namespace

size_t elementSize(DataType type)
{
    switch (type)
    {
    case DataType::kFLOAT:
    case DataType::kINT32: return 4;
    case DataType::kHALF:
    case DataType::kBF16: return 2;
    case DataType::kINT8:
    case DataType::kUINT8:
    case DataType::kBOOL:
    case DataType::kFP8:
    case DataType::kE8M0: return 1;
    case DataType::kINT64: return 8;
    case DataType::kINT4:
    case DataType::kFP4: return 0;
    }
    return 0;
}

int64_t volume(nvinfer1::Dims const& dims)
{
    int64_t count = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        count *= dims.d[i];
    }
    return count;
}

char const* dataTypeName(DataType type)
{
    switch (type)
    {
    case DataType::kFLOAT: return "FP32";
    case DataType::kHALF: return "FP16";
    case DataType::kINT8: return "INT8";
    case DataType::kINT32: return "INT32";
    case DataType::kBOOL: return "BOOL";
    case DataType::kUINT8: return "UINT8";
    case DataType::kFP8: return "FP8";
    case DataType::kBF16: return "BF16";
    case DataType::kINT64: return "INT64";
    case DataType::kINT4: return "INT4";
    case DataType::kFP4: return "FP4";
    case DataType::kE8M0: return "E8M0";
    }
    return "UNKNOWN";
}

bool isFloatingPoint(DataType type)
{
    return type == DataType::kFLOAT || type == DataType::kHALF || type == DataType::kBF16 || type == DataType::kFP8;
}

int64_t HostTensor::elementCount() const
{
    return volume(dims);
}

double HostTensor::value(int64_t i) const
{
    switch (type)
    {
    case DataType::kFLOAT: return load<float>(bytes, i);
    case DataType::kHALF: return halfToFloat(load<uint16_t>(bytes, i));
    case DataType::kBF16:
    {
        uint32_t const bits = static_cast<uint32_t>(load<uint16_t>(bytes, i)) << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        return f;
    }
    case DataType::kINT8: return load<int8_t>(bytes, i);
    case DataType::kUINT8: return load<uint8_t>(bytes, i);
    case DataType::kBOOL: return load<uint8_t>(bytes, i) != 0 ? 1.0 : 0.0;
    case DataType::kINT32: return load<int32_t>(bytes, i);
    case DataType::kINT64: return static_cast<double>(load<int64_t>(bytes, i));
    case DataType::kFP8: return fp8e4m3ToFloat(load<uint8_t>(bytes, i));
    case DataType::kE8M0: return std::ldexp(1.0, static_cast<int>(load<uint8_t>(bytes, i)) - 127);
    case DataType::kINT4:
    case DataType::kFP4: break;
    }
    return NAN;
}

void fillRandom(HostTensor& t, uint32_t seed)
{
    std::mt19937 engine(seed);
    std::uniform_real_distribution<float> real(-1.0F, 1.0F);
    std::uniform_int_distribution<int32_t> small(0, 4);
    int64_t const count = t.elementCount();
    for (int64_t i = 0; i < count; ++i)
    {
        switch (t.type)
        {
        case DataType::kFLOAT: store(t.bytes, i, real(engine)); break;
        case DataType::kHALF: store(t.bytes, i, floatToHalf(real(engine))); break;
        case DataType::kBF16:
        {
            float const f = real(engine);
            uint32_t bits;
            std::memcpy(&bits, &f, 4);
            store(t.bytes, i, static_cast<uint16_t>(bits >> 16));
            break;
        }
        case DataType::kINT8: store(t.bytes, i, static_cast<int8_t>(small(engine))); break;
        case DataType::kUINT8: store(t.bytes, i, static_cast<uint8_t>(small(engine))); break;
        case DataType::kBOOL: store(t.bytes, i, static_cast<uint8_t>(small(engine) & 1)); break;
        case DataType::kINT32: store(t.bytes, i, small(engine)); break;
        case DataType::kINT64: store(t.bytes, i, static_cast<int64_t>(small(engine))); break;
        default: break; // FP8, E8M0 and sub-byte inputs stay zero
        }
    }
}

} // namespace kiln::cli
