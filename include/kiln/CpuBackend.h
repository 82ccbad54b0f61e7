// Kiln extension: the CPU backend's kernels and threads.
//
// A CPU plan runs on one of two sets of kernels, chosen when it is built:
// - kFAST (the default): oneDNN runs convolution, deconvolution, matrix multiply, pooling, softmax, transposes and
//   the common element-wise, activation, reduction and normalization layers, after CPU graph optimisations (batch
//   norm folded into convolution weights; residual addition and activation fused into the convolution; bias and
//   activation into the matrix multiply; GELU's ONNX expansion made one activation). Kiln's reference kernels run
//   every other layer, and every layer in a Kiln built without oneDNN. Reshapes and slices of a contiguous block
//   run nothing: their outputs are views of their inputs' memory, as in CUDA plans.
// - kREFERENCE: Kiln's reference kernels run every layer of the network as written. They are what the fast path,
//   the CUDA backend and plugins are checked against (kiln's --compare=cpu uses them).
#pragma once

#include <NvInfer.h>

namespace kiln
{

enum class CpuKernels : int32_t
{
    kFAST = 0,
    kREFERENCE = 1,
};

//! Sets the kernels that CPU plans built with `config` run on. False if config is not Kiln's.
bool setCpuKernels(nvinfer1::IBuilderConfig& config, CpuKernels kernels) noexcept;
CpuKernels getCpuKernels(nvinfer1::IBuilderConfig const& config) noexcept;

//! Sets how many threads a CPU execution context runs its layers on: 0 (the default) for the cores this process
//! may use. Unless `fixed`, that is the most: the context times its runs and runs on one thread instead where that
//! has timed faster, as it does where other work shares the cores (each parallel region then waits for a thread that
//! is not running); it tries the other count now and then, so it follows the load as it changes. Results are the
//! same at every count. False, with an error logged, if `threads` is negative or the context is not a CPU context of
//! Kiln's.
bool setCpuThreads(nvinfer1::IExecutionContext& context, int32_t threads, bool fixed = false) noexcept;
//! The most threads a CPU context runs on, 0 resolved to the count it stands for; 0 for other contexts.
int32_t getCpuThreads(nvinfer1::IExecutionContext const& context) noexcept;

} // namespace kiln
