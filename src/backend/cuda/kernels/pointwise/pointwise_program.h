// What the point-wise kernel (pointwise.cu) receives as its one argument, made on the host (pointwise_program.cpp)
// where it can be checked without a GPU: the chain's steps over register rows, how each input is reached from an
// output index, and the output's axes simplified so that the index arithmetic is the least the broadcasts need.
#pragma once

#include "backend/cuda/kernels/pointwise/pointwise_kernel.h"

#include "core/data_type.h"

#include <NvInferRuntimeBase.h>

#include <cstdint>

namespace kiln::cuda::pointwise
{

constexpr int32_t kMaxRank = nvinfer1::Dims::MAX_DIMS;
//! The register rows a program may use: one per input and step at most; allocation reuses rows, so far fewer.
constexpr int32_t kMaxSlots = kMaxPointwiseInputs + kMaxPointwiseSteps;

//! How an input's element is found for an output index.
enum class Reach : int32_t
{
    kSAME_SHAPE, //!< the input has the output's shape: the same index
    kSINGLE,     //!< one element, read once per block
    kBROADCAST,  //!< through `strides` along the program's axes (0 where it repeats)
};

struct Input
{
    void const* data{nullptr};
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    Reach reach{Reach::kSAME_SHAPE};
    int32_t slot{-1}; //!< the register row it is loaded into for each group; -1 for kSINGLE and inputs no step reads
    int64_t strides[kMaxRank]{};
};

//! An operand is a register row (>= 0) or, as constantOperand(i) (< 0), the value of single-element input i.
KILN_HOST_DEVICE constexpr int32_t constantOperand(int32_t input)
{
    return -1 - input;
}

KILN_HOST_DEVICE constexpr int32_t inputOfConstant(int32_t operand)
{
    return -1 - operand;
}

//! A step as network::PointwiseStep describes it (kQUANTIZE: a Q -> DQ pair), its operands and result in rows.
struct Step
{
    nvinfer1::LayerType kind{nvinfer1::LayerType::kELEMENTWISE}; //!< kELEMENTWISE, kACTIVATION, kUNARY or kQUANTIZE
    int32_t operation{0};
    int32_t first{0};
    int32_t second{0}; //!< element-wise steps only
    int32_t result{0}; //!< the register row it writes
    float alpha{0.0F};
    float beta{0.0F};
    nvinfer1::DataType valueType{nvinfer1::DataType::kFLOAT}; //!< kQUANTIZE: what its input rounds to first
};

struct Program
{
    Step steps[kMaxPointwiseSteps];
    Input inputs[kMaxPointwiseInputs];
    //! The output's shape, its axes in storage order (a kHWC output's channels innermost), with extents of 1 left out
    //! and neighbouring axes merged where every broadcast input repeats along both or along neither: a bias
    //! [1, 1, C] added to [N, T, C] is indexed as [N * T, C], a scale [N, C, 1, 1] times a kHWC [N, C, H, W] as
    //! [N, H * W, C].
    int64_t extents[kMaxRank]{};
    int32_t rank{1};
    int32_t stepCount{0};
    int32_t inputCount{0};
    int32_t resultSlot{0}; //!< the register row of the last step, which the output receives
    int32_t slotCount{0};  //!< register rows in use
    //! The output and every input read with the output's shape start at a group boundary (16 bytes of FP32, 8 of
    //! FP16/BF16), so that each group of four elements is one access; else the kernel moves elements one by one.
    bool grouped{false};
    bool rowsHoldGroups{false}; //!< the innermost extent is a multiple of 4: a group never straddles two rows
    bool narrow{false};         //!< fewer than 2^32 output elements: broadcast offsets in 32-bit arithmetic
    bool reluAfter{false};
    //! A program of one activation or unary step on an input of the output's shape (a lone GELU, as the GELU fusion
    //! leaves one): that input, whose groups the kernel then runs through a formula chosen once per thread; -1 for
    //! every other program.
    int32_t soleInput{-1};
    //! With soleInput: the activation step is followed by its product with that same input, x * f(x) (SiLU as
    //! exported, x * sigmoid(x); hard-swish, x * hard_sigmoid(x)), which the kernel then computes in one formula.
    bool gated{false};
    //! A program of one element-wise arithmetic step (kSUM to kFLOOR_DIV), as the element-wise layer and a lone
    //! residual sum make: each operand's input, or constantOperand(i) for single-element input i; the kernel then
    //! reads both groups and applies one formula, with no register rows. Meaningful only where `binary`.
    bool binary{false};
    int32_t binaryInputs[2]{0, 0};
    //! With binary: the arithmetic step is followed by a Q -> DQ step on its result (steps[1], kQUANTIZE: a residual
    //! sum rounded onto its codes' grid, ConvNeXt's), which the kernel applies to each result.
    bool binaryRounds{false};
    void* output{nullptr};
    nvinfer1::DataType outputType{nvinfer1::DataType::kFLOAT};
    int64_t count{0};
};

//! The program that runs `stepCount` steps (well formed over the inputs, at most kMaxPointwiseSteps over
//! kMaxPointwiseInputs) once per output element; the inputs (views given by pointer, so that a caller holding them
//! copies none: a copy allocates its shape, and enqueueV3 allocates nothing) broadcast numpy-style, at the output's
//! rank, into `output`'s shape. Every tensor is FP32, FP16 or BF16; each step computes in float as the layer it stands
//! for (pointwise_math.cuh). The output is kLINEAR or kHWC; a broadcast input is stored in its format or alike in both
//! (storage_order.h), and with options.checkLayouts so is every input. Throws std::invalid_argument for a program, type
//! or shape the kernel does not take. The output may be an input of its own shape. Allocates nothing unless it throws.
Program makeProgram(network::PointwiseStep const* steps, size_t stepCount, ConstTensorView const* const* inputs,
    size_t inputCount, TensorView const& output, PointwiseOptions const& options);

} // namespace kiln::cuda::pointwise
