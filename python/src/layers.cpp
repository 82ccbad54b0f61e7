// ILayer, and the choice of a layer's Python class by its kind.
#include "layers.h"
#include "bindings.h"
#include "dims_caster.h"

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
    using nvinfer1::LayerType;
    if (layer == nullptr)
    {
        return py::none();
    }
    switch (layer->getType())
    {
    case LayerType::kACTIVATION: return castAs<nvinfer1::IActivationLayer>(layer, network);
    case LayerType::kELEMENTWISE: return castAs<nvinfer1::IElementWiseLayer>(layer, network);
    case LayerType::kUNARY: return castAs<nvinfer1::IUnaryLayer>(layer, network);
    case LayerType::kCONVOLUTION: return castAs<nvinfer1::IConvolutionLayer>(layer, network);
    case LayerType::kPOOLING: return castAs<nvinfer1::IPoolingLayer>(layer, network);
    case LayerType::kMATRIX_MULTIPLY: return castAs<nvinfer1::IMatrixMultiplyLayer>(layer, network);
    case LayerType::kCONSTANT: return castAs<nvinfer1::IConstantLayer>(layer, network);
    case LayerType::kSHUFFLE: return castAs<nvinfer1::IShuffleLayer>(layer, network);
    case LayerType::kSOFTMAX: return castAs<nvinfer1::ISoftMaxLayer>(layer, network);
    case LayerType::kREDUCE: return castAs<nvinfer1::IReduceLayer>(layer, network);
    case LayerType::kCONCATENATION: return castAs<nvinfer1::IConcatenationLayer>(layer, network);
    case LayerType::kIDENTITY: return castAs<nvinfer1::IIdentityLayer>(layer, network);
    case LayerType::kCAST: return castAs<nvinfer1::ICastLayer>(layer, network);
    case LayerType::kSLICE: return castAs<nvinfer1::ISliceLayer>(layer, network);
    case LayerType::kSHAPE: return castAs<nvinfer1::IShapeLayer>(layer, network);
    case LayerType::kGATHER: return castAs<nvinfer1::IGatherLayer>(layer, network);
    case LayerType::kTOPK: return castAs<nvinfer1::ITopKLayer>(layer, network);
    case LayerType::kPLUGIN_V2: return castAs<nvinfer1::IPluginV2Layer>(layer, network);
    case LayerType::kPLUGIN_V3: return castAs<nvinfer1::IPluginV3Layer>(layer, network);
    case LayerType::kRESIZE: return castAs<nvinfer1::IResizeLayer>(layer, network);
    case LayerType::kDECONVOLUTION: return castAs<nvinfer1::IDeconvolutionLayer>(layer, network);
    case LayerType::kSCALE: return castAs<nvinfer1::IScaleLayer>(layer, network);
    case LayerType::kNORMALIZATION: return castAs<nvinfer1::INormalizationLayer>(layer, network);
    case LayerType::kPADDING: return castAs<nvinfer1::IPaddingLayer>(layer, network);
    case LayerType::kSELECT: return castAs<nvinfer1::ISelectLayer>(layer, network);
    case LayerType::kFILL: return castAs<nvinfer1::IFillLayer>(layer, network);
    case LayerType::kSCATTER: return castAs<nvinfer1::IScatterLayer>(layer, network);
    case LayerType::kGRID_SAMPLE: return castAs<nvinfer1::IGridSampleLayer>(layer, network);
    case LayerType::kONE_HOT: return castAs<nvinfer1::IOneHotLayer>(layer, network);
    case LayerType::kNON_ZERO: return castAs<nvinfer1::INonZeroLayer>(layer, network);
    case LayerType::kNMS: return castAs<nvinfer1::INMSLayer>(layer, network);
    case LayerType::kREVERSE_SEQUENCE: return castAs<nvinfer1::IReverseSequenceLayer>(layer, network);
    case LayerType::kCUMULATIVE: return castAs<nvinfer1::ICumulativeLayer>(layer, network);
    default: return py::cast(layer, py::return_value_policy::reference_internal, network);
    }
}

void bindLayers(py::module_& m)
{
    using nvinfer1::ILayer;
    py::class_<ILayer, std::unique_ptr<ILayer, py::nodelete>>(m, "ILayer", "A layer of a network.")
        .def_property("name", &ILayer::getName, &ILayer::setName)
        .def_property("metadata", &ILayer::getMetadata, &ILayer::setMetadata)
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
}

} // namespace kiln::python
