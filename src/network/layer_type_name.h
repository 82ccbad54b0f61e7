// TensorRT's layer kinds by name, for what Kiln reports about an engine.
#pragma once

#include <NvInferNetwork.h>

namespace kiln::network
{

//! "Convolution", "ElementWise", "PluginV2", ...; "Unknown" for a value outside the enum.
char const* layerTypeName(nvinfer1::LayerType type);

} // namespace kiln::network
