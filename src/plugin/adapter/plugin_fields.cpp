#include "plugin/adapter/plugin_fields.h"

#include "serial/byte_io.h"

namespace kiln::plugin
{

int64_t fieldBytes(nvinfer1::PluginFieldType type, int32_t length)
{
    using nvinfer1::PluginFieldType;
    int64_t const n = length;
    switch (type)
    {
    case PluginFieldType::kINT8:
    case PluginFieldType::kCHAR:
    case PluginFieldType::kUNKNOWN:
    case PluginFieldType::kFP8: return n;
    case PluginFieldType::kFLOAT16:
    case PluginFieldType::kINT16:
    case PluginFieldType::kBF16: return 2 * n;
    case PluginFieldType::kFLOAT32:
    case PluginFieldType::kINT32: return 4 * n;
    case PluginFieldType::kFLOAT64:
    case PluginFieldType::kINT64: return 8 * n;
    case PluginFieldType::kDIMS: return static_cast<int64_t>(sizeof(nvinfer1::Dims)) * n;
    case PluginFieldType::kINT4:
    case PluginFieldType::kFP4: return (n + 1) / 2;
    }
    return -1;
}

bool encodeFields(nvinfer1::PluginFieldCollection const& fields, std::vector<uint8_t>& bytes, std::string& error)
{
    if (fields.nbFields < 0 || (fields.nbFields > 0 && fields.fields == nullptr))
    {
        error = "the field collection is malformed (" + std::to_string(fields.nbFields) + " fields)";
        return false;
    }
    serial::ByteWriter writer;
    writer.write(fields.nbFields);
    for (int32_t i = 0; i < fields.nbFields; ++i)
    {
        nvinfer1::PluginField const& field = fields.fields[i];
        std::string const name = field.name ? field.name : "";
        int64_t const size = field.length >= 0 ? fieldBytes(field.type, field.length) : -1;
        if (size < 0 || (size > 0 && field.data == nullptr))
        {
            error = "field " + std::to_string(i) + " (\"" + name + "\") is malformed: type "
                + std::to_string(static_cast<int32_t>(field.type)) + ", length " + std::to_string(field.length)
                + (field.data == nullptr ? ", no data" : "");
            return false;
        }
        writer.writeString(name);
        serial::writeEnum(writer, field.type);
        writer.write(field.length);
        writer.writeBytes(field.data, static_cast<size_t>(size));
    }
    bytes = writer.take();
    return true;
}

bool DecodedFields::decode(std::vector<uint8_t> const& bytes, std::string& error)
{
    serial::ByteReader reader(bytes.data(), bytes.size());
    int32_t count = 0;
    if (!reader.read(count, "plugin field count"))
    {
        error = reader.error();
        return false;
    }
    // Each field takes at least its name's length, its type, its length and its data's length: a count the bytes
    // cannot hold is refused before the lists are sized by it.
    constexpr size_t kFieldBytes = sizeof(uint64_t) + 2 * sizeof(int32_t) + sizeof(uint64_t);
    if (count < 0 || static_cast<size_t>(count) > bytes.size() / kFieldBytes)
    {
        error = "plugin field count " + std::to_string(count) + " is impossible";
        return false;
    }
    mNames.resize(count);
    mData.resize(count);
    mFields.resize(count);
    for (int32_t i = 0; i < count; ++i)
    {
        nvinfer1::PluginFieldType type{};
        int32_t length = 0;
        uint8_t const* data = nullptr;
        size_t size = 0;
        if (!reader.readString(mNames[i], "plugin field name") || !serial::readEnum(reader, type, "plugin field type")
            || !reader.read(length, "plugin field length") || !reader.readBytes(data, size, "plugin field data"))
        {
            error = reader.error();
            return false;
        }
        if (length < 0 || fieldBytes(type, length) != static_cast<int64_t>(size))
        {
            error = "plugin field \"" + mNames[i] + "\" has " + std::to_string(size) + " bytes for length "
                + std::to_string(length);
            return false;
        }
        mData[i].assign(data, data + size);
        mFields[i]
            = nvinfer1::PluginField(mNames[i].c_str(), mData[i].empty() ? nullptr : mData[i].data(), type, length);
    }
    if (reader.remaining() != 0)
    {
        error = "unread bytes after the plugin fields";
        return false;
    }
    mCollection.nbFields = count;
    mCollection.fields = mFields.data();
    return true;
}

} // namespace kiln::plugin
