// trt.IPluginResource, which Python subclasses implement (clone, release), and the registry's
// acquire_plugin_resource / release_plugin_resource, through which plugins share one object per key.
#pragma once

#include <NvInferRuntime.h>
#include <pybind11/pybind11.h>

#include <memory>

namespace kiln::python
{

//! Binds trt.IPluginResource.
void bindPluginResource(pybind11::module_& m);

//! Adds acquire_plugin_resource and release_plugin_resource to trt.IPluginRegistry.
void bindPluginResourceMethods(
    pybind11::class_<nvinfer1::IPluginRegistry, std::unique_ptr<nvinfer1::IPluginRegistry, pybind11::nodelete>>&
        registry);

} // namespace kiln::python
