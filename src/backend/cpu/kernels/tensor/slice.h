// ISliceLayer (ONNX Slice, Split, and Tile as a kWRAP slice).
//
// Output coordinate i along dim d reads input coordinate start[d] + i * stride[d] (strides may be
// negative or zero). Coordinates outside the input are handled by `mode`:
//   kSTRICT_BOUNDS  error; kWRAP  modulo the extent; kCLAMP  nearest edge;
//   kFILL  fillValue (TensorRT's optional fill input, default 0);
//   kREFLECT  mirrored without repeating the edge (ONNX Pad "reflect": period 2 * (extent - 1)).
// The output shape is `size`. Copies bytes, so every byte-addressable type works.
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>

namespace kiln::cpu
{

struct Slice
{
    Shape start;
    Shape size;
    Shape stride;
    nvinfer1::SampleMode mode{nvinfer1::SampleMode::kSTRICT_BOUNDS};
    double fillValue{0.0}; //!< converted to the output type (integers truncate toward zero and saturate)
};

void slice(ConstTensorView const& input, TensorView const& output, Slice const& params);

//! The input coordinate that `coordinate` reads under `mode` for an axis of `extent`; -1 means the fill
//! value. Throws where kSTRICT_BOUNDS is violated or an empty axis must be sampled.
int64_t sampleCoordinate(int64_t coordinate, int64_t extent, nvinfer1::SampleMode mode);

} // namespace kiln::cpu
