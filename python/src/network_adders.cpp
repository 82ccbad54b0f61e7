// INetworkDefinition's add_* methods beyond network.cpp's first ones, with TensorRT's Python names and argument order.
// Together they bind every add* call Kiln implements in C++ (tests/python/test_layer_bindings.py compares the two
// lists); the calls Kiln refuses (dynamic quantization, ...) have no binding.
#include "network_adders.h"

#include "dims_caster.h"
#include "weights.h"

namespace kiln::python
{

namespace
{

using namespace nvinfer1;
constexpr auto kInternal = py::return_value_policy::reference_internal;

void bindWeightedAdders(py::class_<INetworkDefinition>& network)
{
    // Weights not given are empty, as in TensorRT; the network keeps the given ones alive.
    network
        .def(
            "add_scale",
            [](INetworkDefinition& self, ITensor& input, ScaleMode mode, PyWeights const* shift, PyWeights const* scale,
                PyWeights const* power) {
                return self.addScale(
                    input, mode, PyWeights::orEmpty(shift), PyWeights::orEmpty(scale), PyWeights::orEmpty(power));
            },
            py::arg("input"), py::arg("mode"), py::arg("shift") = py::none(), py::arg("scale") = py::none(),
            py::arg("power") = py::none(), kInternal, py::keep_alive<1, 4>(), py::keep_alive<1, 5>(),
            py::keep_alive<1, 6>())
        .def(
            "add_scale_nd",
            [](INetworkDefinition& self, ITensor& input, ScaleMode mode, PyWeights const* shift, PyWeights const* scale,
                PyWeights const* power, int32_t channelAxis) {
                return self.addScaleNd(input, mode, PyWeights::orEmpty(shift), PyWeights::orEmpty(scale),
                    PyWeights::orEmpty(power), channelAxis);
            },
            py::arg("input"), py::arg("mode"), py::arg("shift") = py::none(), py::arg("scale") = py::none(),
            py::arg("power") = py::none(), py::arg("channel_axis"), kInternal, py::keep_alive<1, 4>(),
            py::keep_alive<1, 5>(), py::keep_alive<1, 6>())
        .def(
            "add_deconvolution_nd",
            [](INetworkDefinition& self, ITensor& input, int64_t maps, Dims const& kernelShape, PyWeights const& kernel,
                PyWeights const* bias) {
                return self.addDeconvolutionNd(input, maps, kernelShape, kernel.weights, PyWeights::orEmpty(bias));
            },
            py::arg("input"), py::arg("num_output_maps"), py::arg("kernel_shape"), py::arg("kernel"),
            py::arg("bias") = py::none(), kInternal, py::keep_alive<1, 5>(), py::keep_alive<1, 6>());
}

void bindComputeAdders(py::class_<INetworkDefinition>& network)
{
    // TensorRT's Python API spells the normalization's mask argument in C++'s camel case.
    network
        .def("add_normalization", &INetworkDefinition::addNormalization, py::arg("input"), py::arg("scale"),
            py::arg("bias"), py::arg("axesMask"), kInternal)
        .def("add_normalization_v2", &INetworkDefinition::addNormalizationV2, py::arg("input"), py::arg("scale"),
            py::arg("bias"), py::arg("axesMask"), kInternal)
        .def("add_parametric_relu", &INetworkDefinition::addParametricReLU, py::arg("input"), py::arg("slopes"),
            kInternal)
        .def("add_cumulative", &INetworkDefinition::addCumulative, py::arg("input"), py::arg("axis"), py::arg("op"),
            py::arg("exclusive"), py::arg("reverse"), kInternal)
        .def("add_grid_sample", &INetworkDefinition::addGridSample, py::arg("input"), py::arg("grid"), kInternal)
        .def("add_lrn", &INetworkDefinition::addLRN, py::arg("input"), py::arg("window"), py::arg("alpha"),
            py::arg("beta"), py::arg("k"), kInternal)
        // TensorRT's two forms: without output_type, INT8 (quantize) and FLOAT (dequantize).
        .def(
            "add_quantize",
            [](INetworkDefinition& self, ITensor& input, ITensor& scale) { return self.addQuantize(input, scale); },
            py::arg("input"), py::arg("scale"), kInternal)
        .def(
            "add_quantize",
            [](INetworkDefinition& self, ITensor& input, ITensor& scale, DataType outputType) {
                return self.addQuantize(input, scale, outputType);
            },
            py::arg("input"), py::arg("scale"), py::arg("output_type"), kInternal)
        .def(
            "add_dequantize",
            [](INetworkDefinition& self, ITensor& input, ITensor& scale) { return self.addDequantize(input, scale); },
            py::arg("input"), py::arg("scale"), kInternal)
        .def(
            "add_dequantize",
            [](INetworkDefinition& self, ITensor& input, ITensor& scale, DataType outputType) {
                return self.addDequantize(input, scale, outputType);
            },
            py::arg("input"), py::arg("scale"), py::arg("output_type"), kInternal)
        .def("add_attention", &INetworkDefinition::addAttention, py::arg("query"), py::arg("key"), py::arg("value"),
            py::arg("norm_op"), py::arg("causal"), kInternal)
        .def("add_if_conditional", &INetworkDefinition::addIfConditional, kInternal)
        .def("add_loop", &INetworkDefinition::addLoop, kInternal);
}

void bindIndexingAdders(py::class_<INetworkDefinition>& network)
{
    using NMS = INMSLayer* (INetworkDefinition::*) (ITensor&, ITensor&, ITensor&) noexcept;
    using TypedNMS = INMSLayer* (INetworkDefinition::*) (ITensor&, ITensor&, ITensor&, DataType) noexcept;
    using NonZero = INonZeroLayer* (INetworkDefinition::*) (ITensor&) noexcept;
    using TypedNonZero = INonZeroLayer* (INetworkDefinition::*) (ITensor&, DataType) noexcept;
    network
        .def("add_gather_v2", &INetworkDefinition::addGatherV2, py::arg("input"), py::arg("indices"), py::arg("mode"),
            kInternal)
        .def("add_scatter", &INetworkDefinition::addScatter, py::arg("data"), py::arg("indices"), py::arg("updates"),
            py::arg("mode"), kInternal)
        .def("add_one_hot", &INetworkDefinition::addOneHot, py::arg("indices"), py::arg("values"), py::arg("depth"),
            py::arg("axis"), kInternal)
        .def("add_non_zero", static_cast<NonZero>(&INetworkDefinition::addNonZero), py::arg("input"), kInternal)
        .def("add_non_zero", static_cast<TypedNonZero>(&INetworkDefinition::addNonZero), py::arg("input"),
            py::arg("indices_type"), kInternal)
        .def("add_nms", static_cast<NMS>(&INetworkDefinition::addNMS), py::arg("boxes"), py::arg("scores"),
            py::arg("max_output_boxes_per_class"), kInternal)
        .def("add_nms", static_cast<TypedNMS>(&INetworkDefinition::addNMS), py::arg("boxes"), py::arg("scores"),
            py::arg("max_output_boxes_per_class"), py::arg("indices_type"), kInternal)
        .def("add_reverse_sequence", &INetworkDefinition::addReverseSequence, py::arg("input"),
            py::arg("sequence_lens"), kInternal)
        .def("add_select", &INetworkDefinition::addSelect, py::arg("condition"), py::arg("then_input"),
            py::arg("else_input"), kInternal);
}

void bindShapingAdders(py::class_<INetworkDefinition>& network)
{
    using Fill = IFillLayer* (INetworkDefinition::*) (Dims const&, FillOperation, DataType) noexcept;
    network.def("add_resize", &INetworkDefinition::addResize, py::arg("input"), kInternal)
        .def("add_padding_nd", &INetworkDefinition::addPaddingNd, py::arg("input"), py::arg("pre_padding"),
            py::arg("post_padding"), kInternal)
        .def("add_fill", static_cast<Fill>(&INetworkDefinition::addFill), py::arg("shape"), py::arg("op"),
            py::arg("output_type") = DataType::kFLOAT, kInternal)
        .def("add_squeeze", &INetworkDefinition::addSqueeze, py::arg("input"), py::arg("axes"), kInternal)
        .def("add_unsqueeze", &INetworkDefinition::addUnsqueeze, py::arg("input"), py::arg("axes"), kInternal);
}

} // namespace

void bindMoreLayerAdders(py::class_<INetworkDefinition>& network)
{
    bindWeightedAdders(network);
    bindComputeAdders(network);
    bindIndexingAdders(network);
    bindShapingAdders(network);
}

} // namespace kiln::python
