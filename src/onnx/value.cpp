#include "onnx/value.h"

#include "core/half.h"

#include <cstring>

namespace kiln::onnxparser
{

int64_t ConstantData::count() const
{
    int64_t n = 1;
    for (int64_t extent : shape)
    {
        n *= extent;
    }
    return n;
}

nvinfer1::Dims ConstantData::dims() const
{
    nvinfer1::Dims dims{};
    dims.nbDims = static_cast<int32_t>(shape.size());
    for (size_t i = 0; i < shape.size(); ++i)
    {
        dims.d[i] = shape[i];
    }
    return dims;
}

std::vector<double> ConstantData::toDouble() const
{
    std::vector<double> values(static_cast<size_t>(count()));
    for (size_t i = 0; i < values.size(); ++i)
    {
        switch (type)
        {
        case nvinfer1::DataType::kFLOAT: values[i] = static_cast<float const*>(data)[i]; break;
        case nvinfer1::DataType::kHALF: values[i] = kiln::halfBitsToFloat(static_cast<uint16_t const*>(data)[i]); break;
        case nvinfer1::DataType::kBF16: values[i] = kiln::bf16BitsToFloat(static_cast<uint16_t const*>(data)[i]); break;
        case nvinfer1::DataType::kINT32: values[i] = static_cast<int32_t const*>(data)[i]; break;
        case nvinfer1::DataType::kINT64: values[i] = static_cast<double>(static_cast<int64_t const*>(data)[i]); break;
        case nvinfer1::DataType::kINT8: values[i] = static_cast<int8_t const*>(data)[i]; break;
        default: values[i] = static_cast<uint8_t const*>(data)[i]; break; // UINT8, BOOL
        }
    }
    return values;
}

std::vector<int64_t> ConstantData::toInt64() const
{
    if (type == nvinfer1::DataType::kINT64)
    {
        auto const* first = static_cast<int64_t const*>(data);
        return std::vector<int64_t>(first, first + count());
    }
    std::vector<double> const values = toDouble();
    return std::vector<int64_t>(values.begin(), values.end());
}

std::vector<float> ConstantData::toFloat() const
{
    std::vector<double> const values = toDouble();
    return std::vector<float>(values.begin(), values.end());
}

} // namespace kiln::onnxparser
