// Little-endian byte writer and a bounds-checked reader: every plan read goes
// through ByteReader, so a truncated or corrupted plan fails cleanly instead of
// reading out of bounds.
#pragma once

#include <NvInferRuntime.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace kiln::serial
{

class ByteWriter
{
public:
    template <typename T>
    void write(T const& value)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        auto const* bytes = reinterpret_cast<uint8_t const*>(&value);
        mBytes.insert(mBytes.end(), bytes, bytes + sizeof(T));
    }
    void writeBytes(void const* data, size_t size)
    {
        write<uint64_t>(size);
        auto const* bytes = static_cast<uint8_t const*>(data);
        mBytes.insert(mBytes.end(), bytes, bytes + size);
    }
    void writeString(std::string const& s)
    {
        writeBytes(s.data(), s.size());
    }
    void writeDims(nvinfer1::Dims const& dims)
    {
        write<int32_t>(dims.nbDims);
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            write<int64_t>(dims.d[i]);
        }
    }
    std::vector<uint8_t> const& bytes() const
    {
        return mBytes;
    }
    std::vector<uint8_t> take()
    {
        return std::move(mBytes);
    }

private:
    std::vector<uint8_t> mBytes;
};

//! Reads what ByteWriter wrote. After the first failure every read fails and
//! ok() is false; error() says what was being read and where.
class ByteReader
{
public:
    ByteReader(void const* data, size_t size)
        : mData(static_cast<uint8_t const*>(data))
        , mSize(size)
    {
    }

    template <typename T>
    bool read(T& value, char const* what)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        if (!require(sizeof(T), what))
        {
            return false;
        }
        std::memcpy(&value, mData + mOffset, sizeof(T));
        mOffset += sizeof(T);
        return true;
    }
    //! Reads a length-prefixed byte string; the result points into the buffer.
    bool readBytes(uint8_t const*& data, size_t& size, char const* what)
    {
        uint64_t length = 0;
        if (!read(length, what) || !require(length, what))
        {
            return false;
        }
        data = mData + mOffset;
        size = static_cast<size_t>(length);
        mOffset += size;
        return true;
    }
    bool readString(std::string& s, char const* what)
    {
        uint8_t const* data = nullptr;
        size_t size = 0;
        if (!readBytes(data, size, what))
        {
            return false;
        }
        s.assign(reinterpret_cast<char const*>(data), size);
        return true;
    }
    bool readDims(nvinfer1::Dims& dims, char const* what)
    {
        dims = nvinfer1::Dims{};
        if (!read(dims.nbDims, what))
        {
            return false;
        }
        if (dims.nbDims < 0 || dims.nbDims > nvinfer1::Dims::MAX_DIMS)
        {
            return fail(std::string(what) + ": rank " + std::to_string(dims.nbDims) + " is out of range");
        }
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            if (!read(dims.d[i], what))
            {
                return false;
            }
        }
        return true;
    }
    //! Records a semantic error found by the caller (e.g. an enum value out of range).
    bool fail(std::string message)
    {
        if (mError.empty())
        {
            mError = std::move(message);
        }
        mOffset = mSize;
        return false;
    }

    bool ok() const
    {
        return mError.empty();
    }
    std::string const& error() const
    {
        return mError;
    }
    size_t remaining() const
    {
        return mSize - mOffset;
    }
    size_t offset() const
    {
        return mOffset;
    }

private:
    bool require(uint64_t size, char const* what)
    {
        if (!mError.empty())
        {
            return false;
        }
        if (size > mSize - mOffset)
        {
            return fail(std::string("truncated while reading ") + what + " at byte " + std::to_string(mOffset) + " ("
                + std::to_string(size) + " bytes needed, " + std::to_string(mSize - mOffset) + " left)");
        }
        return true;
    }

    uint8_t const* mData;
    size_t mSize;
    size_t mOffset{0};
    std::string mError;
};

//! Reads an enum stored as int32 and checks it against EnumMax.
template <typename E>
bool readEnum(ByteReader& reader, E& value, char const* what)
{
    int32_t raw = 0;
    if (!reader.read(raw, what))
    {
        return false;
    }
    if (raw < 0 || raw >= nvinfer1::EnumMax<E>())
    {
        return reader.fail(std::string(what) + ": value " + std::to_string(raw) + " is out of range");
    }
    value = static_cast<E>(raw);
    return true;
}

template <typename E>
void writeEnum(ByteWriter& writer, E value)
{
    writer.write(static_cast<int32_t>(value));
}

} // namespace kiln::serial
