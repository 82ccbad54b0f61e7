// A V3 plugin's PluginFieldCollection, encoded into bytes for a plan and decoded
// back into a collection whose pointers stay valid as long as the object lives.
#pragma once

#include <NvInferRuntime.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::plugin
{

//! Bytes that `length` elements of `type` occupy; -1 for an unknown type.
int64_t fieldBytes(nvinfer1::PluginFieldType type, int32_t length);

//! False with error if a field is malformed (null data with a length, negative length, unknown type).
bool encodeFields(nvinfer1::PluginFieldCollection const& fields, std::vector<uint8_t>& bytes, std::string& error);

class DecodedFields
{
public:
    //! False with error if bytes are not an encoded collection.
    bool decode(std::vector<uint8_t> const& bytes, std::string& error);
    nvinfer1::PluginFieldCollection const* collection() const
    {
        return &mCollection;
    }

private:
    std::vector<std::string> mNames;
    std::vector<std::vector<uint8_t>> mData;
    std::vector<nvinfer1::PluginField> mFields;
    nvinfer1::PluginFieldCollection mCollection{};
};

} // namespace kiln::plugin
