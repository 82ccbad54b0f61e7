// An IScaleLayer on the device: the executor uploads packScaleWeights once per context (as it does a
// constant's weights), and every run reads them there.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/scale.h"

#include <cuda_runtime_api.h>

#include <vector>

namespace kiln::cuda
{

//! The shift, scale and power weights as floats, one list after the other (absent ones take no room).
std::vector<float> packScaleWeights(network::ScaleParams const& params);

//! Runs the layer reading `packed`: device memory holding packScaleWeights(params).
void runScaleLayerOnDevice(network::ScaleParams const& params, void const* packed, ConstTensorView const& input,
    TensorView const& output, cudaStream_t stream);

} // namespace kiln::cuda
