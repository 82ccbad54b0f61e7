// Layers as Python objects of the TensorRT interface their kind implements.
#pragma once

#include <NvInfer.h>
#include <pybind11/pybind11.h>

namespace kiln::python
{

//! The layer as the interface class include/kiln/LayerInterfaces.h lists for its type (IConvolutionLayer, ...), ILayer
//! for a type it does not list.
//! The Python object keeps `network` alive: the network owns the layer.
pybind11::object castLayer(nvinfer1::ILayer* layer, pybind11::handle network);

} // namespace kiln::python

namespace kiln::python
{
//! layer_interfaces.cpp: the interfaces of the layer kinds (IActivationLayer, ...), after ILayer.
void bindLayerInterfaces(pybind11::module_& m);
//! layer_interfaces_more.cpp: the rest (IResizeLayer, IDeconvolutionLayer, ...) and their modes' enums.
void bindMoreLayerInterfaces(pybind11::module_& m);
//! network_objects.cpp: what addIfConditional and addAttention make: IIfConditional and its boundary layers,
//! IAttention and AttentionNormalizationOp.
void bindNetworkObjects(pybind11::module_& m);
} // namespace kiln::python
