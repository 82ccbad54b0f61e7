// INetworkDefinition and NetworkDefinitionCreationFlag. Layers and tensors belong to the network: the objects Python
// gets for them keep it alive (reference_internal), and it keeps alive the Weights its layers were given.
#include "bindings.h"
#include "callbacks.h"
#include "dims_caster.h"
#include "layers.h"
#include "network_adders.h"
#include "weights.h"

#include <pybind11/stl.h>

#include <vector>

namespace kiln::python
{

namespace
{

using namespace nvinfer1;
constexpr auto kInternal = py::return_value_policy::reference_internal;

void bindNetworkStructure(py::class_<INetworkDefinition>& network)
{
    network
        .def("add_input", &INetworkDefinition::addInput, py::arg("name"), py::arg("dtype"), py::arg("shape"), kInternal,
            "Adds a network input; -1 marks an extent given at run time (optimization profiles bound it).")
        .def("mark_output", &INetworkDefinition::markOutput, py::arg("tensor"))
        .def("unmark_output", &INetworkDefinition::unmarkOutput, py::arg("tensor"))
        .def("mark_debug", &INetworkDefinition::markDebug, py::arg("tensor"),
            "Keeps the tensor as itself through the build and lets a context give its values to its IDebugListener.")
        .def("unmark_debug", &INetworkDefinition::unmarkDebug, py::arg("tensor"))
        .def("is_debug_tensor", &INetworkDefinition::isDebugTensor, py::arg("tensor"))
        .def(
            "set_weights_name",
            [](INetworkDefinition& self, PyWeights const& weights, std::string const& name) {
                return self.setWeightsName(weights.weights, name.c_str());
            },
            py::arg("weights"), py::arg("name"), "Names weights (by their memory) for Refitter.set_named_weights.")
        .def(
            "mark_weights_refittable",
            [](INetworkDefinition& self, std::string const& name) { return self.markWeightsRefittable(name.c_str()); },
            py::arg("name"))
        .def(
            "unmark_weights_refittable",
            [](INetworkDefinition& self, std::string const& name) {
                return self.unmarkWeightsRefittable(name.c_str());
            },
            py::arg("name"))
        .def(
            "are_weights_marked_refittable",
            [](INetworkDefinition const& self, std::string const& name) {
                return self.areWeightsMarkedRefittable(name.c_str());
            },
            py::arg("name"))
        .def("mark_unfused_tensors_as_debug_tensors", &INetworkDefinition::markUnfusedTensorsAsDebugTensors)
        .def("unmark_unfused_tensors_as_debug_tensors", &INetworkDefinition::unmarkUnfusedTensorsAsDebugTensors)
        .def_property_readonly("num_layers", &INetworkDefinition::getNbLayers)
        .def_property_readonly("num_inputs", &INetworkDefinition::getNbInputs)
        .def_property_readonly("num_outputs", &INetworkDefinition::getNbOutputs)
        .def_property("name", &INetworkDefinition::getName, &INetworkDefinition::setName)
        .def_property_readonly("flags", &INetworkDefinition::getFlags)
        .def("get_flag", &INetworkDefinition::getFlag, py::arg("flag"))
        .def_property_readonly("has_implicit_batch_dimension", [](INetworkDefinition const&) { return false; })
        .def("get_input", &INetworkDefinition::getInput, py::arg("index"), kInternal)
        .def("get_output", &INetworkDefinition::getOutput, py::arg("index"), kInternal)
        .def(
            "get_layer",
            [](py::object self, int32_t index) {
                return castLayer(self.cast<INetworkDefinition&>().getLayer(index), self);
            },
            py::arg("index"))
        .def("remove_tensor", &INetworkDefinition::removeTensor, py::arg("tensor"))
        .def("__len__", &INetworkDefinition::getNbLayers)
        .def(
            "__getitem__",
            [](py::object self, int32_t index) {
                auto& net = self.cast<INetworkDefinition&>();
                int32_t const position = index < 0 ? index + net.getNbLayers() : index;
                if (position < 0 || position >= net.getNbLayers())
                {
                    throw py::index_error("layer index " + std::to_string(index) + " out of range");
                }
                return castLayer(net.getLayer(position), self);
            },
            py::arg("index"));
}

void bindComputeLayerAdders(py::class_<INetworkDefinition>& network)
{
    network.def("add_activation", &INetworkDefinition::addActivation, py::arg("input"), py::arg("type"), kInternal)
        .def("add_elementwise", &INetworkDefinition::addElementWise, py::arg("input1"), py::arg("input2"),
            py::arg("op"), kInternal)
        .def("add_unary", &INetworkDefinition::addUnary, py::arg("input"), py::arg("op"), kInternal)
        .def("add_softmax", &INetworkDefinition::addSoftMax, py::arg("input"), kInternal)
        .def("add_reduce", &INetworkDefinition::addReduce, py::arg("input"), py::arg("op"), py::arg("axes"),
            py::arg("keep_dims"), kInternal)
        .def("add_matrix_multiply", &INetworkDefinition::addMatrixMultiply, py::arg("input0"), py::arg("op0"),
            py::arg("input1"), py::arg("op1"), kInternal)
        .def("add_topk", py::overload_cast<ITensor&, TopKOperation, int32_t, uint32_t>(&INetworkDefinition::addTopK),
            py::arg("input"), py::arg("op"), py::arg("k"), py::arg("axes"), kInternal)
        .def("add_topk",
            py::overload_cast<ITensor&, TopKOperation, int32_t, uint32_t, DataType>(&INetworkDefinition::addTopK),
            py::arg("input"), py::arg("op"), py::arg("k"), py::arg("axes"), py::arg("indices_type"), kInternal)
        .def(
            "add_convolution_nd",
            [](INetworkDefinition& self, ITensor& input, int64_t maps, Dims const& kernelShape, PyWeights const& kernel,
                PyWeights const* bias) {
                return self.addConvolutionNd(input, maps, kernelShape, kernel.weights, PyWeights::orEmpty(bias));
            },
            py::arg("input"), py::arg("num_output_maps"), py::arg("kernel_shape"), py::arg("kernel"),
            py::arg("bias") = py::none(), kInternal, py::keep_alive<1, 5>(), py::keep_alive<1, 6>())
        .def("add_pooling_nd", &INetworkDefinition::addPoolingNd, py::arg("input"), py::arg("type"),
            py::arg("window_size"), kInternal);
}

void bindDataLayerAdders(py::class_<INetworkDefinition>& network)
{
    network
        .def(
            "add_constant",
            [](INetworkDefinition& self, Dims const& shape, PyWeights const& weights) {
                return self.addConstant(shape, weights.weights);
            },
            py::arg("shape"), py::arg("weights"), kInternal, py::keep_alive<1, 3>())
        .def("add_shuffle", &INetworkDefinition::addShuffle, py::arg("input"), kInternal)
        .def(
            "add_concatenation",
            [](INetworkDefinition& self, std::vector<ITensor*> const& inputs) {
                return self.addConcatenation(inputs.data(), static_cast<int32_t>(inputs.size()));
            },
            py::arg("inputs"), kInternal)
        .def("add_identity", &INetworkDefinition::addIdentity, py::arg("input"), kInternal)
        .def("add_cast", &INetworkDefinition::addCast, py::arg("input"), py::arg("to_type"), kInternal)
        .def("add_shape", &INetworkDefinition::addShape, py::arg("input"), kInternal)
        .def("add_slice", &INetworkDefinition::addSlice, py::arg("input"), py::arg("start"), py::arg("shape"),
            py::arg("stride"), kInternal)
        .def("add_gather", &INetworkDefinition::addGather, py::arg("input"), py::arg("indices"), py::arg("axis"),
            kInternal);
}

void bindPluginLayerAdders(py::class_<INetworkDefinition>& network)
{
    // The network builds from its own clone, but the layer's plugin property is the caller's object (as in
    // TensorRT): the network keeps it alive.
    network
        .def(
            "add_plugin_v2",
            [](INetworkDefinition& self, std::vector<ITensor*> const& inputs, IPluginV2& plugin) {
                return self.addPluginV2(inputs.data(), static_cast<int32_t>(inputs.size()), plugin);
            },
            py::arg("inputs"), py::arg("plugin"), kInternal, py::keep_alive<1, 3>())
        .def(
            "add_plugin_v3",
            [](INetworkDefinition& self, std::vector<ITensor*> const& inputs, std::vector<ITensor*> const& shapeInputs,
                IPluginV3& plugin) {
                return self.addPluginV3(inputs.data(), static_cast<int32_t>(inputs.size()), shapeInputs.data(),
                    static_cast<int32_t>(shapeInputs.size()), plugin);
            },
            py::arg("inputs"), py::arg("shape_inputs"), py::arg("plugin"), kInternal, py::keep_alive<1, 4>());
}

} // namespace

void bindNetwork(py::module_& m)
{
    py::enum_<NetworkDefinitionCreationFlag>(m, "NetworkDefinitionCreationFlag", "Flags of Builder.create_network.")
        .value("EXPLICIT_BATCH", NetworkDefinitionCreationFlag::kEXPLICIT_BATCH)
        .value("STRONGLY_TYPED", NetworkDefinitionCreationFlag::kSTRONGLY_TYPED)
        .value("PREFER_AOT_PYTHON_PLUGINS", NetworkDefinitionCreationFlag::kPREFER_AOT_PYTHON_PLUGINS)
        .value("PREFER_JIT_PYTHON_PLUGINS", NetworkDefinitionCreationFlag::kPREFER_JIT_PYTHON_PLUGINS);

    py::class_<INetworkDefinition> network(m, "INetworkDefinition", "The graph a builder builds, layer by layer.");
    defineContextManager(network);
    defineErrorRecorderProperty<INetworkDefinition>(network);
    bindNetworkStructure(network);
    bindComputeLayerAdders(network);
    bindDataLayerAdders(network);
    bindPluginLayerAdders(network);
    bindMoreLayerAdders(network);
}

} // namespace kiln::python
