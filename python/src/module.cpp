// The extension kiln._tensorrt: TensorRT's Python API over Kiln. kiln/tensorrt.py re-exports it with the parts
// TensorRT writes in Python (nptype, volume, the type aliases).
#include "bindings.h"

#include <NvInferVersion.h>

PYBIND11_MODULE(_tensorrt, m)
{
    namespace kp = kiln::python;
    m.doc() = "TensorRT's Python API on Kiln (import it as kiln.tensorrt).";
    m.attr("__version__") = std::to_string(NV_TENSORRT_MAJOR) + "." + std::to_string(NV_TENSORRT_MINOR) + "."
        + std::to_string(NV_TENSORRT_PATCH);
    m.attr("kiln_version") = KILN_PYTHON_VERSION;

    kp::bindDims(m);
    kp::bindDataTypes(m);
    kp::bindLogger(m);
    kp::bindErrorRecorder(m);
    kp::bindRunCallbacks(m);
    kp::bindWeights(m);
    kp::bindHostMemory(m);
    kp::bindPluginFields(m);
    kp::bindPluginShapes(m);
    kp::bindPlugins(m);
    kp::bindPluginRegistry(m);
    kp::bindLayerEnums(m);
    kp::bindTensor(m);
    kp::bindLayers(m);
    kp::bindNetwork(m);
    kp::bindKilnBackend(m);
    kp::bindBuilder(m);
    kp::bindRuntime(m);
    kp::bindExecutionContext(m);
    kp::bindOnnxParser(m);
    kp::bindRefit(m);
    kp::bindStreams(m);
    kp::bindGpuAllocators(m);
    kp::bindDlpack(m);
    kp::bindCudaInterop(m);
}
