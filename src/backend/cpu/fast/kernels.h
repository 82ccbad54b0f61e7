// The fast path's kernels, one pair of functions per layer kind: whether it runs a layer (beyond fast_path.cpp's
// common checks: built-in, FP32 and kLINEAR throughout, except for the quantized kinds, which check their INT8 slots
// themselves), and its kernel. fast_path.cpp lists them.
#pragma once

#include "backend/cpu/fast/onednn.h"

namespace kiln::cpu::fast
{

//! Fewer elements than this run on one thread in Kiln's own loops: waking the others costs more.
constexpr int64_t kParallelElements = int64_t{1} << 16;

//! The threads a kernel's work over `elements` elements takes: one up to kParallelElements, else the session's.
int32_t threadsFor(State const& state, int64_t elements);

//! threadsFor's count for a oneDNN primitive (a reorder, an eltwise, a pooling), set as the calling thread's OpenMP
//! count too, from which oneDNN's primitives take theirs when they are made and when they run.
int32_t primitiveThreads(State const& state, int64_t elements);

//! Whether slot `slot` of `layer` (its inputs, then its outputs) holds a tensor of `type`, stored and read or written
//! there in `type`, row-major: what the kernels of fixed types and one format check of each slot.
bool rowMajorSlotOf(plan::PlanModel const& model, plan::LayerRecord const& layer, size_t slot, nvinfer1::DataType type);

bool supportsConvolution(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makeConvolution(State& state, plan::LayerRecord const& layer);
bool supportsQuantizedConvolution(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makeQuantizedConvolution(State& state, plan::LayerRecord const& layer);
bool supportsQuantizedMatrixMultiply(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makeQuantizedMatrixMultiply(State& state, plan::LayerRecord const& layer);
bool supportsDeconvolution(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makeDeconvolution(State& state, plan::LayerRecord const& layer);

bool supportsPooling(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makePooling(State& state, plan::LayerRecord const& layer);

bool supportsActivation(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makeActivation(State& state, plan::LayerRecord const& layer);

bool supportsUnary(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makeUnary(State& state, plan::LayerRecord const& layer);
//! IsNaN or IsInf of FP32 data into BOOL flags, row-major (float_flags.cpp): unary layers of their own types.
bool isFloatFlags(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makeFloatFlags(State& state, plan::LayerRecord const& layer);

bool supportsElementWise(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makeElementWise(State& state, plan::LayerRecord const& layer);

bool supportsReduce(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makeReduce(State& state, plan::LayerRecord const& layer);

bool supportsMatrixMultiply(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makeMatrixMultiply(State& state, plan::LayerRecord const& layer);

//! Attention without roundings (attention.cpp): the fused layer of plan/passes/attention_fusion.h.
bool supportsAttention(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makeAttention(State& state, plan::LayerRecord const& layer);

//! A recurrent sequence in FP32 (recurrent_sequence.cpp): the fused loop of plan/passes/recurrence_fusion.h.
bool supportsRecurrentSequence(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makeRecurrentSequence(State& state, plan::LayerRecord const& layer);

bool supportsSoftMax(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makeSoftMax(State& state, plan::LayerRecord const& layer);

bool supportsNormalization(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makeNormalization(State& state, plan::LayerRecord const& layer);

bool supportsPointwise(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makePointwise(State& state, plan::LayerRecord const& layer);

bool supportsQuantization(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makeQuantization(State& state, plan::LayerRecord const& layer);

//! Whether slot `slot` of `layer` (its inputs, then its outputs) holds a tensor of four axes in `type`, stored and read
//! or written there in `type`, kLINEAR or kHWC: what the kernels that copy bytes in either format take (the executor
//! converts no type around a fast kernel, and the channels-last pass decides kHWC).
bool copiesFourAxesOf(
    plan::PlanModel const& model, plan::LayerRecord const& layer, size_t slot, nvinfer1::DataType type);

bool supportsConcatenation(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makeConcatenation(State& state, plan::LayerRecord const& layer);
bool supportsSlice(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makeSlice(State& state, plan::LayerRecord const& layer);
bool supportsShuffle(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makeShuffle(State& state, plan::LayerRecord const& layer);
bool supportsGather(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makeGather(State& state, plan::LayerRecord const& layer);
bool supportsSelect(plan::PlanModel const& model, plan::LayerRecord const& layer);
std::unique_ptr<Kernel> makeSelect(State& state, plan::LayerRecord const& layer);

} // namespace kiln::cpu::fast
