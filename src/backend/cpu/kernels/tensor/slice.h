// ISliceLayer (ONNX Slice, Split, and Tile as a kWRAP slice).
//
// Output coordinate i along dim d reads input coordinate start[d] + i * stride[d] (strides may be
// negative or zero). Coordinates outside the input are handled by the sample mode:
//   kSTRICT_BOUNDS  error; kWRAP  modulo the extent; kCLAMP  nearest edge;
//   kFILL  the fill value (TensorRT's optional input 4, default 0);
//   kREFLECT  mirrored without repeating the edge (ONNX Pad "reflect": period 2 * (extent - 1)).
// The output shape is the size. Copies bytes, so every byte-addressable type works.
#pragma once

#include "backend/cpu/layer_kernels.h"
#include "core/tensor_view.h"
#include "network/layers/slice.h"

#include <NvInferLayerEnums.h>

namespace kiln::cpu
{

//! Slices input 0. Start, size and stride are the layer's static ones unless inputs 1, 2 and 3 (shape tensors, read
//! at run time) give them; input 4, when given, holds the kFILL value.
void slice(LayerInputs const& inputs, TensorView const& output, network::SliceParams const& params);

//! The sampling of a slice (and of a pad, a slice that starts before its input), the window's size being the
//! output's shape. fillValue is converted to the output type (integers truncate toward zero and saturate).
void sampleWindow(ConstTensorView const& input, TensorView const& output, Shape const& start, Shape const& stride,
    nvinfer1::SampleMode mode, double fillValue);

//! The input coordinate that `coordinate` reads under `mode` for an axis of `extent`; -1 means the fill
//! value. Throws where kSTRICT_BOUNDS is violated or an empty axis must be sampled.
int64_t sampleCoordinate(int64_t coordinate, int64_t extent, nvinfer1::SampleMode mode);

} // namespace kiln::cpu
