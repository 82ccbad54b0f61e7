// Small building blocks that importers share: broadcasting to equal ranks (Kiln's element-wise
// layers need it, ONNX does not), reshapes, transposes, casts and constants.
#pragma once

#include "onnx/import_context.h"
#include "onnx/node.h"

#include <vector>

namespace kiln::onnxparser
{

//! A node's only output.
inline std::vector<Value> single(nvinfer1::ITensor& output)
{
    return {Value(&output)};
}

int32_t rankOf(nvinfer1::ITensor& tensor);
//! The input as a tensor (constants become constant layers).
nvinfer1::ITensor& inputTensor(ImportContext& ctx, Node const& node, int32_t index);

//! axis in [-rank, rank) as a non-negative index; fails naming the node otherwise.
int32_t normalizeAxis(int64_t axis, int32_t rank, char const* what = "axis");
//! The axes as a bit mask (each normalized; duplicates fail).
uint32_t axesMask(std::vector<int64_t> const& axes, int32_t rank);

//! A reshape to fixed dims (0 means 0, not "copy").
nvinfer1::ITensor& reshape(ImportContext& ctx, nvinfer1::ITensor& input, std::vector<int64_t> const& dims);
//! A reshape to the dims held by a 1-D INT64 shape tensor.
nvinfer1::ITensor& reshape(ImportContext& ctx, nvinfer1::ITensor& input, nvinfer1::ITensor& shape);
//! input with 1-extents prepended up to rank (works for run-time extents too).
nvinfer1::ITensor& prependOnes(ImportContext& ctx, nvinfer1::ITensor& input, int32_t rank);
//! input with 1-extents inserted at the given output axes (sorted, normalized to the output rank).
nvinfer1::ITensor& insertOnes(ImportContext& ctx, nvinfer1::ITensor& input, std::vector<int32_t> const& outputAxes);
//! input without the given axes (which must have extent 1).
nvinfer1::ITensor& removeAxes(ImportContext& ctx, nvinfer1::ITensor& input, std::vector<int32_t> const& axes);
nvinfer1::ITensor& transpose(ImportContext& ctx, nvinfer1::ITensor& input, std::vector<int32_t> const& permutation);
//! input converted to type (input itself when it already has it).
nvinfer1::ITensor& castTo(ImportContext& ctx, nvinfer1::ITensor& input, nvinfer1::DataType type);

//! a op b with ONNX (numpy) broadcasting.
nvinfer1::ITensor& elementWise(
    ImportContext& ctx, nvinfer1::ITensor& a, nvinfer1::ITensor& b, nvinfer1::ElementWiseOperation op);
nvinfer1::ITensor& unary(ImportContext& ctx, nvinfer1::ITensor& input, nvinfer1::UnaryOperation op);
nvinfer1::ITensor& activation(
    ImportContext& ctx, nvinfer1::ITensor& input, nvinfer1::ActivationType type, float alpha = 0.F, float beta = 0.F);

//! A constant tensor of rank `rank` with every extent 1, holding value in type.
nvinfer1::ITensor& scalarConstant(ImportContext& ctx, double value, nvinfer1::DataType type, int32_t rank);
//! A 1-D INT64 constant (a shape tensor).
nvinfer1::ITensor& int64Constant(ImportContext& ctx, std::vector<int64_t> const& values);

//! tensor itself, when it is a shape tensor (values known while shapes are inferred, e.g. computed by
//! Shape/Gather/Concat); fails (UNSUPPORTED_NODE_INPUT) otherwise, e.g. for a network input.
nvinfer1::ITensor& requireShapeValues(nvinfer1::ITensor& tensor, char const* what);

//! Whether input i of node is constant data (initializer or Constant output), so that its values can be read.
bool isConstantInput(Node const& node, int32_t index);
//! Input i's values as integers; fails (UNSUPPORTED_NODE_INPUT) when it is not constant.
std::vector<int64_t> constantInts(Node const& node, int32_t index, char const* what);
//! Input i's values as floats; fails when it is not constant.
std::vector<float> constantFloats(Node const& node, int32_t index, char const* what);

//! input broadcast to the dims held by shape (a 1-D INT64 tensor of input's rank whose entries equal
//! input's extents or replace extents of 1), through a slice that reads 1-extents with stride 0.
nvinfer1::ITensor& broadcastTo(ImportContext& ctx, nvinfer1::ITensor& input, nvinfer1::ITensor& shape);

//! A new loop of the network (ILoop is no layer, so ImportContext::check does not take it).
nvinfer1::ILoop& newLoop(ImportContext& ctx);

//! The input's extent along axis when known at build time, else -1.
int64_t staticExtent(nvinfer1::ITensor& input, int32_t axis);

} // namespace kiln::onnxparser
