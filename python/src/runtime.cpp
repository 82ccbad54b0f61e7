// Runtime, ICudaEngine and IEngineInspector. An engine keeps its runtime alive, a context its engine. A plan that
// cannot be loaded gives None, as in TensorRT, with the reason sent to the logger.
#include "bindings.h"
#include "callbacks.h"
#include "dims_caster.h"
#include "error_capture.h"
#include "logger.h"

#include <NvInferRuntime.h>
#include <pybind11/stl.h>

#include <memory>
#include <vector>

namespace kiln::python
{

namespace
{

using namespace nvinfer1;

IRuntime* createRuntime(PythonLogger& logger)
{
    return createdOrRaise("Runtime: Kiln could not create a runtime", [&] { return createInferRuntime(logger); });
}

void bindRuntimeClass(py::module_& m)
{
    py::class_<IRuntime> runtime(m, "Runtime", "Loads plans into engines.");
    runtime.def(py::init(&createRuntime), py::arg("logger"), py::keep_alive<1, 2>())
        .def(
            "deserialize_cuda_engine",
            [](IRuntime& self, py::buffer serialized) {
                py::buffer_info const info = serialized.request();
                auto const bytes = static_cast<size_t>(info.size * info.itemsize);
                py::gil_scoped_release release;
                return std::unique_ptr<ICudaEngine>(self.deserializeCudaEngine(info.ptr, bytes));
            },
            py::arg("serialized_engine"), py::keep_alive<0, 1>(), "The engine, or None with the reason logged.")
        .def_property("max_threads", &IRuntime::getMaxThreads, &IRuntime::setMaxThreads)
        .def("get_plugin_registry", &IRuntime::getPluginRegistry, py::return_value_policy::reference);
    defineContextManager(runtime);
    defineErrorRecorderProperty<IRuntime>(runtime);
}

std::vector<Dims> profileShapes(ICudaEngine const& self, std::string const& name, int32_t profile)
{
    return {self.getProfileShape(name.c_str(), profile, OptProfileSelector::kMIN),
        self.getProfileShape(name.c_str(), profile, OptProfileSelector::kOPT),
        self.getProfileShape(name.c_str(), profile, OptProfileSelector::kMAX)};
}

void bindEngine(py::module_& m)
{
    py::enum_<ExecutionContextAllocationStrategy>(
        m, "ExecutionContextAllocationStrategy", "Where a context's activation memory comes from.")
        .value("STATIC", ExecutionContextAllocationStrategy::kSTATIC)
        .value("ON_PROFILE_CHANGE", ExecutionContextAllocationStrategy::kON_PROFILE_CHANGE)
        .value("USER_MANAGED", ExecutionContextAllocationStrategy::kUSER_MANAGED);

    py::enum_<SerializationFlag>(m, "SerializationFlag", "What ICudaEngine.serialize_with_config leaves out.")
        .value("EXCLUDE_WEIGHTS", SerializationFlag::kEXCLUDE_WEIGHTS)
        .value("EXCLUDE_LEAN_RUNTIME", SerializationFlag::kEXCLUDE_LEAN_RUNTIME)
        .value("INCLUDE_REFIT", SerializationFlag::kINCLUDE_REFIT);
    py::class_<ISerializationConfig>(m, "ISerializationConfig", "Options of ICudaEngine.serialize_with_config.")
        .def_property("flags", &ISerializationConfig::getFlags, &ISerializationConfig::setFlags)
        .def("set_flag", &ISerializationConfig::setFlag, py::arg("flag"))
        .def("clear_flag", &ISerializationConfig::clearFlag, py::arg("flag"))
        .def("get_flag", &ISerializationConfig::getFlag, py::arg("flag"));

    py::class_<ICudaEngine> engine(m, "ICudaEngine", "A built network, shared by its execution contexts.");
    engine.def_property_readonly("num_io_tensors", &ICudaEngine::getNbIOTensors)
        .def("get_tensor_name", &ICudaEngine::getIOTensorName, py::arg("index"))
        .def("get_tensor_mode", &ICudaEngine::getTensorIOMode, py::arg("name"))
        .def("get_tensor_shape", &ICudaEngine::getTensorShape, py::arg("name"),
            "The shape, -1 where chosen at run time; None for a name that is not an I/O tensor.")
        .def("get_tensor_dtype", &ICudaEngine::getTensorDataType, py::arg("name"))
        .def("get_tensor_location", &ICudaEngine::getTensorLocation, py::arg("name"),
            "TensorLocation.DEVICE or HOST: where the application gives the tensor's memory.")
        .def("get_tensor_format", py::overload_cast<char const*>(&ICudaEngine::getTensorFormat, py::const_),
            py::arg("name"))
        .def("get_tensor_format", py::overload_cast<char const*, int32_t>(&ICudaEngine::getTensorFormat, py::const_),
            py::arg("name"), py::arg("profile_index"))
        .def("get_tensor_profile_shape", &profileShapes, py::arg("name"), py::arg("profile_index"),
            "[min, opt, max] of an input in a profile.")
        .def("is_shape_inference_io", &ICudaEngine::isShapeInferenceIO, py::arg("name"))
        .def("is_debug_tensor", &ICudaEngine::isDebugTensor, py::arg("name"))
        .def_property_readonly("num_layers", &ICudaEngine::getNbLayers)
        .def_property_readonly("num_optimization_profiles", &ICudaEngine::getNbOptimizationProfiles)
        .def_property_readonly("name", &ICudaEngine::getName)
        .def_property_readonly("device_memory_size", &ICudaEngine::getDeviceMemorySize)
        .def_property_readonly("device_memory_size_v2", &ICudaEngine::getDeviceMemorySizeV2)
        .def(
            "get_device_memory_size_for_profile", &ICudaEngine::getDeviceMemorySizeForProfile, py::arg("profile_index"))
        .def("get_device_memory_size_for_profile_v2", &ICudaEngine::getDeviceMemorySizeForProfileV2,
            py::arg("profile_index"))
        .def("get_tensor_components_per_element",
            py::overload_cast<char const*>(&ICudaEngine::getTensorComponentsPerElement, py::const_), py::arg("name"))
        .def("get_tensor_components_per_element",
            py::overload_cast<char const*, int32_t>(&ICudaEngine::getTensorComponentsPerElement, py::const_),
            py::arg("name"), py::arg("profile_index"))
        .def("get_tensor_vectorized_dim",
            py::overload_cast<char const*>(&ICudaEngine::getTensorVectorizedDim, py::const_), py::arg("name"))
        .def("get_tensor_vectorized_dim",
            py::overload_cast<char const*, int32_t>(&ICudaEngine::getTensorVectorizedDim, py::const_), py::arg("name"),
            py::arg("profile_index"))
        .def_property_readonly("refittable", &ICudaEngine::isRefittable)
        .def_property_readonly("has_implicit_batch_dimension", &ICudaEngine::hasImplicitBatchDimension)
        .def_property_readonly("profiling_verbosity", &ICudaEngine::getProfilingVerbosity)
        .def_property_readonly("streamable_weights_size", &ICudaEngine::getStreamableWeightsSize)
        .def_property_readonly("minimum_weight_streaming_budget", &ICudaEngine::getMinimumWeightStreamingBudget)
        .def_property(
            "weight_streaming_budget", &ICudaEngine::getWeightStreamingBudget, &ICudaEngine::setWeightStreamingBudget)
        .def_property("weight_streaming_budget_v2", &ICudaEngine::getWeightStreamingBudgetV2,
            &ICudaEngine::setWeightStreamingBudgetV2)
        .def("get_weight_streaming_automatic_budget", &ICudaEngine::getWeightStreamingAutomaticBudget)
        .def_property_readonly(
            "weight_streaming_scratch_memory_size", &ICudaEngine::getWeightStreamingScratchMemorySize)
        .def(
            "create_execution_context",
            [](ICudaEngine& self, ExecutionContextAllocationStrategy strategy) {
                py::gil_scoped_release release;
                return std::unique_ptr<IExecutionContext>(self.createExecutionContext(strategy));
            },
            py::arg("strategy") = ExecutionContextAllocationStrategy::kSTATIC, py::keep_alive<0, 1>(),
            "A new context, or None with the reason logged.")
        .def(
            "serialize", [](ICudaEngine const& self) { return std::unique_ptr<IHostMemory>(self.serialize()); },
            "The plan, to save or to load in another runtime.")
        .def(
            "create_serialization_config",
            [](ICudaEngine& self) { return std::unique_ptr<ISerializationConfig>(self.createSerializationConfig()); },
            "Options for serialize_with_config, no flag set.")
        .def(
            "serialize_with_config",
            [](ICudaEngine const& self, ISerializationConfig& config) {
                return std::unique_ptr<IHostMemory>(self.serializeWithConfig(config));
            },
            py::arg("config"), "The plan as the configuration asks, or None with the reason logged.")
        .def(
            "create_engine_inspector",
            [](ICudaEngine const& self) { return std::unique_ptr<IEngineInspector>(self.createEngineInspector()); },
            py::keep_alive<0, 1>())
        .def("__len__", &ICudaEngine::getNbIOTensors)
        .def("__getitem__", [](ICudaEngine const& self, int32_t index) {
            int32_t const position = index < 0 ? index + self.getNbIOTensors() : index;
            if (position < 0 || position >= self.getNbIOTensors())
            {
                throw py::index_error("I/O tensor index " + std::to_string(index) + " out of range");
            }
            return self.getIOTensorName(position);
        });
    defineContextManager(engine);
    defineErrorRecorderProperty<ICudaEngine>(engine);
}

void bindInspector(py::module_& m)
{
    py::enum_<LayerInformationFormat>(m, "LayerInformationFormat", "How the inspector describes layers.")
        .value("ONELINE", LayerInformationFormat::kONELINE)
        .value("JSON", LayerInformationFormat::kJSON);

    py::class_<IEngineInspector>(m, "EngineInspector", "Describes an engine's layers: kernels, types, shapes.")
        .def_property("execution_context",
            py::cpp_function(&IEngineInspector::getExecutionContext, py::return_value_policy::reference),
            py::cpp_function(
                [](IEngineInspector& self, IExecutionContext const* context) { self.setExecutionContext(context); },
                py::keep_alive<1, 2>()))
        .def("get_layer_information", &IEngineInspector::getLayerInformation, py::arg("layer_index"), py::arg("format"))
        .def("get_engine_information", &IEngineInspector::getEngineInformation, py::arg("format"));
}

} // namespace

void bindRuntime(py::module_& m)
{
    bindRuntimeClass(m);
    bindEngine(m);
    bindInspector(m);
}

} // namespace kiln::python
