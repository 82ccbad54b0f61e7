#include "onnx/model_reader.h"

#include "onnx/import_error.h"

#include <google/protobuf/io/coded_stream.h>

#include <filesystem>
#include <limits>

namespace kiln::onnxparser
{

void decodeModel(void const* data, size_t size, ::onnx::ModelProto& model)
{
    if (data == nullptr || size == 0)
    {
        fail(ErrorCode::kMODEL_DESERIALIZE_FAILED, "the model is empty");
    }
    if (size > static_cast<size_t>(std::numeric_limits<int>::max()))
    {
        fail(ErrorCode::kMODEL_DESERIALIZE_FAILED,
            "the model is larger than 2 GiB; keep its weights in external data files");
    }
    google::protobuf::io::CodedInputStream stream(static_cast<uint8_t const*>(data), static_cast<int>(size));
    stream.SetTotalBytesLimit(std::numeric_limits<int>::max());
    if (!model.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage())
    {
        fail(ErrorCode::kMODEL_DESERIALIZE_FAILED,
            "the data is not a valid ONNX model (protobuf ModelProto decoding failed: truncated or corrupt file?)");
    }
    if (!model.has_graph())
    {
        fail(ErrorCode::kMODEL_DESERIALIZE_FAILED, "the model has no graph");
    }
}

int64_t defaultOpset(::onnx::ModelProto const& model)
{
    for (auto const& entry : model.opset_import())
    {
        if (entry.domain().empty() || entry.domain() == "ai.onnx")
        {
            int64_t const version = entry.version();
            if (version < kMinOpset || version > kMaxOpset)
            {
                fail(ErrorCode::kUNSUPPORTED_GRAPH,
                    "the model uses opset " + std::to_string(version)
                        + " of the default ONNX domain; Kiln supports opsets " + std::to_string(kMinOpset) + " to "
                        + std::to_string(kMaxOpset));
            }
            return version;
        }
    }
    fail(ErrorCode::kUNSUPPORTED_GRAPH, "the model imports no opset of the default ONNX domain");
}

std::string folderOf(char const* modelPath)
{
    if (modelPath == nullptr || *modelPath == '\0')
    {
        return {};
    }
    std::filesystem::path const parent = std::filesystem::path(modelPath).parent_path();
    return parent.empty() ? std::string(".") : parent.string();
}

} // namespace kiln::onnxparser
