// ILayer, and the choice of a layer's Python class by its kind, from Kiln's public list of layer interfaces.
#include "layers.h"
#include "bindings.h"
#include "dims_caster.h"

#include <kiln/LayerInterfaces.h>

#include <stdexcept>

namespace kiln::python
{

namespace
{

template <typename Interface>
py::object castAs(nvinfer1::ILayer* layer, py::handle network)
{
    if (auto* typed = dynamic_cast<Interface*>(layer))
    {
        return py::cast(typed, py::return_value_policy::reference_internal, network);
    }
    return py::cast(layer, py::return_value_policy::reference_internal, network);
}

} // namespace

py::object castLayer(nvinfer1::ILayer* layer, py::handle network)
{
    if (layer == nullptr)
    {
        return py::none();
    }
    switch (layer->getType())
    {
#define KILN_CAST_LAYER(Type, Class)                                                                                   \
    case nvinfer1::LayerType::Type: return castAs<nvinfer1::Class>(layer, network);
        KILN_FOR_EACH_LAYER_INTERFACE(KILN_CAST_LAYER)
#undef KILN_CAST_LAYER
    default: return py::cast(layer, py::return_value_policy::reference_internal, network);
    }
}

void bindLayers(py::module_& m)
{
    using nvinfer1::ILayer;
    py::class_<ILayer, std::unique_ptr<ILayer, py::nodelete>>(m, "ILayer", "A layer of a network.")
        .def_property("name", &ILayer::getName, &ILayer::setName)
        .def_property("metadata", &ILayer::getMetadata, &ILayer::setMetadata)
        .def_property("num_ranks", &ILayer::getNbRanks,
            [](ILayer& self, int32_t ranks) {
                if (!self.setNbRanks(ranks))
                {
                    throw std::runtime_error("num_ranks not set: a Kiln layer runs on one rank, so it must be 1");
                }
            })
        .def_property_readonly("type", &ILayer::getType)
        .def_property_readonly("num_inputs", &ILayer::getNbInputs)
        .def_property_readonly("num_outputs", &ILayer::getNbOutputs)
        .def_property("precision", &ILayer::getPrecision, &ILayer::setPrecision)
        .def_property_readonly("precision_is_set", &ILayer::precisionIsSet)
        .def("get_input", &ILayer::getInput, py::arg("index"), py::return_value_policy::reference_internal)
        .def("get_output", &ILayer::getOutput, py::arg("index"), py::return_value_policy::reference_internal)
        .def("set_input", &ILayer::setInput, py::arg("index"), py::arg("tensor"))
        .def("reset_precision", &ILayer::resetPrecision)
        .def("set_output_type", &ILayer::setOutputType, py::arg("index"), py::arg("dtype"))
        .def("get_output_type", &ILayer::getOutputType, py::arg("index"))
        .def("output_type_is_set", &ILayer::outputTypeIsSet, py::arg("index"))
        .def("reset_output_type", &ILayer::resetOutputType, py::arg("index"))
        .def("__repr__", [](ILayer const& self) {
            return "<" + py::str(py::cast(self.getType())).cast<std::string>() + " layer " + self.getName() + ">";
        });
    bindLayerInterfaces(m);
    bindMoreLayerInterfaces(m);
    bindNetworkObjects(m);
    // The class each LayerType's layers come as, for the tests that check every listed class and every
    // INetworkDefinition call that makes one has a binding; and the network's objects that are not layers.
    py::dict interfaces;
#define KILN_LIST_INTERFACE(Type, Class) interfaces[py::cast(nvinfer1::LayerType::Type)] = #Class;
    KILN_FOR_EACH_LAYER_INTERFACE(KILN_LIST_INTERFACE)
#undef KILN_LIST_INTERFACE
    m.attr("_layer_interfaces") = interfaces;
    py::list objects;
#define KILN_LIST_OBJECT(Class) objects.append(#Class);
    KILN_FOR_EACH_NETWORK_OBJECT(KILN_LIST_OBJECT)
#undef KILN_LIST_OBJECT
    m.attr("_network_objects") = objects;
}

} // namespace kiln::python
