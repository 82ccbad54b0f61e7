// The CPU backend's build passes, in the order it applies them to plans for the fast path (CpuKernels::kFAST, in a
// Kiln with oneDNN): batch norm folded into convolution weights, GELU's ONNX expansion made one activation, the
// epilogues of the convolutions and matrix multiplies oneDNN runs fused into them, the element-wise layers left
// between them fused into point-wise chains, and the layers the fast path runs marked. A plan for the reference
// kernels gets none of them: it keeps every layer as the network describes it, which is what it is a reference for.
#pragma once

#include "backend/backend.h"
#include "backend/pass_list.h"

namespace kiln::cpu
{

backend::PassList<backend::PassOptions const> const& cpuPasses();

} // namespace kiln::cpu
