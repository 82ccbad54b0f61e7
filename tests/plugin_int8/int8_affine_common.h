// What the forms of the Int8ChannelAffine test plugin share (int8_affine_plugin.cpp, int8_affine_ioext.cpp,
// int8_affine_v3.cpp): its fields, its payload, the layout of its tensors, its host and device runs, the V2 creator.
#pragma once

#include "int8_affine_kernel.h"
#include "int8_affine_math.h"

#include <NvInfer.h>

#include <cstring>
#include <string>
#include <vector>

namespace kiln_int8_test
{

//! The fields: the format the plugin asks for (0, 4 or 32), and a weight and a bias per channel.
struct AffineFields
{
    int32_t format{0};
    std::vector<float> weight;
    std::vector<float> bias;

    nvinfer1::TensorFormat tensorFormat() const
    {
        return format == 4 ? nvinfer1::TensorFormat::kCHW4
            : format == 32 ? nvinfer1::TensorFormat::kCHW32
                           : nvinfer1::TensorFormat::kLINEAR;
    }
    bool valid() const
    {
        return (format == 0 || format == 4 || format == 32) && !weight.empty() && weight.size() == bias.size();
    }
};

//! The layout of a tensor of `dims` (rank >= 3) in the format `fields` names: the channel axis the third from the
//! last.
inline kiln::VectorLayout layoutOf(nvinfer1::Dims const& dims, AffineFields const& fields)
{
    int64_t outer = 1;
    for (int32_t axis = 0; axis < dims.nbDims - 3; ++axis)
    {
        outer *= dims.d[axis];
    }
    return kiln::VectorLayout{
        outer, dims.d[dims.nbDims - 3], dims.d[dims.nbDims - 2] * dims.d[dims.nbDims - 1], fields.format};
}

//! The host run over every element of `layout`.
inline void runAffineHost(kiln::VectorLayout const& layout, AffineFields const& fields, int8_t const* x, int8_t* y,
    float inScale, float outScale)
{
    for (int64_t o = 0; o < layout.outer; ++o)
    {
        for (int64_t c = 0; c < layout.channels; ++c)
        {
            for (int64_t s = 0; s < layout.inner; ++s)
            {
                int64_t const at = elementOffset(layout, o, c, s);
                y[at] = affineQuantized(x[at], inScale, fields.weight[c], fields.bias[c], outScale);
            }
        }
    }
}

//! Bytes written and read in order, for the payloads.
class Payload
{
public:
    template <typename T>
    void put(T const& value)
    {
        auto const* bytes = reinterpret_cast<char const*>(&value);
        mBytes.insert(mBytes.end(), bytes, bytes + sizeof(T));
    }
    void putFloats(std::vector<float> const& values)
    {
        put(static_cast<int32_t>(values.size()));
        for (float value : values)
        {
            put(value);
        }
    }
    std::vector<char> const& bytes() const
    {
        return mBytes;
    }

private:
    std::vector<char> mBytes;
};

class PayloadReader
{
public:
    PayloadReader(void const* data, size_t size)
        : mData(static_cast<char const*>(data))
        , mSize(size)
    {
    }
    template <typename T>
    bool get(T& value)
    {
        if (mData == nullptr || mSize - mOffset < sizeof(T))
        {
            return false;
        }
        std::memcpy(&value, mData + mOffset, sizeof(T));
        mOffset += sizeof(T);
        return true;
    }
    bool getFloats(std::vector<float>& values)
    {
        int32_t count = 0;
        if (!get(count) || count < 0 || static_cast<size_t>(count) > (mSize - mOffset) / sizeof(float))
        {
            return false;
        }
        values.resize(static_cast<size_t>(count));
        for (float& value : values)
        {
            get(value);
        }
        return true;
    }
    bool atEnd() const
    {
        return mOffset == mSize;
    }

private:
    char const* mData;
    size_t mSize;
    size_t mOffset{0};
};

inline void putFields(Payload& payload, AffineFields const& fields)
{
    payload.put(fields.format);
    payload.putFloats(fields.weight);
    payload.putFloats(fields.bias);
}

inline bool getFields(PayloadReader& reader, AffineFields& fields)
{
    return reader.get(fields.format) && reader.getFloats(fields.weight) && reader.getFloats(fields.bias)
        && fields.valid();
}

//! The fields a creator is given, as AffineFields (check valid()).
inline AffineFields parseFields(nvinfer1::PluginFieldCollection const* fc)
{
    AffineFields fields;
    for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
    {
        nvinfer1::PluginField const& field = fc->fields[i];
        auto const* floats = static_cast<float const*>(field.data);
        if (std::strcmp(field.name, "format") == 0 && field.type == nvinfer1::PluginFieldType::kINT32)
        {
            fields.format = *static_cast<int32_t const*>(field.data);
        }
        else if (std::strcmp(field.name, "weight") == 0 && field.type == nvinfer1::PluginFieldType::kFLOAT32)
        {
            fields.weight.assign(floats, floats + field.length);
        }
        else if (std::strcmp(field.name, "bias") == 0 && field.type == nvinfer1::PluginFieldType::kFLOAT32)
        {
            fields.bias.assign(floats, floats + field.length);
        }
    }
    return fields;
}

//! The creator of either V2 form: `Plugin` is made from AffineFields (createPlugin) or from its payload
//! (`Plugin::deserialize`, null when the bytes are not its own).
template <typename Plugin>
class AffineCreator final : public nvinfer1::IPluginCreator
{
public:
    AffineCreator()
    {
        mNames = {nvinfer1::PluginField("format", nullptr, nvinfer1::PluginFieldType::kINT32, 1),
            nvinfer1::PluginField("weight", nullptr, nvinfer1::PluginFieldType::kFLOAT32, 0),
            nvinfer1::PluginField("bias", nullptr, nvinfer1::PluginFieldType::kFLOAT32, 0)};
        mFields = nvinfer1::PluginFieldCollection{static_cast<int32_t>(mNames.size()), mNames.data()};
    }
    char const* getPluginName() const noexcept override
    {
        return "Int8ChannelAffine";
    }
    char const* getPluginVersion() const noexcept override
    {
        return Plugin::kVersion;
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override
    {
        return &mFields;
    }
    nvinfer1::IPluginV2* createPlugin(char const*, nvinfer1::PluginFieldCollection const* fc) noexcept override
    {
        AffineFields const fields = parseFields(fc);
        return fields.valid() ? new Plugin(fields) : nullptr;
    }
    nvinfer1::IPluginV2* deserializePlugin(char const*, void const* data, size_t size) noexcept override
    {
        return Plugin::deserialize(data, size);
    }
    void setPluginNamespace(char const* ns) noexcept override
    {
        mNamespace = ns;
    }
    char const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }

private:
    std::vector<nvinfer1::PluginField> mNames;
    nvinfer1::PluginFieldCollection mFields{};
    std::string mNamespace;
};

//! The device run, or 1 where the library was built without CUDA. Uploads the weights at the first call (*weight
//! and *bias null): a plan built for the CPU backend needs no GPU.
inline int32_t runAffineDevice(kiln::VectorLayout const& layout, AffineFields const& fields, void const* x, void* y,
    float inScale, float outScale, float** weight, float** bias, cudaStream_t stream)
{
#ifdef KILN_WITH_CUDA
    if (*weight == nullptr && uploadAffine(fields.weight, fields.bias, weight, bias) != 0)
    {
        return 1;
    }
    return launchInt8Affine(
        static_cast<int8_t const*>(x), static_cast<int8_t*>(y), layout, inScale, outScale, *weight, *bias, stream);
#else
    (void) layout, (void) fields, (void) x, (void) y, (void) inScale, (void) outScale, (void) weight, (void) bias;
    (void) stream;
    return 1;
#endif
}

//! Frees what runAffineDevice uploaded.
inline void releaseAffineDevice(float*& weight, float*& bias)
{
#ifdef KILN_WITH_CUDA
    releaseAffine(weight, bias);
#endif
    weight = nullptr;
    bias = nullptr;
}

} // namespace kiln_int8_test
