// Plugins and creators as Python objects. Kiln's objects are of C++ classes the extension does not know, so pybind11
// would show them as the declared type: these helpers pick the TensorRT interface each one implements.
#pragma once

#include <NvInferRuntime.h>
#include <pybind11/pybind11.h>

namespace kiln::python
{

//! Destroys a V2 plugin the way its interface says (destroy(), not delete), for the plugins Python owns.
struct PluginV2Destroyer
{
    void operator()(nvinfer1::IPluginV2* plugin) const
    {
        if (plugin != nullptr)
        {
            plugin->destroy();
        }
    }
};

//! A creator from the registry (which owns it) as IPluginCreator or IPluginCreatorV3One.
pybind11::object castCreator(nvinfer1::IPluginCreatorInterface* creator);

} // namespace kiln::python
