// The parts of the extension kiln._tensorrt, each bound by its own file. module.cpp calls them in this order:
// a part may use the Python types of the parts before it (as argument or return types in signatures).
#pragma once

#include <pybind11/pybind11.h>

namespace kiln::python
{

namespace py = pybind11;

void bindDims(py::module_& m);             // dims.cpp: Dims, the tuple every shape converts to
void bindDataTypes(py::module_& m);        // data_types.cpp: DataType, TensorIOMode, TensorFormat
void bindLogger(py::module_& m);           // logger.cpp: ILogger, Logger
void bindErrorRecorder(py::module_& m);    // error_recorder.cpp: IErrorRecorder, ErrorCodeTRT
void bindRunCallbacks(py::module_& m);     // runtime_callbacks.cpp: IOutputAllocator, IProfiler, IDebugListener
void bindWeights(py::module_& m);          // weights.cpp: Weights from numpy arrays
void bindHostMemory(py::module_& m);       // host_memory.cpp: IHostMemory and its buffer
void bindPluginFields(py::module_& m);     // plugin_fields.cpp: PluginField(Type), PluginFieldCollection, TensorRTPhase
void bindPluginShapes(py::module_& m);     // plugin_shapes.cpp: DimsExprs, IExprBuilder, (Dynamic)PluginTensorDesc
void bindPlugins(py::module_& m);          // plugins.cpp: IPluginV2, IPluginV3, their creators
void bindPluginRegistry(py::module_& m);   // plugin_registry.cpp: get_plugin_registry, init_libnvinfer_plugins
void bindLayerEnums(py::module_& m);       // layer_enums.cpp: LayerType and the layers' operations and modes
void bindTensor(py::module_& m);           // tensor.cpp: ITensor
void bindLayers(py::module_& m);           // layers.cpp: ILayer and the layer interfaces
void bindNetwork(py::module_& m);          // network.cpp: INetworkDefinition, NetworkDefinitionCreationFlag
void bindKilnBackend(py::module_& m);      // kiln_backend.cpp: Kiln's Backend and CpuKernels choices
void bindBuilder(py::module_& m);          // builder.cpp: Builder, IBuilderConfig, IOptimizationProfile, their enums
void bindRuntime(py::module_& m);          // runtime.cpp: Runtime, ICudaEngine, IEngineInspector
void bindExecutionContext(py::module_& m); // execution_context.cpp: IExecutionContext
void bindOnnxParser(py::module_& m);       // onnx_parser.cpp: OnnxParser, ParserError, ErrorCode
void bindRefit(py::module_& m);            // refit.cpp: Refitter, OnnxParserRefitter, WeightsRole
void bindStreams(py::module_& m);          // streams.cpp: IStreamWriter, IStreamReader(V2) and the calls taking them
void bindGpuAllocators(py::module_& m);    // gpu_allocators.cpp: IGpuAllocator, IGpuAsyncAllocator, gpu_allocator
void bindDlpack(py::module_& m);           // dlpack.cpp: DLPack capsules for tensorrt.plugin's Tensor
void bindCudaInterop(py::module_& m);      // cuda_interop.cpp: a pointer's device, stream ordering, for DLPack

//! `with` blocks: TensorRT's objects are context managers whose exit does nothing (deprecated there; kept because
//! its samples still write them).
template <typename Class>
Class& defineContextManager(Class& cls)
{
    cls.def("__enter__", [](py::object self) { return self; }).def("__exit__", [](py::object, py::args) {});
    return cls;
}

} // namespace kiln::python
