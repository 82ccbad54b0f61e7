// A matrix multiply by constant weights (a linear layer, as ONNX's MatMul and Gemm import one), for the matrix
// multiply kernel to hand its work to when the context offers it the weights.
#pragma once

#include "backend/cpu/fast/onednn.h"
#include "plan/plan_model.h"

namespace kiln::cpu::fast
{

//! Whether makeLinear runs x op(w) for x of operation `op0` and constant weights `w` of operation `op1`: x's rows
//! lie one after another (kNONE), and w is one matrix ([1, ..., 1, K, N] or transposed) of at least one element.
bool linearRuns(nvinfer1::MatrixOperation op0, nvinfer1::MatrixOperation op1, ConstTensorView const& w);

//! x [batch..., M, K] times w, then `epilogue`: the kernel of a matrix multiply whose second input is `w` at every
//! run (it never reads that input).
std::unique_ptr<Kernel> makeLinear(
    State& state, plan::Epilogue const& epilogue, ConstTensorView const& w, nvinfer1::MatrixOperation op1);

} // namespace kiln::cpu::fast
