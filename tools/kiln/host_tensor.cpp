#include "host_tensor.h"

#include "device_common/half.h"

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

int64_t volume(nvinfer1::Dims const& dims)
{
    int64_t count = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        count *= dims.d[i];
    }
    return count;
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
    case DataType::kHALF: return halfBitsToFloat(load<uint16_t>(bytes, i));
    case DataType::kBF16: return bf16BitsToFloat(load<uint16_t>(bytes, i));
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
        case DataType::kHALF: store(t.bytes, i, floatToHalfBits(real(engine))); break;
        case DataType::kBF16: store(t.bytes, i, floatToBf16Bits(real(engine))); break;
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
