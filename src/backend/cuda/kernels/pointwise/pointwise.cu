// A chain of point-wise steps on the GPU (pointwise_kernel.h): the fused point-wise layer (network::PointwiseParams,
// made by plan/passes/pointwise_fusion.h) and the element-wise layer's floating-point arithmetic. Each thread takes
// groups of four consecutive output elements: it loads the group of each input the steps read into a register row,
// runs the steps, each on all four elements with one choice of formula (pointwise_math.cuh's visitors), and stores the
// group; so the chain reads its inputs and writes its output once, in 8- or 16-byte accesses where the tensors are
// aligned, and costs one launch. Single-element inputs are read once per block; only inputs that truly broadcast pay
// for index arithmetic, along the fewest axes (pointwise_program.h). Steps compute in float; FP16 and BF16 tensors are
// converted on load and store only, so a chain of FP16 layers rounds once where the layers rounded after each step.
// The commonest short programs run kernels of their own, each holding one formula and no register rows: one
// activation or unary step, alone or gated (x * f(x)), and one arithmetic step, alone or followed by a Q -> DQ pair
// (Program::soleInput, Program::binary).
#include "backend/cuda/kernels/pointwise/pointwise_kernel.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/element_groups.cuh"
#include "backend/cuda/kernels/pointwise/pointwise_math.cuh"
#include "backend/cuda/kernels/pointwise/pointwise_program.h"
#include "backend/cuda/kernels/strided_index.cuh"
#include "backend/cuda/prepared_kernel_layer.h"
#include "core/quantization.h"

#include <cuda_fp16.h>

#include <array>
#include <cstdint>
#include <utility>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::DataType;
using device::FloatGroup;
using device::kGroupElements;
using pointwise::Input;
using pointwise::Program;
using pointwise::Reach;
using pointwise::Step;

//! The offset in a broadcast input of output element `i`: its coordinates along the program's axes times the input's
//! strides. The outermost coordinate needs no remainder, since i < count.
template <typename Index>
__device__ Index offsetAlongAxes(Program const& program, Input const& input, Index i)
{
    Index offset = 0;
    for (int32_t axis = program.rank - 1; axis > 0; --axis)
    {
        auto const extent = static_cast<Index>(program.extents[axis]);
        offset += i % extent * static_cast<Index>(input.strides[axis]);
        i /= extent;
    }
    return offset + i * static_cast<Index>(input.strides[0]);
}

__device__ int64_t broadcastOffset(Program const& program, Input const& input, int64_t i)
{
    return program.narrow ? offsetAlongAxes<uint32_t>(program, input, static_cast<uint32_t>(i))
                          : offsetAlongAxes<int64_t>(program, input, i);
}

//! The group `group` of an input that the steps read per element; elements past the output's end read as 0.
__device__ FloatGroup loadInput(Program const& program, Input const& input, int64_t group)
{
    int64_t const first = group * kGroupElements;
    bool const whole = first + kGroupElements <= program.count;
    if (input.reach == Reach::kSAME_SHAPE)
    {
        return program.grouped && whole ? device::loadGroup(input.data, input.type, group)
                                        : device::loadGroupByElement(input.data, input.type, group, program.count);
    }
    FloatGroup values;
    if (whole && program.rowsHoldGroups)
    {
        // The group's elements are neighbours along the innermost axis: one offset, then the input's step along it.
        int64_t const base = broadcastOffset(program, input, first);
        int64_t const step = input.strides[program.rank - 1];
#pragma unroll
        for (int k = 0; k < kGroupElements; ++k)
        {
            values.v[k] = device::loadFloat(input.data, input.type, base + k * step);
        }
        return values;
    }
#pragma unroll
    for (int k = 0; k < kGroupElements; ++k)
    {
        int64_t const i = first + k;
        values.v[k] = i < program.count ? device::loadFloat(input.data, input.type, broadcastOffset(program, input, i))
                                        : 0.0F;
    }
    return values;
}

__device__ FloatGroup operandOf(int32_t operand, FloatGroup const* slots, float const* constants)
{
    return operand >= 0 ? slots[operand] : device::splat(constants[pointwise::inputOfConstant(operand)]);
}

//! A Q -> DQ step (kQUANTIZE) on one value: rounded to the type the Q read, onto the codes' grid, and to the type the
//! DQ wrote.
__device__ float throughPair(Step const& step, float x)
{
    bool const fp8 = static_cast<DataType>(step.operation) == DataType::kFP8;
    float const value = roundThroughQuantization(device::roundedTo(step.valueType, x), step.alpha, fp8);
    return device::roundedTo(step.valueType, value);
}

//! The step on four elements, its formula chosen once.
__device__ FloatGroup evaluate(Step const& step, FloatGroup const& a, FloatGroup const& b)
{
    auto const ofOne = [&a](auto const& f) {
        FloatGroup result;
#pragma unroll
        for (int k = 0; k < kGroupElements; ++k)
        {
            result.v[k] = f(a.v[k]);
        }
        return result;
    };
    auto const ofTwo = [&a, &b](auto const& f) {
        FloatGroup result;
#pragma unroll
        for (int k = 0; k < kGroupElements; ++k)
        {
            result.v[k] = f(a.v[k], b.v[k]);
        }
        return result;
    };
    switch (step.kind)
    {
    case nvinfer1::LayerType::kELEMENTWISE:
        return device::visitElementWise(static_cast<nvinfer1::ElementWiseOperation>(step.operation), ofTwo);
    case nvinfer1::LayerType::kACTIVATION:
        return device::visitActivation(
            static_cast<nvinfer1::ActivationType>(step.operation), step.alpha, step.beta, ofOne);
    case nvinfer1::LayerType::kQUANTIZE: return ofOne([&step](float x) { return throughPair(step, x); });
    default: return device::visitUnary(static_cast<nvinfer1::UnaryOperation>(step.operation), ofOne);
    }
}

__device__ void storeOutput(Program const& program, int64_t group, FloatGroup result)
{
    if (program.reluAfter)
    {
#pragma unroll
        for (int k = 0; k < kGroupElements; ++k)
        {
            result.v[k] = result.v[k] < 0.0F ? 0.0F : result.v[k]; // NaN compares false and passes through
        }
    }
    if (program.grouped && (group + 1) * kGroupElements <= program.count)
    {
        device::storeGroup(program.output, program.outputType, group, result);
    }
    else
    {
        device::storeGroupByElement(program.output, program.outputType, group, program.count, result);
    }
}

// __grid_constant__: the program (a few kilobytes) is read where it was passed, never copied per thread.
__global__ void __launch_bounds__(device::kThreadsPerBlock) pointwiseKernel(__grid_constant__ Program const program)
{
    __shared__ float constants[kMaxPointwiseInputs];
    if (threadIdx.x < static_cast<unsigned>(program.inputCount))
    {
        Input const& input = program.inputs[threadIdx.x];
        constants[threadIdx.x] = input.reach == Reach::kSINGLE ? device::loadFloat(input.data, input.type, 0) : 0.0F;
    }
    __syncthreads();
    FloatGroup slots[pointwise::kMaxSlots];
    int64_t const groups = (program.count + kGroupElements - 1) / kGroupElements;
    KILN_GRID_STRIDE_LOOP(group, groups)
    {
        for (int32_t i = 0; i < program.inputCount; ++i)
        {
            Input const& input = program.inputs[i];
            if (input.slot >= 0)
            {
                slots[input.slot] = loadInput(program, input, group);
            }
        }
        for (int32_t s = 0; s < program.stepCount; ++s)
        {
            Step const& step = program.steps[s];
            FloatGroup const a = operandOf(step.first, slots, constants);
            FloatGroup const b
                = step.kind == nvinfer1::LayerType::kELEMENTWISE ? operandOf(step.second, slots, constants) : a;
            slots[step.result] = evaluate(step, a, b);
        }
        storeOutput(program, group, slots[program.resultSlot]);
    }
}

//! A program of one element-wise arithmetic step, operation kOperation (Program::binary): the element-wise layer's
//! floating-point arithmetic (a squeeze-and-excitation scale, a residual sum) and a lone fused sum, or one followed by
//! a Q -> DQ step (Program::binaryRounds). Each group costs the loads of its two operands, one formula (and the pair's
//! rounding) and its store: no register rows in local memory, no formula chosen per group, as pointwiseKernel pays
//! for chains of any length.
template <int32_t kOperation>
__global__ void __launch_bounds__(device::kThreadsPerBlock) binaryKernel(__grid_constant__ Program const program)
{
    // An operand names input i (>= 0) or single-element input inputOfConstant(operand), read once per thread.
    auto const constantOf = [&](int32_t operand) {
        Input const& input = program.inputs[operand >= 0 ? operand : pointwise::inputOfConstant(operand)];
        return operand >= 0 ? 0.0F : device::loadFloat(input.data, input.type, 0);
    };
    int32_t const first = program.binaryInputs[0];
    int32_t const second = program.binaryInputs[1];
    Step const& pair = program.steps[1];
    bool const rounds = program.binaryRounds;
    float const firstConstant = constantOf(first);
    float const secondConstant = constantOf(second);
    int64_t const groups = (program.count + kGroupElements - 1) / kGroupElements;
    device::visitElementWise(static_cast<nvinfer1::ElementWiseOperation>(kOperation), [&](auto const& f) {
        KILN_GRID_STRIDE_LOOP(group, groups)
        {
            FloatGroup const a = first >= 0 ? loadInput(program, program.inputs[first], group)
                                            : device::splat(firstConstant);
            FloatGroup const b = second >= 0 ? loadInput(program, program.inputs[second], group)
                                             : device::splat(secondConstant);
            FloatGroup result;
#pragma unroll
            for (int k = 0; k < kGroupElements; ++k)
            {
                result.v[k] = rounds ? throughPair(pair, f(a.v[k], b.v[k])) : f(a.v[k], b.v[k]);
            }
            storeOutput(program, group, result);
        }
        return 0;
    });
}

template <int32_t... kOperations>
constexpr std::array<void (*)(Program), sizeof...(kOperations)> binaryKernels(
    std::integer_sequence<int32_t, kOperations...> /*operations*/)
{
    return {&binaryKernel<kOperations>...};
}

//! The binary kernel of every arithmetic operation, kSUM to kFLOOR_DIV, by operation.
constexpr auto kBinaryKernels = binaryKernels(
    std::make_integer_sequence<int32_t, static_cast<int32_t>(nvinfer1::ElementWiseOperation::kFLOOR_DIV) + 1>());

//! Eight elements per access: where a one-step program reads FP16 into an FP16 output, both 16-byte aligned.
constexpr int kOctet = 8;

//! Whether the one-step `program` runs over FP16 octets (overHalfOctets), as its launch and its kernel both ask.
__host__ __device__ inline bool runsOverHalfOctets(Program const& program)
{
    Input const& input = program.inputs[program.soleInput];
    return input.type == DataType::kHALF && program.outputType == DataType::kHALF && !program.reluAfter
        && (reinterpret_cast<uintptr_t>(input.data) | reinterpret_cast<uintptr_t>(program.output)) % 16 == 0;
}

//! Runs `f` over FP16 `input` into the FP16 output, both 16-byte aligned: kOctet elements per access, as wide as a
//! thread moves memory; the elements past the last octet go one by one.
template <typename F>
__device__ void overHalfOctets(Program const& program, Input const& input, F const& f)
{
    int64_t const octets = program.count / kOctet;
    auto const* in = static_cast<uint4 const*>(input.data);
    auto* out = static_cast<uint4*>(program.output);
    KILN_GRID_STRIDE_LOOP(o, octets)
    {
        uint4 bits = in[o];
        auto* const pairs = reinterpret_cast<__half2*>(&bits);
#pragma unroll
        for (int k = 0; k < 4; ++k)
        {
            float2 const x = __half22float2(pairs[k]);
            pairs[k] = __floats2half2_rn(f(x.x), f(x.y));
        }
        out[o] = bits;
    }
    KILN_GRID_STRIDE_LOOP(i, program.count - octets * kOctet)
    {
        int64_t const e = octets * kOctet + i;
        device::storeFloat(program.output, DataType::kHALF, e, f(device::loadFloat(input.data, DataType::kHALF, e)));
    }
}

//! A program of one activation (kKind kACTIVATION) or unary step, operation kOperation, on input
//! `program.soleInput` of the output's shape, and with kGated its product with that input (Program::gated): one
//! kernel per operation, so that each holds only its own formula (a kernel holding every formula behind a switch, with
//! its register rows in local memory, waits on instruction fetch and on those rows more than on memory) and each group
//! costs its load, its formula and its store. FP16 to FP16, the commonest case, moves eight elements per access.
template <nvinfer1::LayerType kKind, int32_t kOperation, bool kGated>
__global__ void __launch_bounds__(device::kThreadsPerBlock) oneStepKernel(__grid_constant__ Program const program)
{
    Step const& step = program.steps[0];
    Input const& input = program.inputs[program.soleInput];
    int64_t const groups = (program.count + kGroupElements - 1) / kGroupElements;
    bool const halfOctets = runsOverHalfOctets(program);
    auto const overGroups = [&](auto const& activation) {
        // The step's formula, times its input where gated: computed in float and rounded once, as the chain would.
        auto const f = [&activation](float x) {
            if constexpr (kGated)
            {
                return x * activation(x);
            }
            else
            {
                return activation(x);
            }
        };
        if (halfOctets)
        {
            overHalfOctets(program, input, f);
            return 0;
        }
        KILN_GRID_STRIDE_LOOP(group, groups)
        {
            bool const whole = (group + 1) * kGroupElements <= program.count;
            FloatGroup values = program.grouped && whole
                ? device::loadGroup(input.data, input.type, group)
                : device::loadGroupByElement(input.data, input.type, group, program.count);
#pragma unroll
            for (int k = 0; k < kGroupElements; ++k)
            {
                values.v[k] = f(values.v[k]);
            }
            storeOutput(program, group, values);
        }
        return 0;
    };
    if constexpr (kKind == nvinfer1::LayerType::kACTIVATION)
    {
        device::visitActivation(static_cast<nvinfer1::ActivationType>(kOperation), step.alpha, step.beta, overGroups);
    }
    else
    {
        device::visitUnary(static_cast<nvinfer1::UnaryOperation>(kOperation), overGroups);
    }
}

using ProgramKernel = void (*)(Program);

template <nvinfer1::LayerType kKind, bool kGated, int32_t... kOperations>
constexpr std::array<ProgramKernel, sizeof...(kOperations)> oneStepKernels(
    std::integer_sequence<int32_t, kOperations...> /*operations*/)
{
    return {&oneStepKernel<kKind, kOperations, kGated>...};
}

//! The one-step kernel of every activation and every unary operation, and the gated one of every activation, by
//! operation.
constexpr auto kActivationKernels = oneStepKernels<nvinfer1::LayerType::kACTIVATION, false>(
    std::make_integer_sequence<int32_t, nvinfer1::EnumMax<nvinfer1::ActivationType>()>());
constexpr auto kGatedActivationKernels = oneStepKernels<nvinfer1::LayerType::kACTIVATION, true>(
    std::make_integer_sequence<int32_t, nvinfer1::EnumMax<nvinfer1::ActivationType>()>());
constexpr auto kUnaryKernels = oneStepKernels<nvinfer1::LayerType::kUNARY, false>(
    std::make_integer_sequence<int32_t, nvinfer1::EnumMax<nvinfer1::UnaryOperation>()>());

//! The kernel for a program of one activation or unary step, gated or not (Program::soleInput, Program::gated).
ProgramKernel oneStepKernelFor(Program const& program)
{
    Step const& step = program.steps[0];
    bool const activation = step.kind == nvinfer1::LayerType::kACTIVATION;
    auto const operation = static_cast<size_t>(step.operation);
    size_t const operations = activation ? kActivationKernels.size() : kUnaryKernels.size();
    if (operation >= operations)
    {
        throw std::invalid_argument("point-wise chain: operation " + std::to_string(step.operation) + " is unknown");
    }
    if (!activation)
    {
        return kUnaryKernels[operation];
    }
    return program.gated ? kGatedActivationKernels[operation] : kActivationKernels[operation];
}

class PointwiseLayer final : public PreparedKernelLayer
{
public:
    explicit PointwiseLayer(network::PointwiseParams const& params)
        : mParams(params)
    {
    }

private:
    void prepare(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        if (inputs.size() > static_cast<size_t>(kMaxPointwiseInputs))
        {
            throw std::invalid_argument("point-wise chain: " + std::to_string(inputs.size())
                + " inputs, more than the CUDA backend's " + std::to_string(kMaxPointwiseInputs));
        }
        std::array<ConstTensorView const*, kMaxPointwiseInputs> views{};
        for (size_t i = 0; i < inputs.size(); ++i)
        {
            views[i] = &inputs[i];
        }
        mProgram = pointwise::makeProgram(
            mParams.steps.data(), mParams.steps.size(), views.data(), inputs.size(), outputs.at(0), PointwiseOptions{});
        mBlocks = pointwiseBlocks(mProgram);
    }
    void launch(cudaStream_t stream) override
    {
        launchPointwise(mProgram, mBlocks, stream);
    }

    network::PointwiseParams const& mParams;
    Program mProgram;
    unsigned mBlocks{0};
};

} // namespace

unsigned pointwiseBlocks(Program const& program)
{
    // A thread per group of elements, or per octet where a one-step program takes eight at a time.
    int64_t const perThread = program.soleInput >= 0 && runsOverHalfOctets(program) ? kOctet : kGroupElements;
    return device::blocksFor((program.count + perThread - 1) / perThread);
}

void launchPointwise(Program const& program, unsigned blocks, cudaStream_t stream)
{
    if (program.count == 0)
    {
        return;
    }
    if (program.soleInput >= 0)
    {
        oneStepKernelFor(program)<<<blocks, device::kThreadsPerBlock, 0, stream>>>(program);
    }
    else if (program.binary)
    {
        kBinaryKernels.at(
            static_cast<size_t>(program.steps[0].operation))<<<blocks, device::kThreadsPerBlock, 0, stream>>>(program);
    }
    else
    {
        pointwiseKernel<<<blocks, device::kThreadsPerBlock, 0, stream>>>(program);
    }
    check(cudaGetLastError(), "point-wise chain: launching the kernel");
}

std::unique_ptr<DeviceLayer> lower(network::PointwiseParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<PointwiseLayer>(params);
}

} // namespace kiln::cuda
