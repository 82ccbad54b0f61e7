#include "onnx/loaded_model.h"

#include "core/checked_size.h"
#include "onnx/model_reader.h"

#include <iterator>
#include <optional>
#include <string>

namespace kiln::onnxparser
{
namespace
{

//! Bytes of `count` elements of an ONNX element type (TensorProto.DataType's numbers, some newer than the onnx
//! library Kiln builds against); nullopt for strings and unknown types.
std::optional<size_t> byteSizeOf(int32_t onnxElementType, int64_t count)
{
    constexpr int32_t kUINT4 = 21;
    constexpr int32_t kINT4 = 22;
    if (onnxElementType == kUINT4 || onnxElementType == kINT4)
    {
        return checkedByteSize(count / 2 + count % 2, 1);
    }
    // FLOAT UINT8 INT8 UINT16 INT16 INT32 INT64 STRING BOOL FLOAT16 DOUBLE UINT32 UINT64 COMPLEX64 COMPLEX128
    // BFLOAT16 and the four FLOAT8 types, numbered 1 to 20.
    constexpr size_t kBytes[] = {0, 4, 1, 1, 2, 2, 4, 8, 0, 1, 2, 8, 4, 8, 8, 16, 2, 1, 1, 1, 1};
    if (onnxElementType <= 0 || onnxElementType >= static_cast<int32_t>(std::size(kBytes))
        || kBytes[onnxElementType] == 0)
    {
        return std::nullopt;
    }
    return checkedByteSize(count, kBytes[onnxElementType]);
}

::onnx::TensorProto* findInitializer(::onnx::ModelProto& model, std::string const& name)
{
    for (::onnx::TensorProto& tensor : *model.mutable_graph()->mutable_initializer())
    {
        if (tensor.name() == name)
        {
            return &tensor;
        }
    }
    return nullptr;
}

constexpr char const* kNotLoaded = "no model is loaded (call loadModelProto first)";

} // namespace

std::string LoadedModel::load(void const* data, size_t size, char const* modelPath, char const* usedBy)
{
    if (mModel)
    {
        return std::string("a model is already loaded; ") + usedBy;
    }
    auto model = std::make_unique<::onnx::ModelProto>();
    decodeModel(data, size, *model);
    mModel = std::move(model);
    mFolder = folderOf(modelPath);
    return "";
}

std::string LoadedModel::replaceInitializer(char const* name, void const* data, size_t size)
{
    if (!mModel)
    {
        return kNotLoaded;
    }
    std::string const wanted = name == nullptr ? std::string() : std::string(name);
    ::onnx::TensorProto* tensor = findInitializer(*mModel, wanted);
    if (tensor == nullptr)
    {
        return "the model has no initializer named \"" + wanted + "\"";
    }
    // The model's dimensions are not trusted: a negative extent or an overflowing count matches no size.
    std::optional<int64_t> const count = checkedElementCount(tensor->dims());
    std::optional<size_t> const expected = count ? byteSizeOf(tensor->data_type(), *count) : std::nullopt;
    if (!expected || *expected != size || (size != 0 && data == nullptr))
    {
        return "initializer \"" + wanted + "\" holds " + (expected ? std::to_string(*expected) : std::string("?"))
            + " bytes, " + std::to_string(size) + " were given";
    }
    // The bytes replace whatever held the values (typed fields, raw data or an external file).
    ::onnx::TensorProto replacement;
    replacement.set_name(tensor->name());
    *replacement.mutable_dims() = tensor->dims();
    replacement.set_data_type(tensor->data_type());
    replacement.set_raw_data(data, size);
    *tensor = std::move(replacement);
    return "";
}

std::unique_ptr<::onnx::ModelProto> LoadedModel::take(std::string& folder, std::string& error)
{
    if (!mModel)
    {
        error = kNotLoaded;
        return nullptr;
    }
    folder = mFolder;
    return std::move(mModel);
}

} // namespace kiln::onnxparser
