// What INetworkDefinition.add_if_conditional, add_loop and add_attention make, with TensorRT's Python names:
// IIfConditional and ILoop with the boundary layers they add (and the loop's TripLimit and LoopOutput enums),
// IAttention and its normalization enum. None of these objects is a layer: the network owns it, and the Python object
// for it keeps the network alive, as a layer's does.
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

void bindLoop(py::module_& m)
{
    py::enum_<TripLimit>(m, "TripLimit", "What ends a loop: a trip count, or a condition that stops it when false.")
        .value("COUNT", TripLimit::kCOUNT)
        .value("WHILE", TripLimit::kWHILE);
    py::enum_<LoopOutput>(m, "LoopOutput", "What a loop output gives: the last value, or every iteration's stacked.")
        .value("LAST_VALUE", LoopOutput::kLAST_VALUE)
        .value("CONCATENATE", LoopOutput::kCONCATENATE)
        .value("REVERSE", LoopOutput::kREVERSE);
    BoundaryClass<ILoopBoundaryLayer, ILayer>(m, "ILoopBoundaryLayer", "A layer at the edge of a loop.")
        .def_property_readonly("loop", &ILoopBoundaryLayer::getLoop, kInternal);
    BoundaryClass<IRecurrenceLayer, ILoopBoundaryLayer>(
        m, "IRecurrenceLayer", "A value carried between iterations: input 0 the first, input 1 the next.");
    BoundaryClass<ITripLimitLayer, ILoopBoundaryLayer>(m, "ITripLimitLayer", "What ends the loop.")
        .def_property_readonly("kind", &ITripLimitLayer::getTripLimit);
    BoundaryClass<IIteratorLayer, ILoopBoundaryLayer>(
        m, "IIteratorLayer", "The slice of its input along an axis for the current iteration.")
        .def_property("axis", &IIteratorLayer::getAxis, &IIteratorLayer::setAxis)
        .def_property("reverse", &IIteratorLayer::getReverse, &IIteratorLayer::setReverse);
    BoundaryClass<ILoopOutputLayer, ILoopBoundaryLayer>(
        m, "ILoopOutputLayer", "How a value leaves the loop; input 1 is the stacked length.")
        .def_property_readonly("kind", &ILoopOutputLayer::getLoopOutput)
        .def_property("axis", &ILoopOutputLayer::getAxis, &ILoopOutputLayer::setAxis);
    py::class_<ILoop, std::unique_ptr<ILoop, py::nodelete>>(
        m, "ILoop", "A recurrent subgraph: the layers depending on its recurrences and iterators run per iteration.")
        .def("add_recurrence", &ILoop::addRecurrence, py::arg("initial_value"), kInternal)
        .def("add_trip_limit", &ILoop::addTripLimit, py::arg("tensor"), py::arg("kind"), kInternal)
        .def("add_iterator", &ILoop::addIterator, py::arg("tensor"), py::arg("axis") = 0, py::arg("reverse") = false,
            kInternal)
        .def("add_loop_output", &ILoop::addLoopOutput, py::arg("tensor"), py::arg("kind"), py::arg("axis") = 0,
            kInternal)
        .def_property("name", &ILoop::getName, &ILoop::setName);
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
    bindLoop(m);
    bindAttention(m);
}

} // namespace kiln::python
