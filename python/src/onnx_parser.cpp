// OnnxParser (onnx-tensorrt's API on Kiln's parser), ParserError and ErrorCode. A failed parse returns False, as in
// TensorRT, and the errors say why: get_error(i).desc(), or str(get_error(i)) for the whole report.
#include "bindings.h"
#include "error_capture.h"
#include "logger.h"

#include <NvOnnxParser.h>

#include <memory>
#include <string>

namespace kiln::python
{

namespace
{

using nvonnxparser::IParser;
using nvonnxparser::IParserError;

std::string describe(IParserError const& error)
{
    std::string text = "In node " + std::to_string(error.node());
    if (error.nodeName() != nullptr && *error.nodeName() != '\0')
    {
        text += " with name: " + std::string(error.nodeName());
    }
    if (error.nodeOperator() != nullptr && *error.nodeOperator() != '\0')
    {
        text += " and operator: " + std::string(error.nodeOperator());
    }
    text += " (" + std::string(error.func() != nullptr ? error.func() : "?")
        + "): " + nvonnxparser::errorCodeStr(error.code()) + ": " + (error.desc() != nullptr ? error.desc() : "");
    return text;
}

void bindParserError(py::module_& m)
{
    using nvonnxparser::ErrorCode;
    py::enum_<ErrorCode>(m, "ErrorCode", "Why an ONNX parse failed.")
        .value("SUCCESS", ErrorCode::kSUCCESS)
        .value("INTERNAL_ERROR", ErrorCode::kINTERNAL_ERROR)
        .value("MEM_ALLOC_FAILED", ErrorCode::kMEM_ALLOC_FAILED)
        .value("MODEL_DESERIALIZE_FAILED", ErrorCode::kMODEL_DESERIALIZE_FAILED)
        .value("INVALID_VALUE", ErrorCode::kINVALID_VALUE)
        .value("INVALID_GRAPH", ErrorCode::kINVALID_GRAPH)
        .value("INVALID_NODE", ErrorCode::kINVALID_NODE)
        .value("UNSUPPORTED_GRAPH", ErrorCode::kUNSUPPORTED_GRAPH)
        .value("UNSUPPORTED_NODE", ErrorCode::kUNSUPPORTED_NODE)
        .value("UNSUPPORTED_NODE_ATTR", ErrorCode::kUNSUPPORTED_NODE_ATTR)
        .value("UNSUPPORTED_NODE_INPUT", ErrorCode::kUNSUPPORTED_NODE_INPUT)
        .value("UNSUPPORTED_NODE_DATATYPE", ErrorCode::kUNSUPPORTED_NODE_DATATYPE)
        .value("UNSUPPORTED_NODE_DYNAMIC", ErrorCode::kUNSUPPORTED_NODE_DYNAMIC)
        .value("UNSUPPORTED_NODE_SHAPE", ErrorCode::kUNSUPPORTED_NODE_SHAPE)
        .value("REFIT_FAILED", ErrorCode::kREFIT_FAILED);

    py::enum_<nvonnxparser::OnnxParserFlag>(m, "OnnxParserFlag", "Options of the ONNX parser.")
        .value("NATIVE_INSTANCENORM", nvonnxparser::OnnxParserFlag::kNATIVE_INSTANCENORM)
        .value("ENABLE_UINT8_AND_ASYMMETRIC_QUANTIZATION_DLA",
            nvonnxparser::OnnxParserFlag::kENABLE_UINT8_AND_ASYMMETRIC_QUANTIZATION_DLA)
        .value("REPORT_CAPABILITY_DLA", nvonnxparser::OnnxParserFlag::kREPORT_CAPABILITY_DLA)
        .value("ENABLE_PLUGIN_OVERRIDE", nvonnxparser::OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE)
        .value("ADJUST_FOR_DLA", nvonnxparser::OnnxParserFlag::kADJUST_FOR_DLA);

    py::class_<IParserError, std::unique_ptr<IParserError, py::nodelete>>(m, "ParserError", "One parse error.")
        .def("code", &IParserError::code)
        .def("desc", &IParserError::desc)
        .def("file", &IParserError::file)
        .def("func", &IParserError::func)
        .def("line", &IParserError::line)
        .def("node", &IParserError::node)
        .def("node_name", &IParserError::nodeName)
        .def("node_operator", &IParserError::nodeOperator)
        .def("__str__", &describe)
        .def("__repr__", &describe);
}

IParser* createOnnxParser(nvinfer1::INetworkDefinition& network, PythonLogger& logger)
{
    return createdOrRaise(
        "OnnxParser: Kiln could not create a parser", [&] { return nvonnxparser::createParser(network, logger); });
}

void bindParser(py::module_& m)
{
    py::class_<IParser> parser(m, "OnnxParser", "Fills a network from ONNX models.");
    parser
        .def(py::init(&createOnnxParser), py::arg("network"), py::arg("logger"), py::keep_alive<1, 2>(),
            py::keep_alive<1, 3>())
        .def(
            "parse",
            [](IParser& self, py::buffer model, py::object path) {
                py::buffer_info const info = model.request();
                std::string const folder = path.is_none() ? std::string() : path.cast<std::string>();
                py::gil_scoped_release release;
                return self.parse(info.ptr, static_cast<size_t>(info.size * info.itemsize),
                    path.is_none() ? nullptr : folder.c_str());
            },
            py::arg("model"), py::arg("path") = py::none(),
            "Parses a serialized model; path locates external weights. False on failure (see get_error).")
        .def(
            "parse_from_file",
            [](IParser& self, std::string const& model) {
                py::gil_scoped_release release;
                return self.parseFromFile(model.c_str(), static_cast<int>(nvinfer1::ILogger::Severity::kWARNING));
            },
            py::arg("model"), "Parses a model file. False on failure (see get_error).")
        .def("supports_operator", &IParser::supportsOperator, py::arg("op_name"))
        .def_property_readonly("num_errors", &IParser::getNbErrors)
        .def("get_error", &IParser::getError, py::arg("index"), py::return_value_policy::reference_internal)
        .def("clear_errors", &IParser::clearErrors)
        .def_property("flags", &IParser::getFlags, &IParser::setFlags)
        .def("set_flag", &IParser::setFlag, py::arg("flag"))
        .def("clear_flag", &IParser::clearFlag, py::arg("flag"))
        .def("get_flag", &IParser::getFlag, py::arg("flag"))
        .def("set_builder_config", &IParser::setBuilderConfig, py::arg("builder_config"),
            "The configuration REPORT_CAPABILITY_DLA checks nodes against (Kiln has no DLA: such a parse fails).");
    defineContextManager(parser);
}

} // namespace

void bindOnnxParser(py::module_& m)
{
    bindParserError(m);
    bindParser(m);
}

} // namespace kiln::python
