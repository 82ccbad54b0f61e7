// TensorProto to ConstantData: initializers, Constant nodes' values and the conformance runner's test
// data. Values come from raw_data, the typed fields, or an external data file next to the model.
#pragma once

#include "onnx/onnx_proto.h"
#include "onnx/value.h"

#include <cstring>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace kiln::onnxparser
{

//! Owns the bytes of every ConstantData the parser made; they stay alive as long as the parser
//! (TensorRT's parser keeps its weights until it is destroyed; Kiln's network copies them anyway).
//!
//! It also keeps the budget of parse-time constants: data that importers compute from a few values in the model
//! (ConstantOfShape, Range, the window ops, rewritten Gather indices). Unlike an initializer, whose bytes the model's
//! file holds, such data can be far larger than the file (a 30-byte ConstantOfShape can ask for exabytes), so
//! importers materialise it only within the budget and otherwise build a run-time layer (a broadcast or a fill) or
//! fail naming the node. Values importers need while parsing (shapes, axes, indices) are a few elements; large
//! constants are data that a run-time layer makes as well and that would otherwise be copied into the network
//! and the plan.
class ConstantStore
{
public:
    //! The most bytes one computed constant may have (4 Mi FLOAT elements; a [1, 1, 2048, 2048] FLOAT mask fits).
    static constexpr size_t kMaxComputedBytes = size_t{16} << 20;
    //! The most bytes all of a parser's computed constants may have together.
    static constexpr size_t kComputedBudgetBytes = size_t{256} << 20;

    //! Whether a computed constant of `bytes` fits the budget; when it does, it is counted against it.
    bool admitComputed(size_t bytes);

    //! Keeps bytes and returns a ConstantData viewing them.
    ConstantData keep(
        nvinfer1::DataType type, std::vector<int64_t> shape, std::vector<uint8_t> bytes, std::string name);
    template <typename T>
    ConstantData keepValues(
        nvinfer1::DataType type, std::vector<int64_t> shape, std::vector<T> const& values, std::string name = {})
    {
        std::vector<uint8_t> bytes(values.size() * sizeof(T));
        if (!bytes.empty())
        {
            std::memcpy(bytes.data(), values.data(), bytes.size());
        }
        return keep(type, std::move(shape), std::move(bytes), std::move(name));
    }

private:
    std::deque<std::vector<uint8_t>> mBuffers;
    size_t mComputedBytes{0};
};

//! The Kiln type of an ONNX element type, or nullopt for one Kiln has no counterpart for. DOUBLE
//! maps to kFLOAT: the reader narrows double data, as TensorRT's parser does.
std::optional<nvinfer1::DataType> kilnType(int32_t onnxElementType);
//! The ONNX name of an element type ("FLOAT", "INT64", ...).
std::string onnxTypeName(int32_t onnxElementType);

//! Reads tensor's values. modelDir is the folder external data paths are relative to (empty when the
//! model came from memory without a path). Throws ImportError naming the tensor on any problem.
ConstantData readTensor(::onnx::TensorProto const& tensor, std::string const& modelDir, ConstantStore& store);

} // namespace kiln::onnxparser
