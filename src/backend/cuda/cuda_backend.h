// The CUDA backend behind the backend interface (CUDA builds only): cuDNN, cuBLASLt and Kiln's own kernels, its
// fusion, layout and tuning passes, and its executor.
#pragma once

#include "backend/backend.h"

namespace kiln::cuda
{

backend::Implementation const& cudaBackend();

} // namespace kiln::cuda
