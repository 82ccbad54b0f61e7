// Refitter, OnnxParserRefitter and WeightsRole: new weights for an engine built with BuilderFlag.REFIT (or
// REFIT_INDIVIDUAL), given as numpy arrays (copied when set), by name or by layer and role, or from an ONNX model.
#include "bindings.h"
#include "error_capture.h"
#include "logger.h"
#include "weights.h"

#include <NvOnnxParser.h>

#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kiln::python
{
namespace
{

using nvinfer1::IRefitter;
using nvinfer1::WeightsRole;
using nvonnxparser::IParserRefitter;

IRefitter* createRefitter(nvinfer1::ICudaEngine& engine, PythonLogger& logger)
{
    IRefitter* refitter = nvinfer1::createInferRefitter(engine, logger);
    if (refitter == nullptr)
    {
        throw std::runtime_error("Refitter: the engine is not refittable; build it with BuilderFlag.REFIT, or "
                                 "REFIT_INDIVIDUAL and INetworkDefinition.mark_weights_refittable");
    }
    return refitter;
}

//! The names a getAll/getMissing-style call lists: it is asked for the count first, then for that many.
template <typename Call>
std::vector<std::string> names(Call&& call)
{
    std::vector<char const*> found(static_cast<size_t>(call(0, nullptr)));
    call(static_cast<int32_t>(found.size()), found.data());
    return std::vector<std::string>(found.begin(), found.end());
}

//! (layer names, roles) as getAll and getMissing list them.
template <typename Call>
std::pair<std::vector<std::string>, std::vector<WeightsRole>> layersAndRoles(Call&& call)
{
    auto const count = static_cast<size_t>(call(0, nullptr, nullptr));
    std::vector<char const*> layers(count);
    std::vector<WeightsRole> roles(count);
    call(static_cast<int32_t>(count), layers.data(), roles.data());
    return {std::vector<std::string>(layers.begin(), layers.end()), roles};
}

IParserRefitter* createParserRefitter(IRefitter& refitter, PythonLogger& logger)
{
    return createdOrRaise("OnnxParserRefitter: Kiln could not create one",
        [&] { return nvonnxparser::createParserRefitter(refitter, logger); });
}

void bindRefitter(py::module_& m)
{
    py::class_<IRefitter> refitter(m, "Refitter", "Replaces the weights of a refittable engine.");
    refitter
        .def(py::init(&createRefitter), py::arg("engine"), py::arg("logger"), py::keep_alive<1, 2>(),
            py::keep_alive<1, 3>())
        .def(
            "set_weights",
            [](IRefitter& self, std::string const& layer, WeightsRole role, PyWeights const& weights) {
                return self.setWeights(layer.c_str(), role, weights.weights);
            },
            py::arg("layer_name"), py::arg("role"), py::arg("weights"),
            "New values (copied) for a layer's weights of that role; False with the reason logged.")
        .def(
            "set_named_weights",
            [](IRefitter& self, std::string const& name, PyWeights const& weights, nvinfer1::TensorLocation location) {
                return self.setNamedWeights(name.c_str(), weights.weights, location);
            },
            py::arg("name"), py::arg("weights"), py::arg("location") = nvinfer1::TensorLocation::kHOST,
            "New values (copied) for the weights of that name (every use of it); False with the reason logged.")
        .def(
            "unset_named_weights",
            [](IRefitter& self, std::string const& name) { return self.unsetNamedWeights(name.c_str()); },
            py::arg("name"))
        .def(
            "get_weights_prototype",
            [](IRefitter const& self, std::string const& name) {
                PyWeights prototype;
                prototype.weights = self.getWeightsPrototype(name.c_str());
                prototype.weights.values = nullptr; // a prototype describes; it holds no values
                return prototype;
            },
            py::arg("name"),
            "Weights with the dtype and size (no values) of the engine's weights of that name; size -1 for no such "
            "name.")
        .def("get_all",
            [](IRefitter& self) {
                return layersAndRoles([&](int32_t size, char const** layers, WeightsRole* roles) {
                    return self.getAll(size, layers, roles);
                });
            })
        .def("get_missing",
            [](IRefitter& self) {
                return layersAndRoles([&](int32_t size, char const** layers, WeightsRole* roles) {
                    return self.getMissing(size, layers, roles);
                });
            })
        .def("get_all_weights",
            [](IRefitter& self) {
                return names([&](int32_t size, char const** found) { return self.getAllWeights(size, found); });
            })
        .def("get_missing_weights",
            [](IRefitter& self) {
                return names([&](int32_t size, char const** found) { return self.getMissingWeights(size, found); });
            })
        .def(
            "refit_cuda_engine",
            [](IRefitter& self) {
                py::gil_scoped_release release;
                return self.refitCudaEngine();
            },
            "Writes the values set into the engine; its contexts use them from their next run.")
        .def(
            "refit_cuda_engine_async",
            [](IRefitter& self, uintptr_t stream) {
                py::gil_scoped_release release;
                return self.refitCudaEngineAsync(reinterpret_cast<cudaStream_t>(stream));
            },
            py::arg("stream_handle"))
        .def_property("weights_validation", &IRefitter::getWeightsValidation, &IRefitter::setWeightsValidation)
        .def_property("max_threads", &IRefitter::getMaxThreads, &IRefitter::setMaxThreads);
    defineContextManager(refitter);
}

void bindParserRefitter(py::module_& m)
{
    py::class_<IParserRefitter> refitter(
        m, "OnnxParserRefitter", "Gives a Refitter the values of an ONNX model's initializers.");
    refitter
        .def(py::init(&createParserRefitter), py::arg("refitter"), py::arg("logger"), py::keep_alive<1, 2>(),
            py::keep_alive<1, 3>())
        .def(
            "refit_from_file",
            [](IParserRefitter& self, std::string const& model) {
                py::gil_scoped_release release;
                return self.refitFromFile(model.c_str());
            },
            py::arg("model"), "False on failure (see get_error); then call Refitter.refit_cuda_engine.")
        .def(
            "refit_from_bytes",
            [](IParserRefitter& self, py::buffer model, py::object path) {
                py::buffer_info const info = model.request();
                std::string const folder = path.is_none() ? std::string() : path.cast<std::string>();
                py::gil_scoped_release release;
                return self.refitFromBytes(info.ptr, static_cast<size_t>(info.size * info.itemsize),
                    path.is_none() ? nullptr : folder.c_str());
            },
            py::arg("model"), py::arg("path") = py::none())
        .def_property_readonly("num_errors", &IParserRefitter::getNbErrors)
        .def("get_error", &IParserRefitter::getError, py::arg("index"), py::return_value_policy::reference_internal)
        .def("clear_errors", &IParserRefitter::clearErrors);
}

} // namespace

void bindRefit(py::module_& m)
{
    py::enum_<WeightsRole>(m, "WeightsRole", "What a layer uses a set of weights for.")
        .value("KERNEL", WeightsRole::kKERNEL)
        .value("BIAS", WeightsRole::kBIAS)
        .value("SHIFT", WeightsRole::kSHIFT)
        .value("SCALE", WeightsRole::kSCALE)
        .value("CONSTANT", WeightsRole::kCONSTANT)
        .value("ANY", WeightsRole::kANY);
    bindRefitter(m);
    bindParserRefitter(m);
}

} // namespace kiln::python
