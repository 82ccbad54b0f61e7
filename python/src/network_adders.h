// The part of INetworkDefinition's binding that network_adders.cpp holds.
#pragma once

#include "bindings.h"

#include <NvInfer.h>

namespace kiln::python
{

//! The add_* methods beyond network.cpp's (resize, scale, deconvolution, normalization, conditionals, attention, ...).
void bindMoreLayerAdders(py::class_<nvinfer1::INetworkDefinition>& network);

} // namespace kiln::python
