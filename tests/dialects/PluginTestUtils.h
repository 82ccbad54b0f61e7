// Helpers for the dialect and seed-plugin tests: registry look-ups, field collections,
// serialization to bytes, tensor descriptors, and FP16 reference values.
#pragma once

#include <NvInfer.h>
#include <device_common/half.h>
#include <kiln/HostPlugin.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace kiln_test
{

//! Owns the storage behind a PluginFieldCollection, built field by field as a parser would.
class FieldCollection
{
public:
    FieldCollection& addFloats(char const* name, std::vector<float> values)
    {
        mFloatData.push_back(std::make_unique<std::vector<float>>(std::move(values)));
        auto const& data = *mFloatData.back();
        mFields.emplace_back(name, data.data(), nvinfer1::PluginFieldType::kFLOAT32, static_cast<int32_t>(data.size()));
        return *this;
    }
    FieldCollection& addInt(char const* name, int32_t value)
    {
        mIntData.push_back(std::make_unique<int32_t>(value));
        mFields.emplace_back(name, mIntData.back().get(), nvinfer1::PluginFieldType::kINT32, 1);
        return *this;
    }
    //! A field with explicit type and length (to test rejection of wrong ones).
    FieldCollection& addRaw(char const* name, void const* data, nvinfer1::PluginFieldType type, int32_t length)
    {
        mFields.emplace_back(name, data, type, length);
        return *this;
    }
    nvinfer1::PluginFieldCollection const* get()
    {
        mFC.nbFields = static_cast<int32_t>(mFields.size());
        mFC.fields = mFields.data();
        return &mFC;
    }

private:
    std::vector<std::unique_ptr<std::vector<float>>> mFloatData;
    std::vector<std::unique_ptr<int32_t>> mIntData;
    std::vector<nvinfer1::PluginField> mFields;
    nvinfer1::PluginFieldCollection mFC{};
};

//! destroy() for V2 plugins (their destructors may be protected).
struct V2Destroyer
{
    void operator()(nvinfer1::IPluginV2* plugin) const
    {
        if (plugin != nullptr)
        {
            plugin->destroy();
        }
    }
};
template <typename T>
using V2Ptr = std::unique_ptr<T, V2Destroyer>;

template <typename T>
V2Ptr<T> own(T* plugin)
{
    return V2Ptr<T>(plugin);
}

inline std::vector<uint8_t> serializeToBytes(nvinfer1::IPluginV2 const& plugin)
{
    std::vector<uint8_t> bytes(plugin.getSerializationSize());
    plugin.serialize(bytes.data());
    return bytes;
}

inline nvinfer1::Dims makeDims(std::initializer_list<int64_t> extents)
{
    nvinfer1::Dims dims{};
    dims.nbDims = static_cast<int32_t>(extents.size());
    int32_t i = 0;
    for (int64_t e : extents)
    {
        dims.d[i++] = e;
    }
    return dims;
}

inline bool sameDims(nvinfer1::Dims const& a, nvinfer1::Dims const& b)
{
    if (a.nbDims != b.nbDims)
    {
        return false;
    }
    for (int32_t i = 0; i < a.nbDims; ++i)
    {
        if (a.d[i] != b.d[i])
        {
            return false;
        }
    }
    return true;
}

inline nvinfer1::PluginTensorDesc makeDesc(nvinfer1::Dims const& dims, nvinfer1::DataType type,
    nvinfer1::TensorFormat format = nvinfer1::TensorFormat::kLINEAR)
{
    nvinfer1::PluginTensorDesc desc{};
    desc.dims = dims;
    desc.type = type;
    desc.format = format;
    desc.scale = -1.0F;
    return desc;
}

inline nvinfer1::DynamicPluginTensorDesc makeDynamicDesc(nvinfer1::Dims const& dims, nvinfer1::DataType type,
    nvinfer1::TensorFormat format = nvinfer1::TensorFormat::kLINEAR)
{
    nvinfer1::DynamicPluginTensorDesc desc{};
    desc.desc = makeDesc(dims, type, format);
    desc.min = dims;
    desc.max = dims;
    desc.opt = dims;
    return desc;
}

inline std::vector<uint16_t> toHalf(std::vector<float> const& values)
{
    std::vector<uint16_t> bits;
    bits.reserve(values.size());
    for (float v : values)
    {
        bits.push_back(kiln::floatToHalfBits(v));
    }
    return bits;
}

inline std::vector<float> fromHalf(std::vector<uint16_t> const& bits)
{
    std::vector<float> values;
    values.reserve(bits.size());
    for (uint16_t b : bits)
    {
        values.push_back(kiln::halfBitsToFloat(b));
    }
    return values;
}

//! The distance between two finite halves in units in the last place.
inline int32_t halfUlpDistance(uint16_t a, uint16_t b)
{
    auto ordered
        = [](uint16_t h) { return (h & 0x8000u) != 0 ? -static_cast<int32_t>(h & 0x7FFFu) : static_cast<int32_t>(h); };
    int32_t const d = ordered(a) - ordered(b);
    return d < 0 ? -d : d;
}

//! Runs a plugin's enqueueHost with one output of the input's shape and type.
template <typename T>
int32_t runHost(kiln::IHostPlugin& plugin, std::vector<nvinfer1::PluginTensorDesc> const& inputDescs,
    std::vector<std::vector<T> const*> const& inputs, nvinfer1::PluginTensorDesc const& outputDesc,
    std::vector<T>& output)
{
    std::vector<void const*> inputPointers;
    for (auto const* input : inputs)
    {
        inputPointers.push_back(input->data());
    }
    void* outputPointer = output.data();
    return plugin.enqueueHost(inputDescs.data(), &outputDesc, inputPointers.data(), &outputPointer, nullptr);
}

} // namespace kiln_test
