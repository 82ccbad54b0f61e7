// Empty parameters of a layer kind, to be filled by LayerParams::read when a plan is loaded.
#pragma once

#include "network/layer.h"

#include <memory>

namespace kiln::network
{

//! nullptr for a kind Kiln does not implement.
std::unique_ptr<LayerParams> makeLayerParams(nvinfer1::LayerType type);

} // namespace kiln::network
