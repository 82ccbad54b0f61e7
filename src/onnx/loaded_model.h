// The model of the loadModelProto, loadInitializer and parseModelProto / refitModelProto calls (TensorRT 10.11+) that
// IParser and IParserRefitter share: decoded first, some of its initializers replaced by the application's bytes,
// then taken by the call that uses it.
#pragma once

#include "onnx/onnx_proto.h"

#include <cstddef>
#include <memory>
#include <string>

namespace kiln::onnxparser
{

class LoadedModel
{
public:
    //! Decodes the model (throws ImportError, MODEL_DESERIALIZE_FAILED, where the bytes are not one); modelPath
    //! locates its external data. "" on success, else what is wrong: a model is already loaded (`usedBy` says what
    //! takes it).
    std::string load(void const* data, size_t size, char const* modelPath, char const* usedBy);
    //! Replaces the values of initializer `name` with `size` bytes of its element type and count; "" on success, else
    //! what is wrong (no model loaded, no such initializer, another size).
    std::string replaceInitializer(char const* name, void const* data, size_t size);
    //! The model, no longer loaded, and the folder of its external data; nullptr with `error` where none is loaded.
    std::unique_ptr<::onnx::ModelProto> take(std::string& folder, std::string& error);

private:
    std::unique_ptr<::onnx::ModelProto> mModel;
    std::string mFolder;
};

} // namespace kiln::onnxparser
