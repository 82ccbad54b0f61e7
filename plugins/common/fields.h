// A plugin's fields, described once. Each plugin keeps its parameters in a struct with a visit function that names
// every field:
//
//     struct Params
//     {
//         float scoreThreshold{0.F};
//         std::vector<int32_t> shape;
//         template <typename Visit>
//         void visit(Visit&& field)
//         {
//             field("score_threshold", scoreThreshold, Need::kOPTIONAL);
//             field("shape", shape, Need::kREQUIRED);
//         }
//     };
//
// The visitors below turn that one description into the creator's field list, the parameters read from a
// PluginFieldCollection (with errors naming plugin, field and value), the fields a V3 plugin serializes, and a V2
// plugin's payload (payload.h).
//
// Field types: int32_t, bool (both kINT32), float (kFLOAT32), std::vector<int32_t>, std::vector<float>,
// std::string (kCHAR). Readers are lenient where no meaning is lost: integer fields take any integer type, float
// fields any float or integer type (an ONNX attribute written as 1 instead of 1.0 is an integer).
#pragma once

#include "plugin_error.h"

#include <NvInferRuntime.h>

#include <cstdint>
#include <deque>
#include <string>
#include <type_traits>
#include <vector>

namespace kiln::plugins
{

enum class Need
{
    kREQUIRED,
    kOPTIONAL, //!< absent means the default the parameters struct holds
};

//! The PluginFieldType a parameter of C++ type T is declared with.
template <typename T>
constexpr nvinfer1::PluginFieldType fieldTypeOf()
{
    using nvinfer1::PluginFieldType;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, std::vector<float>>)
        return PluginFieldType::kFLOAT32;
    else if constexpr (std::is_same_v<T, std::string>)
        return PluginFieldType::kCHAR;
    else
        return PluginFieldType::kINT32;
}

//! The field list a creator returns from getFieldNames: names and types, no data.
class FieldCatalog
{
public:
    template <typename Params>
    explicit FieldCatalog(Params params)
    {
        params.visit([this](char const* name, auto& value, Need) {
            mFields.emplace_back(name, nullptr, fieldTypeOf<std::decay_t<decltype(value)>>(), 0);
        });
        mCollection.nbFields = static_cast<int32_t>(mFields.size());
        mCollection.fields = mFields.data();
    }
    FieldCatalog(FieldCatalog const&) = delete;
    FieldCatalog& operator=(FieldCatalog const&) = delete;

    nvinfer1::PluginFieldCollection const* collection() const
    {
        return &mCollection;
    }

private:
    std::vector<nvinfer1::PluginField> mFields;
    nvinfer1::PluginFieldCollection mCollection{};
};

//! Reads a plugin's parameters from the fields an application or the ONNX parser gives its creator. Fields the
//! plugin does not know are ignored, as TensorRT's plugins do. Throws PluginError naming plugin, field and value.
class FieldReader
{
public:
    FieldReader(std::string plugin, nvinfer1::PluginFieldCollection const* fields);

    template <typename T>
    void operator()(char const* name, T& value, Need need)
    {
        nvinfer1::PluginField const* field = find(name);
        if (field == nullptr)
        {
            if (need == Need::kREQUIRED)
            {
                throw PluginError(mPlugin + ": the required field '" + name + "' is missing");
            }
            return;
        }
        read(*field, value);
    }

private:
    nvinfer1::PluginField const* find(char const* name) const;
    void read(nvinfer1::PluginField const& field, int32_t& value) const;
    void read(nvinfer1::PluginField const& field, bool& value) const;
    void read(nvinfer1::PluginField const& field, float& value) const;
    void read(nvinfer1::PluginField const& field, std::vector<int32_t>& values) const;
    void read(nvinfer1::PluginField const& field, std::vector<float>& values) const;
    void read(nvinfer1::PluginField const& field, std::string& value) const;
    //! The field's values as doubles; throws unless its type holds numbers (integers only where `integers`).
    std::vector<double> numbers(nvinfer1::PluginField const& field, bool integers) const;
    std::string mPlugin;
    nvinfer1::PluginFieldCollection const* mFields;
};

//! The fields a V3 plugin returns from getFieldsToSerialize: a copy of its parameters, which the collection points
//! into, so it stays valid while this object lives unchanged.
template <typename Params>
class FieldWriter
{
public:
    explicit FieldWriter(Params const& params)
        : mParams(params)
    {
        mParams.visit([this](char const* name, auto& value, Need) { add(name, value); });
        mCollection.nbFields = static_cast<int32_t>(mFields.size());
        mCollection.fields = mFields.data();
    }
    FieldWriter(FieldWriter const&) = delete;
    FieldWriter& operator=(FieldWriter const&) = delete;

    nvinfer1::PluginFieldCollection const* collection() const
    {
        return &mCollection;
    }

private:
    template <typename T>
    void add(char const* name, T& value)
    {
        using nvinfer1::PluginField;
        if constexpr (std::is_same_v<T, bool>)
        {
            mBools.push_back(value ? 1 : 0); // a deque: earlier elements keep their addresses
            mFields.emplace_back(name, &mBools.back(), fieldTypeOf<T>(), 1);
        }
        else if constexpr (std::is_same_v<T, std::string>)
        {
            mFields.emplace_back(name, value.c_str(), fieldTypeOf<T>(), static_cast<int32_t>(value.size()));
        }
        else if constexpr (std::is_arithmetic_v<T>)
        {
            mFields.emplace_back(name, &value, fieldTypeOf<T>(), 1);
        }
        else
        {
            mFields.emplace_back(name, value.data(), fieldTypeOf<T>(), static_cast<int32_t>(value.size()));
        }
    }
    Params mParams;
    std::deque<int32_t> mBools; //!< bool parameters as the kINT32 values their fields point at
    std::vector<nvinfer1::PluginField> mFields;
    nvinfer1::PluginFieldCollection mCollection{};
};

} // namespace kiln::plugins
