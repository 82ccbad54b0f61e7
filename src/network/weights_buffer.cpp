#include "network/weights_buffer.h"

#include "core/checked_size.h"
#include "core/data_type.h"
#include "device_common/fp8.h"
#include "device_common/half.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>

namespace kiln::network
{

size_t weightsElementSize(nvinfer1::DataType type)
{
    // E8M0 is byte-sized, but Kiln has no conversion from it to the types layers compute in.
    bool const convertible = type != nvinfer1::DataType::kE8M0;
    return convertible ? elementSize(type) : 0;
}

WeightsBuffer::WeightsBuffer(nvinfer1::Weights const& weights)
    : mType(weights.type)
    , mCount(weights.count > 0 ? weights.count : 0)
    , mSource(weights.values)
{
    // A count whose byte size overflows holds no weights (the layer's own count check then names it), rather than
    // copying a wrapped-around number of bytes.
    size_t const bytes = checkedByteSize(mCount, weightsElementSize(mType)).value_or(0);
    if (bytes > 0 && weights.values != nullptr)
    {
        mBytes.resize(bytes);
        std::memcpy(mBytes.data(), weights.values, bytes);
    }
    else
    {
        mCount = 0;
    }
}

std::vector<float> WeightsBuffer::toFloat() const
{
    using nvinfer1::DataType;
    std::vector<float> out(static_cast<size_t>(mCount));
    for (int64_t i = 0; i < mCount; ++i)
    {
        uint8_t const* p = mBytes.data() + i * weightsElementSize(mType);
        switch (mType)
        {
        case DataType::kFLOAT: std::memcpy(&out[i], p, 4); break;
        case DataType::kHALF:
        {
            uint16_t bits;
            std::memcpy(&bits, p, 2);
            out[i] = halfBitsToFloat(bits);
            break;
        }
        case DataType::kBF16:
        {
            uint16_t bits;
            std::memcpy(&bits, p, 2);
            out[i] = bf16BitsToFloat(bits);
            break;
        }
        case DataType::kINT32:
        {
            int32_t v;
            std::memcpy(&v, p, 4);
            out[i] = static_cast<float>(v);
            break;
        }
        case DataType::kINT64:
        {
            int64_t v;
            std::memcpy(&v, p, 8);
            out[i] = static_cast<float>(v);
            break;
        }
        case DataType::kINT8: out[i] = static_cast<float>(static_cast<int8_t>(*p)); break;
        case DataType::kFP8: out[i] = fp8E4m3BitsToFloat(*p); break;
        case DataType::kUINT8:
        case DataType::kBOOL: out[i] = static_cast<float>(*p); break;
        default: out[i] = 0.0f; break;
        }
    }
    return out;
}

void WeightsBuffer::overwrite(WeightsBuffer const& values)
{
    if (values.mType != mType || values.mBytes.size() != mBytes.size())
    {
        throw std::invalid_argument("weights of another type or size cannot overwrite these");
    }
    std::copy(values.mBytes.begin(), values.mBytes.end(), mBytes.begin());
}

void WeightsBuffer::write(serial::ByteWriter& writer) const
{
    serial::writeEnum(writer, mType);
    writer.write(mCount);
    writer.writeBytes(mBytes.data(), mBytes.size());
}

bool WeightsBuffer::read(serial::ByteReader& reader, char const* what)
{
    uint8_t const* data = nullptr;
    size_t size = 0;
    if (!serial::readEnum(reader, mType, what) || !reader.read(mCount, what) || !reader.readBytes(data, size, what))
    {
        return false;
    }
    // The count's byte size is computed without wrapping: 2^62 four-byte elements must not pass as 0 bytes.
    size_t const elementSize = weightsElementSize(mType);
    std::optional<size_t> const expected = checkedByteSize(mCount, elementSize);
    if (elementSize == 0 || !expected || size != *expected)
    {
        return reader.fail(std::string(what) + ": " + std::to_string(size) + " bytes do not hold "
            + std::to_string(mCount) + " elements of the stored type");
    }
    mBytes.assign(data, data + size);
    return true;
}

WeightsBuffer WeightsBuffer::storedAs(nvinfer1::DataType type) const
{
    using nvinfer1::DataType;
    if (!isFloatType(mType) || !isFloatType(type) || type == mType)
    {
        return *this;
    }
    std::vector<float> const values = toFloat();
    WeightsBuffer converted;
    converted.refit = refit;
    converted.mSource = mSource;
    converted.mType = type;
    converted.mCount = mCount;
    converted.mBytes.resize(static_cast<size_t>(mCount) * weightsElementSize(type));
    for (size_t i = 0; i < values.size(); ++i)
    {
        uint8_t* p = converted.mBytes.data() + i * weightsElementSize(type);
        if (type == DataType::kFLOAT)
        {
            std::memcpy(p, &values[i], 4);
            continue;
        }
        uint16_t const bits = type == DataType::kHALF ? floatToHalfBits(values[i]) : floatToBf16Bits(values[i]);
        std::memcpy(p, &bits, 2);
    }
    return converted;
}

} // namespace kiln::network
