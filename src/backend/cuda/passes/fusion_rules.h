// What the CUDA backend's layers take from the fusion passes: which convolutions and products fuse which epilogue
// (cuDNN's and cuBLASLt's), which attention the attention kernels run, which loops the recurrence kernel runs, and
// which point-wise chains the point-wise kernel runs. The passes themselves know nothing of the kernels; these rules
// tell them.
#pragma once

#include "plan/passes/attention_fusion.h"
#include "plan/passes/convolution_fusion.h"
#include "plan/passes/matrix_multiply_fusion.h"
#include "plan/passes/pointwise_fusion.h"
#include "plan/passes/quantization_propagation.h"
#include "plan/passes/quantized_fusion.h"
#include "plan/passes/quantized_matrix_multiply_fusion.h"
#include "plan/passes/recurrence_fusion.h"

namespace kiln::cuda
{

//! cuDNN fuses a ReLU into any convolution; an addition only together with one (its identity activation is limited
//! to one algorithm).
plan::ConvolutionFusionRules cudnnFusions();

//! cuBLASLt's epilogue adds a bias row and applies a ReLU, for products that are one GEMM: fully connected (2-D)
//! ones, and those of a batch of untransposed rows by one matrix, which the geometry folds into one GEMM
//! (matrix_multiply_geometry.h), as transformers' linear layers are. The inner extent must be known not to be 0:
//! the epilogue has no form for an empty sum.
plan::MatrixMultiplyFusionRules cublasLtFusions();

//! The INT8 convolutions the CUDA kernels run: quantized convolutions over two spatial axes in one group
//! (kernels/convolution/quantized_convolution.h), whose epilogue applies any activation, self-gated or not.
plan::QuantizedFusionRules int8Kernels();

//! The max poolings the CUDA kernels run on quantized data: INT8 ones, of channels-first tensors.
plan::QuantizationPropagationRules quantizedPoolings();

//! The quantized products by constant weights the CUDA kernels run (libraries/cublaslt/quantized_matrix_multiply.h),
//! with any activation, on channels-first data: every INT8 one the pass makes, and the FP8 ones whose K and N are
//! multiples of 16 (cuBLASLt's FP8 rule; the others stay unfused, FP8 decoded between their Q/DQ layers), where `fp8`
//! (the GPU has FP8 tensor cores: CudaBuild::fp8Products).
plan::QuantizedMatrixMultiplyFusionRules quantizedProducts(bool fp8);

//! The attention the kernels run over depths of up to kMaxAttentionDepth: FP16 on the tensor cores (attention.cu),
//! FP32 on them in 3xTF32 (attention_fp32_tensor_cores.cu, FP32's accuracy, as FP32 plans promise) or on the CUDA
//! cores (attention_fp32.cu).
plan::AttentionFusionRules attentionFusions();

//! The recurrent sequences the persistent kernel runs (kernels/recurrence/recurrent_sequence.cu): FP32 and FP16, any
//! hidden size (each step's products are summed by a warp per state, whatever their length).
plan::RecurrenceFusionRules recurrentSequences();

//! The point-wise chains pointwise.cu runs: built-in layers over floating-point tensors, within the kernel's program
//! size. The kernel reads and writes each tensor in its own type and computes in float, so a layer that converted
//! a tensor (an FP32 constant or network input read by an FP16 layer) joins too, its conversion folded into the load.
plan::PointwiseFusionRules pointwiseChains();

} // namespace kiln::cuda
