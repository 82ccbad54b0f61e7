// Shapes as 1-D INT64 tensors, for shapes that are only known at run time. Kiln's shape inference
// keeps the values of such tensors (Shape -> Gather -> Concat -> Reshape), so shapes stay dynamic
// exactly as the ONNX graph computes them. When every extent is known, they are plain constants.
#pragma once

#include "onnx/import_context.h"

#include <vector>

namespace kiln::onnxparser
{

//! The input's shape (a constant when every extent is known at build time).
nvinfer1::ITensor& shapeOf(ImportContext& ctx, nvinfer1::ITensor& input);
//! Entries of a 1-D shape tensor at the given (non-negative) indices.
nvinfer1::ITensor& gatherDims(ImportContext& ctx, nvinfer1::ITensor& shape, std::vector<int64_t> const& indices);
//! Entries [begin, end) of a 1-D shape tensor.
nvinfer1::ITensor& dimsRange(ImportContext& ctx, nvinfer1::ITensor& shape, int64_t begin, int64_t end);
//! 1-D tensors joined end to end (empty pieces are skipped; at least one must be non-empty).
nvinfer1::ITensor& concatShapes(ImportContext& ctx, std::vector<nvinfer1::ITensor*> const& pieces);
//! a op b on shape tensors (broadcasting a 1-element side).
nvinfer1::ITensor& shapeMath(
    ImportContext& ctx, nvinfer1::ITensor& a, nvinfer1::ITensor& b, nvinfer1::ElementWiseOperation op);
//! The product of every entry, as a 1-element shape tensor.
nvinfer1::ITensor& shapeProduct(ImportContext& ctx, nvinfer1::ITensor& shape);
//! The number of entries of a 1-D tensor when known at build time, else fails.
int32_t shapeLength(nvinfer1::ITensor& shape);

} // namespace kiln::onnxparser
