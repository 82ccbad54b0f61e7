// A V2 plugin's serialized bytes: its parameters in visit order (fields.h), then whatever state the plugin adds.
// The reader checks every length, so a truncated or corrupted plan is an error naming the plugin, never a read
// past the end.
#pragma once

#include "fields.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace kiln::plugins
{

class PayloadWriter
{
public:
    //! Appends a trivially copyable value.
    template <typename T>
    void put(T const& value)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        auto const* bytes = reinterpret_cast<uint8_t const*>(&value);
        mBytes.insert(mBytes.end(), bytes, bytes + sizeof(T));
    }
    //! Appends a count, then the elements.
    template <typename T>
    void put(std::vector<T> const& values)
    {
        put(static_cast<uint64_t>(values.size()));
        for (T const& value : values)
        {
            put(value);
        }
    }
    void put(std::string const& text)
    {
        put(std::vector<char>(text.begin(), text.end()));
    }
    //! Visitor form: a parameters struct's fields, in order.
    template <typename T>
    void operator()(char const*, T const& value, Need)
    {
        put(value);
    }

    std::vector<uint8_t> const& bytes() const
    {
        return mBytes;
    }

private:
    std::vector<uint8_t> mBytes;
};

class PayloadReader
{
public:
    PayloadReader(std::string plugin, void const* data, size_t size)
        : mPlugin(std::move(plugin))
        , mData(static_cast<uint8_t const*>(data))
        , mSize(data == nullptr ? 0 : size)
    {
    }

    template <typename T>
    void get(T& value)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        std::memcpy(&value, take(sizeof(T)), sizeof(T));
    }
    //! A bool is written as one byte, 0 or 1; any other byte is refused, since reading it as a bool is undefined.
    void get(bool& value)
    {
        readBool("a flag", value);
    }
    template <typename T>
    void get(std::vector<T>& values)
    {
        uint64_t count = 0;
        get(count);
        if (count > (mSize - mOffset) / sizeof(T))
        {
            throw truncated();
        }
        values.resize(count);
        for (T& value : values)
        {
            get(value);
        }
    }
    void get(std::string& text)
    {
        std::vector<char> chars;
        get(chars);
        text.assign(chars.begin(), chars.end());
    }
    template <typename T>
    void operator()(char const* name, T& value, Need)
    {
        if constexpr (std::is_same_v<T, bool>)
        {
            readBool("field '" + std::string(name) + "'", value);
        }
        else
        {
            get(value);
        }
    }

    //! Throws unless every byte was read: extra bytes mean the payload is not this plugin's (or version's).
    void finish() const
    {
        if (mOffset != mSize)
        {
            throw PluginError(mPlugin + ": the serialized plugin has " + std::to_string(mSize - mOffset)
                + " bytes more than it should; it was not written by this plugin version");
        }
    }

private:
    void readBool(std::string const& what, bool& value)
    {
        uint8_t byte = 0;
        get(byte);
        if (byte > 1)
        {
            throw PluginError(mPlugin + ": " + what + " of the serialized plugin holds " + std::to_string(byte)
                + ", not a bool (0 or 1)");
        }
        value = byte == 1;
    }
    uint8_t const* take(size_t bytes)
    {
        if (bytes > mSize - mOffset)
        {
            throw truncated();
        }
        uint8_t const* at = mData + mOffset;
        mOffset += bytes;
        return at;
    }
    PluginError truncated() const
    {
        return PluginError(mPlugin + ": the serialized plugin is truncated (" + std::to_string(mSize) + " bytes)");
    }
    std::string mPlugin;
    uint8_t const* mData;
    size_t mSize;
    size_t mOffset{0};
};

} // namespace kiln::plugins
