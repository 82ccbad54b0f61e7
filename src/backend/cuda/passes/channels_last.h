// The builder's choice of tensor formats for CUDA plans. FP16 convolutions run on tensor cores fastest with
// channels-last data (cuDNN's NHWC, TensorRT's kHWC); stored NCHW, cuDNN would transpose every convolution's input and
// output on the way. So the FP16 2-D convolutions, and the element-wise (broadcasts included: a squeeze-and-excitation
// scale), activation, pooling and concatenation layers between them, read and write kHWC tensors; reductions read
// them as they are; other layers, plugins and the network's I/O stay kLINEAR, and the backend's reformatter converts
// at the edges of each channels-last region. Quantized convolutions start regions too, on INT8: their kernel reads a
// window's channels as one run, and a 1x1 one its input in place. A convolution whose channels are not a multiple of
// 8 (an RGB image) reads its input as kHWC8, the channels padded with zeros, which the reformatter writes.
// Shuffles read a kHWC input as it is stored, and write kHWC where that moves no element and
// their readers join a region: the permutes around a LayerNorm over channels (ConvNeXt's)
// then become views rather than conversions and transposes. Which part a layer takes is its
// kind's fact, declared with the kind's description (network::LayerParams::channelsLast).
#pragma once

#include "plan/plan_model.h"

namespace kiln::cuda
{

//! Sets the formats of `model`'s tensors, and the formats each layer reads and writes where they differ from its
//! tensors'. Runs after the convolution fusions (a fused layer keeps its residual in the output's format) and before
//! the convolutions are timed (the timing depends on the format).
void chooseChannelsLast(plan::PlanModel& model);

//! Undoes chooseChannelsLast: every tensor kLINEAR, and no layer reads or writes another format.
void storeLinear(plan::PlanModel& model);

} // namespace kiln::cuda
