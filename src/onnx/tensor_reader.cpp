#include "onnx/tensor_reader.h"

#include "onnx/import_error.h"

#include <filesystem>
#include <fstream>
#include <limits>

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::DataType;
using ::onnx::TensorProto;

//! Sizes beyond this are refused before allocating (a corrupt dims field must not exhaust memory).
constexpr int64_t kMaxTensorBytes = int64_t{1} << 34;

std::vector<int64_t> checkedShape(TensorProto const& tensor, int64_t& count)
{
    std::vector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
    count = 1;
    for (int64_t extent : shape)
    {
        if (extent < 0)
        {
            fail(ErrorCode::kINVALID_GRAPH, "tensor \"" + tensor.name() + "\" has a negative dimension");
        }
        if (extent != 0 && count > kMaxTensorBytes / extent)
        {
            fail(ErrorCode::kINVALID_GRAPH, "tensor \"" + tensor.name() + "\" is too large");
        }
        count *= extent;
    }
    return shape;
}

std::vector<uint8_t> readExternal(TensorProto const& tensor, std::string const& modelDir, size_t wanted)
{
    std::string location;
    int64_t offset = 0;
    int64_t length = -1;
    for (auto const& entry : tensor.external_data())
    {
        try
        {
            if (entry.key() == "location")
            {
                location = entry.value();
            }
            else if (entry.key() == "offset")
            {
                offset = std::stoll(entry.value());
            }
            else if (entry.key() == "length")
            {
                length = std::stoll(entry.value());
            }
        }
        catch (std::exception const&)
        {
            fail(ErrorCode::kINVALID_GRAPH,
                "tensor \"" + tensor.name() + "\": external data " + entry.key() + " \"" + entry.value()
                    + "\" is not a number");
        }
    }
    std::string const what = "tensor \"" + tensor.name() + "\": external data file \"" + location + "\"";
    if (location.empty())
    {
        fail(ErrorCode::kINVALID_GRAPH, "tensor \"" + tensor.name() + "\" has external data without a location");
    }
    std::filesystem::path const relative(location);
    // ONNX requires external files to lie in the model's folder tree; refusing anything else also
    // keeps a hostile model from reading arbitrary files.
    if (relative.is_absolute() || location.find("..") != std::string::npos)
    {
        fail(ErrorCode::kINVALID_GRAPH, what + " must be a path relative to the model's folder");
    }
    if (modelDir.empty())
    {
        fail(ErrorCode::kINVALID_GRAPH, what + " cannot be found: the model was parsed from memory without a path");
    }
    std::filesystem::path const path = std::filesystem::path(modelDir) / relative;
    std::ifstream file(path, std::ios::binary);
    if (!file)
    {
        fail(ErrorCode::kINVALID_GRAPH, what + " cannot be opened (looked for " + path.string() + ")");
    }
    file.seekg(0, std::ios::end);
    auto const fileSize = static_cast<int64_t>(file.tellg());
    if (length < 0)
    {
        length = fileSize - offset;
    }
    if (offset < 0 || length != static_cast<int64_t>(wanted) || offset + length > fileSize)
    {
        fail(ErrorCode::kINVALID_GRAPH,
            what + ": offset " + std::to_string(offset) + " and length " + std::to_string(length) + " do not hold the "
                + std::to_string(wanted) + " bytes the tensor needs (the file has " + std::to_string(fileSize) + ")");
    }
    std::vector<uint8_t> bytes(wanted);
    file.seekg(offset);
    file.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(wanted));
    if (!file)
    {
        fail(ErrorCode::kINVALID_GRAPH, what + " could not be read");
    }
    return bytes;
}

template <typename Stored, typename Field>
std::vector<uint8_t> fromField(Field const& field, int64_t count, std::string const& name)
{
    if (field.size() != count)
    {
        fail(ErrorCode::kINVALID_GRAPH,
            "tensor \"" + name + "\" holds " + std::to_string(field.size()) + " values but its dimensions need "
                + std::to_string(count));
    }
    std::vector<uint8_t> bytes(static_cast<size_t>(count) * sizeof(Stored));
    auto* out = reinterpret_cast<Stored*>(bytes.data());
    for (int64_t i = 0; i < count; ++i)
    {
        out[i] = static_cast<Stored>(field.Get(static_cast<int>(i)));
    }
    return bytes;
}

//! Narrows double values (raw bytes) to float.
std::vector<uint8_t> narrowDoubles(std::vector<uint8_t> const& doubles)
{
    size_t const count = doubles.size() / sizeof(double);
    std::vector<uint8_t> floats(count * sizeof(float));
    for (size_t i = 0; i < count; ++i)
    {
        double value;
        std::memcpy(&value, doubles.data() + i * sizeof(double), sizeof(double));
        auto const narrowed = static_cast<float>(value);
        std::memcpy(floats.data() + i * sizeof(float), &narrowed, sizeof(float));
    }
    return floats;
}

} // namespace

std::optional<DataType> kilnType(int32_t onnxElementType)
{
    switch (onnxElementType)
    {
    case TensorProto::FLOAT:
    case TensorProto::DOUBLE: return DataType::kFLOAT;
    case TensorProto::FLOAT16: return DataType::kHALF;
    case TensorProto::BFLOAT16: return DataType::kBF16;
    case TensorProto::INT32: return DataType::kINT32;
    case TensorProto::INT64: return DataType::kINT64;
    case TensorProto::INT8: return DataType::kINT8;
    case TensorProto::UINT8: return DataType::kUINT8;
    case TensorProto::BOOL: return DataType::kBOOL;
    default: return std::nullopt;
    }
}

std::string onnxTypeName(int32_t onnxElementType)
{
    if (TensorProto::DataType_IsValid(onnxElementType))
    {
        return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(onnxElementType));
    }
    return "type " + std::to_string(onnxElementType);
}

ConstantData ConstantStore::keep(
    DataType type, std::vector<int64_t> shape, std::vector<uint8_t> bytes, std::string name)
{
    mBuffers.push_back(std::move(bytes));
    ConstantData constant;
    constant.type = type;
    constant.shape = std::move(shape);
    constant.data = mBuffers.back().data();
    constant.name = std::move(name);
    return constant;
}

ConstantData readTensor(TensorProto const& tensor, std::string const& modelDir, ConstantStore& store)
{
    std::optional<DataType> const type = kilnType(tensor.data_type());
    if (!type)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
            "tensor \"" + tensor.name() + "\" has element type " + onnxTypeName(tensor.data_type())
                + ", which Kiln does not support");
    }
    int64_t count = 0;
    std::vector<int64_t> shape = checkedShape(tensor, count);
    bool const isDouble = tensor.data_type() == TensorProto::DOUBLE;
    size_t const storedSize = isDouble ? sizeof(double) : elementSize(*type);
    size_t const wanted = static_cast<size_t>(count) * storedSize;
    std::vector<uint8_t> bytes;
    if (tensor.data_location() == TensorProto::EXTERNAL)
    {
        bytes = readExternal(tensor, modelDir, wanted);
    }
    else if (tensor.has_raw_data())
    {
        if (tensor.raw_data().size() != wanted)
        {
            fail(ErrorCode::kINVALID_GRAPH,
                "tensor \"" + tensor.name() + "\" has " + std::to_string(tensor.raw_data().size())
                    + " bytes of raw data; its type and dimensions need " + std::to_string(wanted));
        }
        bytes.assign(tensor.raw_data().begin(), tensor.raw_data().end());
    }
    else
    {
        switch (tensor.data_type())
        {
        case TensorProto::FLOAT: bytes = fromField<float>(tensor.float_data(), count, tensor.name()); break;
        case TensorProto::DOUBLE: bytes = fromField<double>(tensor.double_data(), count, tensor.name()); break;
        case TensorProto::INT64: bytes = fromField<int64_t>(tensor.int64_data(), count, tensor.name()); break;
        case TensorProto::INT32: bytes = fromField<int32_t>(tensor.int32_data(), count, tensor.name()); break;
        // Narrow types are stored one per int32_data entry (16-bit floats as their bit patterns).
        case TensorProto::FLOAT16:
        case TensorProto::BFLOAT16: bytes = fromField<uint16_t>(tensor.int32_data(), count, tensor.name()); break;
        case TensorProto::INT8: bytes = fromField<int8_t>(tensor.int32_data(), count, tensor.name()); break;
        default: bytes = fromField<uint8_t>(tensor.int32_data(), count, tensor.name()); break; // UINT8, BOOL
        }
    }
    if (isDouble)
    {
        bytes = narrowDoubles(bytes);
    }
    ConstantData constant = store.keep(*type, std::move(shape), std::move(bytes), tensor.name());
    constant.modelValues = true;
    return constant;
}

} // namespace kiln::onnxparser
