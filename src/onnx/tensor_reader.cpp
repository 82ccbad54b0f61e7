#include "onnx/tensor_reader.h"

#include "core/checked_size.h"
#include "onnx/external_file.h"
#include "onnx/import_error.h"

#include <algorithm>
#include <charconv>
#include <limits>

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::DataType;
using ::onnx::TensorProto;

//! FLOAT8E4M3FN's number, which the onnx library Kiln builds against may not name (ONNX 1.14 added it).
constexpr int32_t kOnnxFloat8E4M3FN = 17;

//! The tensor's dimensions; `count` becomes their element count. Negative extents and counts that overflow are
//! refused; the data itself must then be present in the model or its external file, so that no more is allocated
//! than the files hold.
std::vector<int64_t> checkedShape(TensorProto const& tensor, int64_t& count)
{
    std::vector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
    if (std::any_of(shape.begin(), shape.end(), [](int64_t extent) { return extent < 0; }))
    {
        fail(ErrorCode::kINVALID_GRAPH, "tensor \"" + tensor.name() + "\" has a negative dimension");
    }
    std::optional<int64_t> const checked = checkedElementCount(shape);
    if (!checked)
    {
        fail(ErrorCode::kINVALID_GRAPH,
            "tensor \"" + tensor.name() + "\" is too large: its element count overflows a 64-bit integer");
    }
    count = *checked;
    return shape;
}

//! Where a tensor's external bytes lie, as its external_data entries say.
struct ExternalLocation
{
    std::string location;
    int64_t offset{0};
    std::optional<int64_t> length;
};

//! An offset or length entry: a whole non-negative decimal number that fits in int64.
int64_t entryNumber(TensorProto const& tensor, ::onnx::StringStringEntryProto const& entry)
{
    std::string const& text = entry.value();
    int64_t value = 0;
    auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value < 0)
    {
        fail(ErrorCode::kINVALID_GRAPH,
            "tensor \"" + tensor.name() + "\": external data " + entry.key() + " \"" + text
                + "\" is not a non-negative 64-bit integer");
    }
    return value;
}

ExternalLocation externalLocation(TensorProto const& tensor)
{
    ExternalLocation where;
    for (auto const& entry : tensor.external_data())
    {
        if (entry.key() == "location")
        {
            where.location = entry.value();
        }
        else if (entry.key() == "offset")
        {
            where.offset = entryNumber(tensor, entry);
        }
        else if (entry.key() == "length")
        {
            where.length = entryNumber(tensor, entry);
        }
    }
    if (where.location.empty())
    {
        fail(ErrorCode::kINVALID_GRAPH, "tensor \"" + tensor.name() + "\" has external data without a location");
    }
    return where;
}

std::vector<uint8_t> readExternal(TensorProto const& tensor, std::string const& modelDir, size_t wanted)
{
    ExternalLocation const where = externalLocation(tensor);
    std::string const what = "tensor \"" + tensor.name() + "\": external data file \"" + where.location + "\"";
    ExternalFile const file(what, where.location, modelDir);
    // Without a length the data runs to the end of the file.
    int64_t const length = where.length ? *where.length : file.size() - where.offset;
    std::optional<int64_t> const end = checkedAdd(where.offset, length);
    if (length != static_cast<int64_t>(wanted) || !end || *end > file.size())
    {
        fail(ErrorCode::kINVALID_GRAPH,
            what + ": offset " + std::to_string(where.offset) + " and length " + std::to_string(length)
                + " do not hold the " + std::to_string(wanted) + " bytes the tensor needs (the file has "
                + std::to_string(file.size()) + ")");
    }
    return file.read(where.offset, wanted);
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
    case kOnnxFloat8E4M3FN: return DataType::kFP8;
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

bool ConstantStore::admitComputed(size_t bytes)
{
    if (bytes > kMaxComputedBytes || bytes > kComputedBudgetBytes - mComputedBytes)
    {
        return false;
    }
    mComputedBytes += bytes;
    return true;
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
    std::optional<size_t> const byteSize = checkedByteSize(count, storedSize);
    if (!byteSize)
    {
        fail(ErrorCode::kINVALID_GRAPH,
            "tensor \"" + tensor.name() + "\" is too large: " + std::to_string(count) + " elements of "
                + std::to_string(storedSize) + " bytes overflow a byte size");
    }
    size_t const wanted = *byteSize;
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
        // UINT8, BOOL and FLOAT8E4M3FN (its bit patterns)
        default: bytes = fromField<uint8_t>(tensor.int32_data(), count, tensor.name()); break;
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
