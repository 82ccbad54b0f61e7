// Kiln's additions: the backend an engine is built for (include/kiln/Backend.h) and the CPU backend's kernels
// (include/kiln/CpuBackend.h). IBuilderConfig's kiln_backend and kiln_cpu_kernels properties set them (builder.cpp).
#include "bindings.h"

#include <kiln/Backend.h>
#include <kiln/CpuBackend.h>

namespace kiln::python
{

void bindKilnBackend(py::module_& m)
{
    py::enum_<kiln::Backend>(m, "Backend",
        "Where an engine runs. CPU: tensor addresses are host memory (numpy arrays' arr.ctypes.data). CUDA: device "
        "memory, as in TensorRT. DEFAULT: CUDA where Kiln was built with it and a GPU is usable, else CPU.")
        .value("DEFAULT", kiln::Backend::kDEFAULT)
        .value("CPU", kiln::Backend::kCPU)
        .value("CUDA", kiln::Backend::kCUDA);
    m.def("default_backend", &kiln::defaultBackend, "What Backend.DEFAULT resolves to on this machine.");
    m.def("backend_available", &kiln::backendAvailable, py::arg("backend"),
        "Whether engines for the backend can be built and run here.");

    py::enum_<kiln::CpuKernels>(m, "CpuKernels",
        "The CPU backend's kernels: FAST (oneDNN where it runs the layer) or REFERENCE (Kiln's reference kernels).")
        .value("FAST", kiln::CpuKernels::kFAST)
        .value("REFERENCE", kiln::CpuKernels::kREFERENCE);
}

} // namespace kiln::python
