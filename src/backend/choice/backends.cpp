#include "backend/choice/backends.h"

#include "backend/cpu/cpu_backend.h"
#if KILN_WITH_CUDA
#include "backend/cuda/cuda_backend.h"
#endif

namespace kiln::backend
{

Implementation const* implementation(Backend kind)
{
    switch (kind)
    {
    case Backend::kCPU: return &cpu::cpuBackend();
#if KILN_WITH_CUDA
    case Backend::kCUDA: return &cuda::cudaBackend();
#endif
    default: return nullptr;
    }
}

} // namespace kiln::backend
