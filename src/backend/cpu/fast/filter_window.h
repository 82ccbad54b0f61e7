// Where a convolution's or deconvolution's window falls, as oneDNN describes it: from the reference's geometry
// (backend/shared/kernel_geometry.h), so that both paths settle padding modes the same way.
#pragma once

#include "backend/shared/kernel_geometry.h"

#include <dnnl.hpp>

namespace kiln::cpu::fast
{

struct FilterWindow
{
    dnnl::memory::dims strides;
    dnnl::memory::dims dilation; //!< oneDNN counts the gaps between taps: the layer's dilation - 1
    dnnl::memory::dims before;
    //! What the output size needs, which oneDNN checks: more than the layer's post-padding where kEXPLICIT_ROUND_UP
    //! rounds the output up. Negative where a deconvolution's output is extended (ONNX's output_padding).
    dnnl::memory::dims after;
};

FilterWindow filterWindow(network::WindowedFilterParams const& params, backend::WindowDirection direction,
    Shape const& inputShape, Shape const& outputShape);

//! The filter's weights as oneDNN groups them, checked to hold as many values as the reference expects (throws
//! std::invalid_argument naming `layer` otherwise): a convolution's [K, C, k...] or [G, K / G, C / G, k...], row
//! major; a deconvolution's weights are stored [C, K / G, k...], which is oneDNN's iohw (giohw).
dnnl::memory::desc filterWeights(
    network::WindowedFilterParams const& params, backend::WindowDirection direction, int64_t inputChannels);

} // namespace kiln::cpu::fast
