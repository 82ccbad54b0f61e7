// IResizeLayer (ONNX Resize, Upsample).
//
// The output is given either as outputDimensions or as one scale per dim (output extent =
// floor(input extent * scale), and the scale itself drives the coordinate mapping, as ONNX specifies).
// Each output coordinate x maps to an input coordinate:
//   kHALF_PIXEL     (x + 0.5) / scale - 0.5
//   kASYMMETRIC     x / scale
//   kALIGN_CORNERS  x * (in - 1) / (out - 1)      (0 when out == 1)
// With selectorForSinglePixel = kUPPER an output extent of 1 maps to 0: kHALF_PIXEL + kUPPER is ONNX's
// "pytorch_half_pixel". kNEAREST rounds the coordinate with nearestRounding (kHALF_UP, kHALF_DOWN, kFLOOR,
// kCEIL); kLINEAR interpolates between the two neighbours of every resized dim (any number of dims);
// kCUBIC uses four neighbours per dim with cubicCoeff. Neighbours outside the input take the edge value,
// or with excludeOutside get weight 0 and the others are renormalised.
// kNEAREST copies bytes (every byte-addressable type); kLINEAR and kCUBIC read and write FP32/FP16/BF16.
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>

#include <vector>

namespace kiln::cpu
{

struct Resize
{
    Shape outputDimensions;    //!< set this, or scales
    std::vector<float> scales; //!< one per dim
    nvinfer1::InterpolationMode resizeMode{nvinfer1::InterpolationMode::kNEAREST};
    nvinfer1::ResizeCoordinateTransformation coordinateTransformation{
        nvinfer1::ResizeCoordinateTransformation::kASYMMETRIC};
    nvinfer1::ResizeSelector selectorForSinglePixel{nvinfer1::ResizeSelector::kFORMULA};
    nvinfer1::ResizeRoundMode nearestRounding{nvinfer1::ResizeRoundMode::kFLOOR};
    float cubicCoeff{-0.75f};
    bool excludeOutside{false};
};

Shape resizeOutputShape(Shape const& input, Resize const& params);

void resize(ConstTensorView const& input, TensorView const& output, Resize const& params);

} // namespace kiln::cpu
