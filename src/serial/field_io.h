// A layer description's fields in the plan: each description lists its fields once, as
//     template <typename Self, typename Field> static void fields(Self& self, Field&& field)
//     { field(self.axis, "concatenation axis"); ... }
// and FieldWriter / FieldReader walk that list to write and to read the plan, so the two
// cannot disagree. The reader checks what it reads (enums in range, bools 0 or 1, ranks, counts)
// and names the field when the plan is truncated or corrupted.
#pragma once

#include "serial/byte_io.h"

#include <NvInferRuntime.h>

#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kiln::serial
{

//! Whether T writes and reads itself (network::WeightsBuffer). C++17, as the CUDA sources that include layer
//! descriptions are compiled.
template <typename T, typename = void>
constexpr bool kSelfSerializing = false;
template <typename T>
constexpr bool kSelfSerializing<T,
    std::void_t<decltype(std::declval<T const&>().write(std::declval<ByteWriter&>())),
        decltype(std::declval<T&>().read(std::declval<ByteReader&>(), ""))>> = true;

template <typename T>
constexpr bool kIsOptional = false;
template <typename T>
constexpr bool kIsOptional<std::optional<T>> = true;
template <typename T>
constexpr bool kIsVector = false;
template <typename T>
constexpr bool kIsVector<std::vector<T>> = true;

//! The fewest bytes one field of type T takes in a plan: what a list's count is checked against before the list is
//! sized, so that memory follows the plan's size and not a count read from it. Fields that write themselves take at
//! least a byte.
template <typename T>
constexpr size_t minimumFieldBytes()
{
    if constexpr (std::is_same_v<T, bool> || kSelfSerializing<T>)
    {
        return 1;
    }
    else if constexpr (std::is_enum_v<T> || std::is_same_v<T, nvinfer1::Dims>)
    {
        return sizeof(int32_t); // an enum's value, or a rank
    }
    else if constexpr (kIsOptional<T>)
    {
        return 1; // the flag
    }
    else if constexpr (kIsVector<T>)
    {
        return sizeof(uint64_t); // the count
    }
    else
    {
        return sizeof(T);
    }
}

class FieldWriter
{
public:
    explicit FieldWriter(ByteWriter& writer)
        : mWriter(writer)
    {
    }

    template <typename T>
    void operator()(T const& value, char const* /*what*/) const
    {
        if constexpr (std::is_same_v<T, bool>)
        {
            mWriter.write(static_cast<uint8_t>(value ? 1 : 0));
        }
        else if constexpr (std::is_enum_v<T>)
        {
            writeEnum(mWriter, value);
        }
        else if constexpr (std::is_same_v<T, nvinfer1::Dims>)
        {
            mWriter.writeDims(value);
        }
        else if constexpr (kSelfSerializing<T>)
        {
            value.write(mWriter);
        }
        else
        {
            static_assert(std::is_arithmetic_v<T> || std::is_same_v<T, nvinfer1::Permutation>,
                "a field of a type FieldWriter does not know");
            mWriter.write(value);
        }
    }

    template <typename T>
    void operator()(std::optional<T> const& value, char const* what) const
    {
        (*this)(value.has_value(), what);
        if (value)
        {
            (*this)(*value, what);
        }
    }

    template <typename T>
    void operator()(std::vector<T> const& values, char const* what) const
    {
        mWriter.write(static_cast<uint64_t>(values.size()));
        for (T const& value : values)
        {
            (*this)(value, what);
        }
    }

private:
    ByteWriter& mWriter;
};

class FieldReader
{
public:
    explicit FieldReader(ByteReader& reader)
        : mReader(reader)
    {
    }

    template <typename T>
    void operator()(T& value, char const* what) const
    {
        if constexpr (std::is_same_v<T, bool>)
        {
            uint8_t raw = 0;
            if (mReader.read(raw, what))
            {
                value = raw != 0;
                if (raw > 1)
                {
                    mReader.fail(std::string(what) + ": value " + std::to_string(raw) + " is neither 0 nor 1");
                }
            }
        }
        else if constexpr (std::is_enum_v<T>)
        {
            readEnum(mReader, value, what);
        }
        else if constexpr (std::is_same_v<T, nvinfer1::Dims>)
        {
            mReader.readDims(value, what);
        }
        else if constexpr (kSelfSerializing<T>)
        {
            value.read(mReader, what);
        }
        else
        {
            static_assert(std::is_arithmetic_v<T> || std::is_same_v<T, nvinfer1::Permutation>,
                "a field of a type FieldReader does not know");
            mReader.read(value, what);
        }
    }

    template <typename T>
    void operator()(std::optional<T>& value, char const* what) const
    {
        bool present = false;
        (*this)(present, what);
        value.reset();
        if (present && mReader.ok())
        {
            (*this)(value.emplace(), what);
        }
    }

    template <typename T>
    void operator()(std::vector<T>& values, char const* what) const
    {
        uint64_t count = 0;
        if (!mReader.read(count, what))
        {
            return;
        }
        // A count beyond what the bytes left can hold is a corrupted plan, not an allocation.
        if (count > mReader.remaining() / minimumFieldBytes<T>())
        {
            mReader.fail(std::string(what) + ": count " + std::to_string(count) + " exceeds the bytes left");
            return;
        }
        values.assign(static_cast<size_t>(count), T{});
        for (T& value : values)
        {
            (*this)(value, what);
        }
    }

private:
    ByteReader& mReader;
};

} // namespace kiln::serial
