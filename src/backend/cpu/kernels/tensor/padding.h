// IPaddingLayer, and the ONNX Pad modes it lacks.
//
// prePadding/postPadding apply to the innermost prePadding.size() dims (as IPaddingLayer::setPrePaddingNd;
// give one entry per dim for ONNX Pad). Negative amounts crop. The new elements are:
//   kCONSTANT  `value` (IPaddingLayer: 0)      kREFLECT  mirrored without repeating the edge
//   kEDGE      the nearest edge element         kWRAP     periodic (ONNX Pad-19 "wrap")
// Sampling is relative to the uncropped input. Copies bytes, so every byte-addressable type works.
#pragma once

#include "core/tensor_view.h"

#include <cstdint>

namespace kiln::cpu
{

//! Kiln's extension: IPaddingLayer itself is always kCONSTANT with value 0.
enum class PaddingMode : int32_t
{
    kCONSTANT = 0,
    kREFLECT = 1,
    kEDGE = 2,
    kWRAP = 3,
};

struct Padding
{
    Shape prePadding;
    Shape postPadding;
    PaddingMode mode{PaddingMode::kCONSTANT};
    double value{0.0}; //!< kCONSTANT fill, converted to the tensor's type
};

Shape paddingOutputShape(Shape const& input, Padding const& params);

void padding(ConstTensorView const& input, TensorView const& output, Padding const& params);

} // namespace kiln::cpu
