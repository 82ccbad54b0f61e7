// IPaddingLayer, and the ONNX Pad modes it lacks.
//
// prePadding/postPadding apply to the innermost prePadding.nbDims dims (as IPaddingLayer::setPrePaddingNd;
// give one entry per dim for ONNX Pad). Negative amounts crop. IPaddingLayer's new elements are 0; Kiln's
// extension samples them as a slice does (slice.h), relative to the uncropped input:
//   kFILL   `fillValue`                           kREFLECT  mirrored without repeating the edge (ONNX "reflect")
//   kCLAMP  the nearest edge element (ONNX "edge")  kWRAP     periodic (ONNX Pad-19 "wrap")
// Copies bytes, so every byte-addressable type works.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/padding.h"

#include <NvInferLayerEnums.h>

namespace kiln::cpu
{

Shape paddingOutputShape(Shape const& input, network::PaddingParams const& params);

//! IPaddingLayer: the new elements are 0.
void padding(ConstTensorView const& input, TensorView const& output, network::PaddingParams const& params);

//! Kiln's extension: the new elements are sampled under `mode`; fillValue (kFILL) is converted to the tensor's type.
void padding(ConstTensorView const& input, TensorView const& output, network::PaddingParams const& params,
    nvinfer1::SampleMode mode, double fillValue);

} // namespace kiln::cpu
