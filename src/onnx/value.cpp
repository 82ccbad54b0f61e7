#include "onnx/value.h"

#include "core/checked_size.h"
#include "device_common/fp8.h"
#include "device_common/half.h"
#include "onnx/import_error.h"

#include <cstring>

namespace kiln::onnxparser
{

int64_t ConstantData::count() const
{
    // Every constant's shape was checked where it was made (tensor_reader, the importers); this keeps a missed one
    // from wrapping around into a small count.
    std::optional<int64_t> const n = checkedElementCount(shape);
    if (!n)
    {
        fail(ErrorCode::kINVALID_GRAPH, "constant \"" + name + "\" has a negative extent or too many elements");
    }
    return *n;
}

nvinfer1::Dims ConstantData::dims() const
{
    if (shape.size() > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
    {
        fail(ErrorCode::kUNSUPPORTED_GRAPH,
            "constant \"" + name + "\" has rank " + std::to_string(shape.size()) + "; Kiln's tensors have at most "
                + std::to_string(nvinfer1::Dims::MAX_DIMS) + " dimensions");
    }
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
        case nvinfer1::DataType::kFP8:
            values[i] = kiln::fp8E4m3BitsToFloat(static_cast<uint8_t const*>(data)[i]);
            break;
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
