#include "fields.h"

#include "device_common/half.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace kiln::plugins
{
namespace
{

using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;

char const* typeName(PluginFieldType type)
{
    switch (type)
    {
    case PluginFieldType::kFLOAT16: return "kFLOAT16";
    case PluginFieldType::kFLOAT32: return "kFLOAT32";
    case PluginFieldType::kFLOAT64: return "kFLOAT64";
    case PluginFieldType::kINT8: return "kINT8";
    case PluginFieldType::kINT16: return "kINT16";
    case PluginFieldType::kINT32: return "kINT32";
    case PluginFieldType::kCHAR: return "kCHAR";
    case PluginFieldType::kDIMS: return "kDIMS";
    case PluginFieldType::kUNKNOWN: return "kUNKNOWN";
    case PluginFieldType::kBF16: return "kBF16";
    case PluginFieldType::kINT64: return "kINT64";
    case PluginFieldType::kFP8: return "kFP8";
    case PluginFieldType::kINT4: return "kINT4";
    case PluginFieldType::kFP4: return "kFP4";
    }
    return "an unknown type";
}

bool holdsIntegers(PluginFieldType type)
{
    return type == PluginFieldType::kINT8 || type == PluginFieldType::kINT16 || type == PluginFieldType::kINT32
        || type == PluginFieldType::kINT64;
}

bool holdsFloats(PluginFieldType type)
{
    return type == PluginFieldType::kFLOAT16 || type == PluginFieldType::kBF16 || type == PluginFieldType::kFLOAT32
        || type == PluginFieldType::kFLOAT64;
}

template <typename T>
double load(void const* data, int32_t index)
{
    T value{};
    std::memcpy(&value, static_cast<char const*>(data) + sizeof(T) * static_cast<size_t>(index), sizeof(T));
    return static_cast<double>(value);
}

double loadNumber(PluginField const& field, int32_t index)
{
    switch (field.type)
    {
    case PluginFieldType::kFLOAT16: return halfBitsToFloat(static_cast<uint16_t>(load<uint16_t>(field.data, index)));
    case PluginFieldType::kBF16: return bf16BitsToFloat(static_cast<uint16_t>(load<uint16_t>(field.data, index)));
    case PluginFieldType::kFLOAT32: return load<float>(field.data, index);
    case PluginFieldType::kFLOAT64: return load<double>(field.data, index);
    case PluginFieldType::kINT8: return load<int8_t>(field.data, index);
    case PluginFieldType::kINT16: return load<int16_t>(field.data, index);
    case PluginFieldType::kINT32: return load<int32_t>(field.data, index);
    case PluginFieldType::kINT64: return load<int64_t>(field.data, index);
    default: return 0.0;
    }
}

std::string numberText(double value)
{
    if (value == std::floor(value) && std::abs(value) < 1e15)
    {
        return std::to_string(static_cast<int64_t>(value));
    }
    return std::to_string(value);
}

} // namespace

FieldReader::FieldReader(std::string plugin, nvinfer1::PluginFieldCollection const* fields)
    : mPlugin(std::move(plugin))
    , mFields(fields)
{
    if (mFields != nullptr && mFields->nbFields > 0 && mFields->fields == nullptr)
    {
        throw PluginError(mPlugin + ": the field collection says it has " + std::to_string(mFields->nbFields)
            + " fields but points at none");
    }
}

PluginField const* FieldReader::find(char const* name) const
{
    if (mFields == nullptr)
    {
        return nullptr;
    }
    for (int32_t i = 0; i < mFields->nbFields; ++i)
    {
        PluginField const& field = mFields->fields[i];
        if (field.name != nullptr && std::strcmp(field.name, name) == 0)
        {
            return &field;
        }
    }
    return nullptr;
}

std::vector<double> FieldReader::numbers(PluginField const& field, bool integers) const
{
    std::string const where = mPlugin + ": field '" + field.name + "'";
    bool const typeFits = integers ? holdsIntegers(field.type) : holdsIntegers(field.type) || holdsFloats(field.type);
    if (!typeFits)
    {
        throw PluginError(where + " holds " + typeName(field.type) + " data; expected "
            + (integers ? "integers (kINT32)" : "numbers (kFLOAT32)"));
    }
    if (field.length < 0 || (field.length > 0 && field.data == nullptr))
    {
        throw PluginError(
            where + " has length " + std::to_string(field.length) + (field.data == nullptr ? " and no data" : ""));
    }
    std::vector<double> values(static_cast<size_t>(field.length));
    for (int32_t i = 0; i < field.length; ++i)
    {
        values[static_cast<size_t>(i)] = loadNumber(field, i);
    }
    return values;
}

void FieldReader::read(PluginField const& field, int32_t& value) const
{
    std::vector<double> const values = numbers(field, true);
    if (values.size() != 1)
    {
        throw PluginError(
            mPlugin + ": field '" + field.name + "' holds " + std::to_string(values.size()) + " values; expected one");
    }
    if (values[0] < std::numeric_limits<int32_t>::min() || values[0] > std::numeric_limits<int32_t>::max())
    {
        throw PluginError(mPlugin + ": field '" + field.name + "' is " + numberText(values[0])
            + ", beyond the range of a 32-bit integer");
    }
    value = static_cast<int32_t>(values[0]);
}

void FieldReader::read(PluginField const& field, bool& value) const
{
    int32_t number = 0;
    read(field, number);
    if (number != 0 && number != 1)
    {
        throw PluginError(mPlugin + ": field '" + field.name + "' is " + std::to_string(number) + "; expected 0 or 1");
    }
    value = number == 1;
}

void FieldReader::read(PluginField const& field, float& value) const
{
    std::vector<double> const values = numbers(field, false);
    if (values.size() != 1)
    {
        throw PluginError(
            mPlugin + ": field '" + field.name + "' holds " + std::to_string(values.size()) + " values; expected one");
    }
    value = static_cast<float>(values[0]);
}

void FieldReader::read(PluginField const& field, std::vector<int32_t>& values) const
{
    values.clear();
    for (double const number : numbers(field, true))
    {
        if (number < std::numeric_limits<int32_t>::min() || number > std::numeric_limits<int32_t>::max())
        {
            throw PluginError(mPlugin + ": field '" + field.name + "' holds " + numberText(number)
                + ", beyond the range of a 32-bit integer");
        }
        values.push_back(static_cast<int32_t>(number));
    }
}

void FieldReader::read(PluginField const& field, std::vector<float>& values) const
{
    values.clear();
    for (double const number : numbers(field, false))
    {
        values.push_back(static_cast<float>(number));
    }
}

void FieldReader::read(PluginField const& field, std::string& value) const
{
    if (field.type != PluginFieldType::kCHAR)
    {
        throw PluginError(
            mPlugin + ": field '" + field.name + "' holds " + typeName(field.type) + " data; expected text (kCHAR)");
    }
    if (field.length < 0 || (field.length > 0 && field.data == nullptr))
    {
        throw PluginError(mPlugin + ": field '" + field.name + "' has length " + std::to_string(field.length)
            + (field.data == nullptr ? " and no data" : ""));
    }
    char const* text = static_cast<char const*>(field.data);
    // TensorRT's samples count the terminating zero in the length, others do not: stop at the first zero.
    value.assign(text, strnlen(text, static_cast<size_t>(field.length)));
}

} // namespace kiln::plugins
