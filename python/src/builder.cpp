// Builder, IBuilderConfig and IOptimizationProfile with their enums. Objects a builder creates keep it alive; the
// builder keeps its logger alive. build_serialized_network returns None on failure, as TensorRT's does, with the
// reason sent to the logger.
#include "bindings.h"
#include "callbacks.h"
#include "dims_caster.h"
#include "error_capture.h"
#include "logger.h"

#include <NvInfer.h>
#include <kiln/Backend.h>
#include <kiln/CpuBackend.h>
#include <pybind11/stl.h>

#include <memory>
#include <stdexcept>
#include <vector>

namespace kiln::python
{

namespace
{

using namespace nvinfer1;

void bindBuilderEnums(py::module_& m)
{
    py::enum_<BuilderFlag>(m, "BuilderFlag", "Options of a build (IBuilderConfig.set_flag).")
        .value("FP16", BuilderFlag::kFP16)
        .value("INT8", BuilderFlag::kINT8)
        .value("DEBUG", BuilderFlag::kDEBUG)
        .value("GPU_FALLBACK", BuilderFlag::kGPU_FALLBACK)
        .value("REFIT", BuilderFlag::kREFIT)
        .value("DISABLE_TIMING_CACHE", BuilderFlag::kDISABLE_TIMING_CACHE)
        .value("TF32", BuilderFlag::kTF32)
        .value("SPARSE_WEIGHTS", BuilderFlag::kSPARSE_WEIGHTS)
        .value("SAFETY_SCOPE", BuilderFlag::kSAFETY_SCOPE)
        .value("OBEY_PRECISION_CONSTRAINTS", BuilderFlag::kOBEY_PRECISION_CONSTRAINTS)
        .value("PREFER_PRECISION_CONSTRAINTS", BuilderFlag::kPREFER_PRECISION_CONSTRAINTS)
        .value("DIRECT_IO", BuilderFlag::kDIRECT_IO)
        .value("REJECT_EMPTY_ALGORITHMS", BuilderFlag::kREJECT_EMPTY_ALGORITHMS)
        .value("VERSION_COMPATIBLE", BuilderFlag::kVERSION_COMPATIBLE)
        .value("EXCLUDE_LEAN_RUNTIME", BuilderFlag::kEXCLUDE_LEAN_RUNTIME)
        .value("FP8", BuilderFlag::kFP8)
        .value("ERROR_ON_TIMING_CACHE_MISS", BuilderFlag::kERROR_ON_TIMING_CACHE_MISS)
        .value("BF16", BuilderFlag::kBF16)
        .value("DISABLE_COMPILATION_CACHE", BuilderFlag::kDISABLE_COMPILATION_CACHE)
        .value("STRIP_PLAN", BuilderFlag::kSTRIP_PLAN)
        .value("REFIT_IDENTICAL", BuilderFlag::kREFIT_IDENTICAL)
        .value("WEIGHT_STREAMING", BuilderFlag::kWEIGHT_STREAMING)
        .value("INT4", BuilderFlag::kINT4)
        .value("REFIT_INDIVIDUAL", BuilderFlag::kREFIT_INDIVIDUAL)
        .value("STRICT_NANS", BuilderFlag::kSTRICT_NANS)
        .value("MONITOR_MEMORY", BuilderFlag::kMONITOR_MEMORY)
        .value("FP4", BuilderFlag::kFP4)
        .value("EDITABLE_TIMING_CACHE", BuilderFlag::kEDITABLE_TIMING_CACHE)
        .value("DISTRIBUTIVE_INDEPENDENCE", BuilderFlag::kDISTRIBUTIVE_INDEPENDENCE);

    py::enum_<MemoryPoolType>(m, "MemoryPoolType", "Memory pools whose size a build may be limited to.")
        .value("WORKSPACE", MemoryPoolType::kWORKSPACE)
        .value("DLA_MANAGED_SRAM", MemoryPoolType::kDLA_MANAGED_SRAM)
        .value("DLA_LOCAL_DRAM", MemoryPoolType::kDLA_LOCAL_DRAM)
        .value("DLA_GLOBAL_DRAM", MemoryPoolType::kDLA_GLOBAL_DRAM)
        .value("TACTIC_DRAM", MemoryPoolType::kTACTIC_DRAM)
        .value("TACTIC_SHARED_MEMORY", MemoryPoolType::kTACTIC_SHARED_MEMORY);

    py::enum_<OptProfileSelector>(m, "OptProfileSelector", "Which of a profile's shapes: min, opt or max.")
        .value("MIN", OptProfileSelector::kMIN)
        .value("OPT", OptProfileSelector::kOPT)
        .value("MAX", OptProfileSelector::kMAX);

    py::enum_<DeviceType>(m, "DeviceType", "Where layers run: the GPU (DLA is refused by Kiln).")
        .value("GPU", DeviceType::kGPU)
        .value("DLA", DeviceType::kDLA);
    py::enum_<EngineCapability>(m, "EngineCapability", "The kind of engine a build makes (Kiln: STANDARD).")
        .value("STANDARD", EngineCapability::kSTANDARD)
        .value("SAFETY", EngineCapability::kSAFETY)
        .value("DLA_STANDALONE", EngineCapability::kDLA_STANDALONE);
    py::enum_<ProfilingVerbosity>(m, "ProfilingVerbosity", "How much an engine says about its layers.")
        .value("LAYER_NAMES_ONLY", ProfilingVerbosity::kLAYER_NAMES_ONLY)
        .value("NONE", ProfilingVerbosity::kNONE)
        .value("DETAILED", ProfilingVerbosity::kDETAILED);
    py::enum_<TacticSource>(m, "TacticSource", "Libraries a build may take tactics from (bits of get_tactic_sources).")
        .value("CUBLAS", TacticSource::kCUBLAS)
        .value("CUBLAS_LT", TacticSource::kCUBLAS_LT)
        .value("CUDNN", TacticSource::kCUDNN)
        .value("EDGE_MASK_CONVOLUTIONS", TacticSource::kEDGE_MASK_CONVOLUTIONS)
        .value("JIT_CONVOLUTIONS", TacticSource::kJIT_CONVOLUTIONS);
    using nvinfer1::PreviewFeature;
    py::enum_<PreviewFeature>(m, "PreviewFeature", "Features a build opts into (IBuilderConfig.set_preview_feature).")
        .value("PROFILE_SHARING_0806", PreviewFeature::kPROFILE_SHARING_0806)
        .value("ALIASED_PLUGIN_IO_10_03", PreviewFeature::kALIASED_PLUGIN_IO_10_03)
        .value("RUNTIME_ACTIVATION_RESIZE_10_10", PreviewFeature::kRUNTIME_ACTIVATION_RESIZE_10_10)
        .value("MULTIDEVICE_RUNTIME_10_16", PreviewFeature::kMULTIDEVICE_RUNTIME_10_16);
}

//! TensorRT's Python API raises when a profile refuses a shape; the message says which and why (Kiln's log).
void setProfileShape(
    IOptimizationProfile& self, std::string const& input, Dims const& min, Dims const& opt, Dims const& max)
{
    ErrorCapture const capture;
    std::pair<OptProfileSelector, Dims const*> const shapes[]
        = {{OptProfileSelector::kMIN, &min}, {OptProfileSelector::kOPT, &opt}, {OptProfileSelector::kMAX, &max}};
    char const* const names[] = {"min", "opt", "max"};
    for (size_t i = 0; i < 3; ++i)
    {
        if (!self.setDimensions(input.c_str(), shapes[i].first, *shapes[i].second))
        {
            throw std::runtime_error(capture.explain("IOptimizationProfile.set_shape: the " + std::string(names[i])
                + " shape of '" + input + "' was refused"));
        }
    }
}

void setProfileShapeValues(IOptimizationProfile& self, std::string const& input, std::vector<int32_t> const& min,
    std::vector<int32_t> const& opt, std::vector<int32_t> const& max)
{
    ErrorCapture const capture;
    std::pair<OptProfileSelector, std::vector<int32_t> const*> const values[]
        = {{OptProfileSelector::kMIN, &min}, {OptProfileSelector::kOPT, &opt}, {OptProfileSelector::kMAX, &max}};
    for (auto const& [selector, list] : values)
    {
        if (!self.setShapeValues(input.c_str(), selector, list->data(), static_cast<int32_t>(list->size())))
        {
            throw std::runtime_error(
                capture.explain("IOptimizationProfile.set_shape_input: the values of '" + input + "' were refused"));
        }
    }
}

void bindOptimizationProfile(py::module_& m)
{
    py::class_<IOptimizationProfile, std::unique_ptr<IOptimizationProfile, py::nodelete>>(m, "IOptimizationProfile",
        "Min, opt and max shapes of the inputs with run-time extents (owned by the builder).")
        .def("set_shape", &setProfileShape, py::arg("input"), py::arg("min"), py::arg("opt"), py::arg("max"))
        .def(
            "get_shape",
            [](IOptimizationProfile const& self, std::string const& input) {
                std::vector<Dims> shapes;
                Dims const min = self.getDimensions(input.c_str(), OptProfileSelector::kMIN);
                if (min.nbDims >= 0)
                {
                    shapes = {min, self.getDimensions(input.c_str(), OptProfileSelector::kOPT),
                        self.getDimensions(input.c_str(), OptProfileSelector::kMAX)};
                }
                return shapes;
            },
            py::arg("input"), "[min, opt, max], or [] for an input the profile has no shapes for.")
        .def(
            "set_shape_input", &setProfileShapeValues, py::arg("input"), py::arg("min"), py::arg("opt"), py::arg("max"))
        .def(
            "get_shape_input",
            [](IOptimizationProfile const& self, std::string const& input) {
                std::vector<std::vector<int32_t>> values;
                int32_t const count = self.getNbShapeValues(input.c_str());
                for (auto selector : {OptProfileSelector::kMIN, OptProfileSelector::kOPT, OptProfileSelector::kMAX})
                {
                    int32_t const* data = self.getShapeValues(input.c_str(), selector);
                    if (data == nullptr || count < 0)
                    {
                        return std::vector<std::vector<int32_t>>{};
                    }
                    values.emplace_back(data, data + count);
                }
                return values;
            },
            py::arg("input"))
        .def("__bool__", &IOptimizationProfile::isValid);
}

void bindBuilderConfig(py::module_& m)
{
    py::class_<IBuilderConfig> config(m, "IBuilderConfig", "How a network is built.");
    config.def("set_flag", &IBuilderConfig::setFlag, py::arg("flag"))
        .def("clear_flag", &IBuilderConfig::clearFlag, py::arg("flag"))
        .def("get_flag", &IBuilderConfig::getFlag, py::arg("flag"))
        .def_property("flags", &IBuilderConfig::getFlags, &IBuilderConfig::setFlags)
        .def("reset", &IBuilderConfig::reset)
        .def("set_memory_pool_limit", &IBuilderConfig::setMemoryPoolLimit, py::arg("pool"), py::arg("pool_size"))
        .def("get_memory_pool_limit", &IBuilderConfig::getMemoryPoolLimit, py::arg("pool"))
        .def("add_optimization_profile", &IBuilderConfig::addOptimizationProfile, py::arg("profile"),
            "Adds a profile; returns its index, or -1 if it is invalid.")
        .def_property_readonly("num_optimization_profiles", &IBuilderConfig::getNbOptimizationProfiles)
        .def_property("builder_optimization_level", &IBuilderConfig::getBuilderOptimizationLevel,
            &IBuilderConfig::setBuilderOptimizationLevel)
        .def_property("DLA_core", &IBuilderConfig::getDLACore, &IBuilderConfig::setDLACore)
        .def_property(
            "default_device_type", &IBuilderConfig::getDefaultDeviceType, &IBuilderConfig::setDefaultDeviceType)
        .def_property("engine_capability", &IBuilderConfig::getEngineCapability, &IBuilderConfig::setEngineCapability)
        .def_property(
            "profiling_verbosity", &IBuilderConfig::getProfilingVerbosity, &IBuilderConfig::setProfilingVerbosity)
        .def_property("max_aux_streams", &IBuilderConfig::getMaxAuxStreams, &IBuilderConfig::setMaxAuxStreams)
        .def("set_tactic_sources", &IBuilderConfig::setTacticSources, py::arg("tactic_sources"))
        .def("get_tactic_sources", &IBuilderConfig::getTacticSources)
        .def("set_preview_feature", &IBuilderConfig::setPreviewFeature, py::arg("feature"), py::arg("enable"))
        .def("get_preview_feature", &IBuilderConfig::getPreviewFeature, py::arg("feature"))
        .def_property(
            "kiln_backend", [](IBuilderConfig const& self) { return kiln::getBackend(self); },
            [](IBuilderConfig& self, kiln::Backend backend) { kiln::setBackend(self, backend); },
            "Kiln: the backend engines built with this config run on (kiln.Backend).")
        .def_property(
            "kiln_cpu_kernels", [](IBuilderConfig const& self) { return kiln::getCpuKernels(self); },
            [](IBuilderConfig& self, kiln::CpuKernels kernels) { kiln::setCpuKernels(self, kernels); },
            "Kiln: the kernels of CPU engines built with this config (kiln.CpuKernels).");
    defineContextManager(config);
    bindBuildCallbacks(m, config);
}

IBuilder* createBuilder(PythonLogger& logger)
{
    return createdOrRaise("Builder: Kiln could not create a builder", [&] { return createInferBuilder(logger); });
}

void bindBuilderClass(py::module_& m)
{
    py::class_<IBuilder> builder(m, "Builder", "Builds engines from network definitions.");
    builder.def(py::init(&createBuilder), py::arg("logger"), py::keep_alive<1, 2>())
        .def("create_network", &IBuilder::createNetworkV2, py::arg("flags") = 0U, py::keep_alive<0, 1>(),
            "A new, empty network (flags: NetworkDefinitionCreationFlag bits).")
        .def("create_builder_config", &IBuilder::createBuilderConfig, py::keep_alive<0, 1>())
        .def("create_optimization_profile", &IBuilder::createOptimizationProfile,
            py::return_value_policy::reference_internal)
        .def(
            "build_serialized_network",
            [](IBuilder& self, INetworkDefinition& network, IBuilderConfig& config) {
                py::gil_scoped_release release;
                return std::unique_ptr<IHostMemory>(self.buildSerializedNetwork(network, config));
            },
            py::arg("network"), py::arg("config"), "The plan (IHostMemory), or None with the reason logged.")
        .def(
            "build_engine_with_config",
            [](IBuilder& self, INetworkDefinition& network, IBuilderConfig& config) {
                py::gil_scoped_release release;
                return std::unique_ptr<ICudaEngine>(self.buildEngineWithConfig(network, config));
            },
            py::arg("network"), py::arg("config"), py::keep_alive<0, 1>(),
            "The built network loaded as an engine, or None with the reason logged.")
        .def("is_network_supported", &IBuilder::isNetworkSupported, py::arg("network"), py::arg("config"))
        .def_property_readonly("platform_has_fast_fp16", &IBuilder::platformHasFastFp16)
        .def_property_readonly("num_DLA_cores", &IBuilder::getNbDLACores)
        .def_property("max_threads", &IBuilder::getMaxThreads, &IBuilder::setMaxThreads)
        .def("reset", &IBuilder::reset)
        .def("get_plugin_registry", &IBuilder::getPluginRegistry, py::return_value_policy::reference);
    defineContextManager(builder);
    defineErrorRecorderProperty<IBuilder>(builder);
}

} // namespace

void bindBuilder(py::module_& m)
{
    bindBuilderEnums(m);
    bindOptimizationProfile(m);
    bindBuilderConfig(m);
    bindBuilderClass(m);
}

} // namespace kiln::python
