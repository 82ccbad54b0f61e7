// The model as protobuf: decoding with limits, and the opset of the default ONNX domain.
#pragma once

#include "onnx/onnx_proto.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln::onnxparser
{

//! The opsets Kiln's importers accept. Importers follow each op's definition at the model's opset where
//! it changed (Slice, Clip, Pad, Squeeze, Reduce*, Softmax...); opsets 9 to 21 are the target.
constexpr int64_t kMinOpset = 1;
constexpr int64_t kMaxOpset = 21;

//! Decodes a serialized ModelProto; throws ImportError (MODEL_DESERIALIZE_FAILED) when it is not one.
void decodeModel(void const* data, size_t size, ::onnx::ModelProto& model);

//! The opset of the default domain ("" or "ai.onnx"); throws (UNSUPPORTED_GRAPH) when missing or out of range.
int64_t defaultOpset(::onnx::ModelProto const& model);

//! The folder of modelPath ("" for none), where external data files are looked for.
std::string folderOf(char const* modelPath);

} // namespace kiln::onnxparser
