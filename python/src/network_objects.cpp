// What INetworkDefinition.add_if_conditional and add_attention make, with TensorRT's Python names: IIfConditional and
// the boundary layers it adds, IAttention and its normalization enum. Neither object is a layer: the network owns it,
// and the Python object for it keeps the network alive, as a layer's does.
#include "bindings.h"
#include "layers.h"

#include <stdexcept>

namespace kiln::python
{

namespace
{

using namespace nvinfer1;
constexpr auto kInternal = py::return_value_policy::reference_internal;

template <typename Layer, typename Base>
using BoundaryClass = py::class_<Layer, Base, std::unique_ptr<Layer, py::nodelete>>;

void bindConditional(py::module_& m)
{
    BoundaryClass<IIfConditionalBoundaryLayer, ILayer>(
        m, "IIfConditionalBoundaryLayer", "A layer at the edge of an if-conditional.")
        .def_property_readonly("conditional", &IIfConditionalBoundaryLayer::getConditional, kInternal);
    BoundaryClass<IConditionLayer, IIfConditionalBoundaryLayer>(
        m, "IConditionLayer", "The conditional's predicate: a 0-D BOOL tensor.");
    BoundaryClass<IIfConditionalOutputLayer, IIfConditionalBoundaryLayer>(
        m, "IIfConditionalOutputLayer", "An output of the conditional: the tensor of the branch taken.");
    BoundaryClass<IIfConditionalInputLayer, IIfConditionalBoundaryLayer>(
        m, "IIfConditionalInputLayer", "An input of the conditional's branches.");
    py::class_<IIfConditional, std::unique_ptr<IIfConditional, py::nodelete>>(
        m, "IIfConditional", "An if-then-else: each output is the true branch's tensor if the condition holds.")
        .def("set_condition", &IIfConditional::setCondition, py::arg("condition"), kInternal)
        .def("add_output", &IIfConditional::addOutput, py::arg("true_subgraph_output"),
            py::arg("false_subgraph_output"), kInternal)
        .def("add_input", &IIfConditional::addInput, py::arg("input"), kInternal)
        .def_property("name", &IIfConditional::getName, &IIfConditional::setName);
}

void bindAttention(py::module_& m)
{
    py::enum_<AttentionNormalizationOp>(m, "AttentionNormalizationOp", "How an attention normalizes its scores.")
        .value("NONE", AttentionNormalizationOp::kNONE)
        .value("SOFTMAX", AttentionNormalizationOp::kSOFTMAX);
    // Setters that Kiln refuses (a result that would not build) log an error and change nothing, as in C++; the
    // normalization, like TensorRT's binding, raises.
    py::class_<IAttention, std::unique_ptr<IAttention, py::nodelete>>(
        m, "IAttention", "Scaled-dot-product attention, which Kiln builds from ordinary layers.")
        .def_property("norm_op", &IAttention::getNormalizationOperation,
            [](IAttention& self, AttentionNormalizationOp op) {
                if (!self.setNormalizationOperation(op))
                {
                    throw std::runtime_error("the attention's normalization was not changed (see the logged error)");
                }
            })
        .def_property("mask", &IAttention::getMask, &IAttention::setMask, kInternal)
        .def_property("causal", &IAttention::getCausal, &IAttention::setCausal)
        .def_property("decomposable", &IAttention::getDecomposable, &IAttention::setDecomposable)
        .def_property("name", &IAttention::getName, &IAttention::setName)
        .def_property("metadata", &IAttention::getMetadata, &IAttention::setMetadata)
        .def_property("normalization_quantize_scale", &IAttention::getNormalizationQuantizeScale,
            &IAttention::setNormalizationQuantizeScale, kInternal)
        .def_property("normalization_quantize_to_type", &IAttention::getNormalizationQuantizeToType,
            &IAttention::setNormalizationQuantizeToType)
        .def_property("num_ranks", &IAttention::getNbRanks,
            [](IAttention& self, int32_t ranks) {
                if (!self.setNbRanks(ranks))
                {
                    throw std::runtime_error("num_ranks not set: a Kiln attention runs on one rank, so it must be 1");
                }
            })
        .def_property_readonly("num_inputs", &IAttention::getNbInputs)
        .def_property_readonly("num_outputs", &IAttention::getNbOutputs)
        .def("set_input", &IAttention::setInput, py::arg("index"), py::arg("tensor"))
        .def("get_input", &IAttention::getInput, py::arg("index"), kInternal)
        .def("get_output", &IAttention::getOutput, py::arg("index"), kInternal);
}

} // namespace

void bindNetworkObjects(py::module_& m)
{
    bindConditional(m);
    bindAttention(m);
}

} // namespace kiln::python
