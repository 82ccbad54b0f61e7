#include "backend/cuda/kernels/pointwise/pointwise_program.h"

#include "backend/cuda/kernels/storage_order.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace kiln::cuda::pointwise
{
namespace
{

using network::PointwiseOperand;
using network::PointwiseStep;

constexpr int64_t kGroupElements = 4; // element_groups.cuh's group

//! network::wellFormed's rule: each operand an input or an earlier step's result.
bool wellFormed(PointwiseStep const* steps, size_t stepCount, size_t inputCount)
{
    auto const valid = [&](int32_t operand, size_t step) {
        return PointwiseOperand::isStep(operand) ? static_cast<size_t>(PointwiseOperand::stepOf(operand)) < step
                                                 : static_cast<size_t>(operand) < inputCount;
    };
    for (size_t s = 0; s < stepCount; ++s)
    {
        if (!valid(steps[s].first, s) || (steps[s].binary() && !valid(steps[s].second, s)))
        {
            return false;
        }
    }
    return stepCount > 0;
}

void requireInput(size_t i, ConstTensorView const& input, TensorView const& output, PointwiseOptions const& options)
{
    if (!isFloatType(input.type) || input.shape.size() != output.shape.size())
    {
        throw std::invalid_argument(
            "point-wise chain: input " + std::to_string(i) + " is not a floating-point tensor of the output's rank");
    }
    for (size_t axis = 0; axis < output.shape.size(); ++axis)
    {
        if (input.shape[axis] != output.shape[axis] && input.shape[axis] != 1)
        {
            throw std::invalid_argument(
                "point-wise chain: input " + std::to_string(i) + " does not broadcast into the output's shape");
        }
    }
    // Inputs of the output's shape are read at the output's index, broadcast ones through strides along the output's
    // storage order (storage_order.h): either way each must lie in memory as the output's order walks it. A single
    // element reads alike in every format.
    bool const sameShape = input.shape == output.shape;
    bool const walks = input.count() == 1 || walksInStorageOrder(input, output);
    if (!walks && (options.checkLayouts || !sameShape))
    {
        throw std::invalid_argument("point-wise chain: input " + std::to_string(i)
            + " is stored in another format than the output, or in kHWC8, and would be read out of order");
    }
}

void requireRunnable(PointwiseStep const* steps, size_t stepCount, ConstTensorView const* const* inputs,
    size_t inputCount, TensorView const& output, PointwiseOptions const& options)
{
    bool const fits = stepCount <= static_cast<size_t>(kMaxPointwiseSteps)
        && inputCount <= static_cast<size_t>(kMaxPointwiseInputs);
    if (!fits || !wellFormed(steps, stepCount, inputCount))
    {
        throw std::invalid_argument("point-wise chain: " + std::to_string(stepCount) + " steps over "
            + std::to_string(inputCount) + " inputs is not a chain the CUDA backend runs (at most "
            + std::to_string(kMaxPointwiseSteps) + " steps and " + std::to_string(kMaxPointwiseInputs) + " inputs)");
    }
    if (!isFloatType(output.type))
    {
        throw std::invalid_argument("point-wise chain: the CUDA backend writes FP32, FP16 or BF16");
    }
    if (output.shape.size() > static_cast<size_t>(kMaxRank))
    {
        throw std::invalid_argument("point-wise chain: the CUDA backend takes tensors of rank at most 8");
    }
    if (options.checkLayouts && output.format != TensorFormat::kLINEAR && output.format != TensorFormat::kHWC)
    {
        throw std::invalid_argument("point-wise chain: the CUDA backend writes kLINEAR or kHWC");
    }
    for (size_t i = 0; i < inputCount; ++i)
    {
        requireInput(i, *inputs[i], output, options);
    }
}

Reach reachOf(ConstTensorView const& input, TensorView const& output)
{
    if (input.shape == output.shape)
    {
        return Reach::kSAME_SHAPE;
    }
    return input.count() == 1 ? Reach::kSINGLE : Reach::kBROADCAST;
}

//! Bit i: whether input i repeats along output axis `axis` (only broadcast inputs do).
uint32_t repeatsAlong(Program const& program, ConstTensorView const* const* inputs, size_t axis)
{
    uint32_t repeats = 0;
    for (int32_t i = 0; i < program.inputCount; ++i)
    {
        if (program.inputs[i].reach == Reach::kBROADCAST && inputs[i]->shape[axis] == 1)
        {
            repeats |= 1U << i;
        }
    }
    return repeats;
}

//! Fills the program's axes, the output's in storage order, and each broadcast input's strides along them
//! (Program::extents says how).
void simplifyAxes(Program& program, ConstTensorView const* const* inputs, TensorView const& output)
{
    Shape const& out = output.shape;
    std::array<std::array<int64_t, kMaxRank>, kMaxPointwiseInputs> inputExtents{};
    int32_t rank = 0;
    uint32_t lastRepeats = 0;
    for (size_t position = 0; position < out.size(); ++position)
    {
        size_t const axis = storedAxisAt(output.format, out.size(), position);
        if (out[axis] == 1)
        {
            continue;
        }
        uint32_t const repeats = repeatsAlong(program, inputs, axis);
        if (rank == 0 || repeats != lastRepeats)
        {
            program.extents[rank] = 1;
            for (int32_t i = 0; i < program.inputCount; ++i)
            {
                inputExtents[static_cast<size_t>(i)][static_cast<size_t>(rank)] = 1;
            }
            ++rank;
        }
        program.extents[rank - 1] *= out[axis];
        for (int32_t i = 0; i < program.inputCount; ++i)
        {
            inputExtents[static_cast<size_t>(i)][static_cast<size_t>(rank - 1)] *= inputs[i]->shape[axis];
        }
        lastRepeats = repeats;
    }
    if (rank == 0)
    {
        program.extents[rank++] = 1; // one element: no input broadcasts
    }
    program.rank = rank;
    for (int32_t i = 0; i < program.inputCount; ++i)
    {
        if (program.inputs[i].reach != Reach::kBROADCAST)
        {
            continue;
        }
        int64_t stride = 1;
        for (int32_t axis = rank - 1; axis >= 0; --axis)
        {
            int64_t const extent = inputExtents[static_cast<size_t>(i)][static_cast<size_t>(axis)];
            program.inputs[i].strides[axis] = extent == 1 ? 0 : stride;
            stride *= extent;
        }
    }
}

//! The value an operand names: inputs are values 0..n-1, step s is value n + s.
size_t valueOf(int32_t operand, size_t inputCount)
{
    return PointwiseOperand::isStep(operand) ? inputCount + static_cast<size_t>(PointwiseOperand::stepOf(operand))
                                             : static_cast<size_t>(operand);
}

//! Where each value lives and until when: the register rows of a program being allocated.
struct Rows
{
    std::array<int32_t, kMaxSlots> lastUse{}; //!< the last step that reads each value; -1: none
    std::array<int32_t, kMaxSlots> slotOf{};  //!< each value's row; -1: none (not read, or a constant)
    std::array<bool, kMaxSlots> busy{};

    int32_t take(Program& program)
    {
        int32_t slot = 0;
        while (busy[static_cast<size_t>(slot)])
        {
            ++slot; // at most one row per value, and there are kMaxSlots values at most
        }
        busy[static_cast<size_t>(slot)] = true;
        program.slotCount = std::max(program.slotCount, slot + 1);
        return slot;
    }
};

//! Register rows for the values read per element: the inputs steps read (loaded first), then each step's result,
//! which may take the row of a value that no later step reads. The last step's row holds the output.
void allocateSlots(Program& program, PointwiseStep const* steps, size_t stepCount, size_t inputCount)
{
    size_t const values = inputCount + stepCount;
    Rows rows;
    rows.lastUse.fill(-1);
    rows.slotOf.fill(-1);
    for (size_t s = 0; s < stepCount; ++s)
    {
        rows.lastUse[valueOf(steps[s].first, inputCount)] = static_cast<int32_t>(s);
        if (steps[s].binary())
        {
            rows.lastUse[valueOf(steps[s].second, inputCount)] = static_cast<int32_t>(s);
        }
    }
    rows.lastUse[values - 1] = static_cast<int32_t>(stepCount); // read by the store
    auto const operand = [&](int32_t source) {
        size_t const value = valueOf(source, inputCount);
        bool const constant = value < inputCount && program.inputs[value].reach == Reach::kSINGLE;
        return constant ? constantOperand(static_cast<int32_t>(value)) : rows.slotOf[value];
    };
    for (size_t i = 0; i < inputCount; ++i)
    {
        if (program.inputs[i].reach != Reach::kSINGLE && rows.lastUse[i] >= 0)
        {
            program.inputs[i].slot = rows.slotOf[i] = rows.take(program);
        }
    }
    for (size_t s = 0; s < stepCount; ++s)
    {
        PointwiseStep const& step = steps[s];
        Step& compiled = program.steps[s];
        compiled = Step{step.kind, step.operation, operand(step.first), step.binary() ? operand(step.second) : 0, 0,
            step.alpha, step.beta, step.valueType};
        // The kernel reads both operands before it writes the result, so the result may take an operand's row.
        for (int32_t source : {step.first, step.binary() ? step.second : step.first})
        {
            size_t const value = valueOf(source, inputCount);
            if (rows.lastUse[value] == static_cast<int32_t>(s) && rows.slotOf[value] >= 0)
            {
                rows.busy[static_cast<size_t>(rows.slotOf[value])] = false;
            }
        }
        size_t const result = inputCount + s;
        compiled.result = rows.slotOf[result] = rows.take(program);
        if (rows.lastUse[result] < 0)
        {
            rows.busy[static_cast<size_t>(compiled.result)] = false; // no later step reads it
        }
    }
    program.resultSlot = rows.slotOf[values - 1];
}

bool alignedForGroups(void const* data, nvinfer1::DataType type)
{
    auto const groupBytes = static_cast<uintptr_t>(kGroupElements) * elementSize(type);
    return reinterpret_cast<uintptr_t>(data) % groupBytes == 0;
}

//! Whether `second` multiplies `first`'s input by `first`'s result (either way round: a product is commutative).
bool gates(Step const& first, Step const& second)
{
    bool const product = second.kind == nvinfer1::LayerType::kELEMENTWISE
        && second.operation == static_cast<int32_t>(nvinfer1::ElementWiseOperation::kPROD);
    return product
        && ((second.first == first.first && second.second == first.result)
            || (second.first == first.result && second.second == first.first));
}

//! Program::soleInput and Program::gated: one activation or unary step on an input of the output's shape, or an
//! activation and its product with that input.
void findSoleInput(Program& program)
{
    Step const& only = program.steps[0];
    bool const gated = program.stepCount == 2 && only.kind == nvinfer1::LayerType::kACTIVATION
        && gates(only, program.steps[1]);
    bool const formula = only.kind == nvinfer1::LayerType::kACTIVATION || only.kind == nvinfer1::LayerType::kUNARY;
    if ((program.stepCount != 1 && !gated) || !formula || only.first < 0)
    {
        return;
    }
    for (int32_t i = 0; i < program.inputCount; ++i)
    {
        bool const read = program.inputs[i].slot == only.first && program.inputs[i].reach == Reach::kSAME_SHAPE;
        program.soleInput = read ? i : program.soleInput;
    }
    program.gated = gated && program.soleInput >= 0;
}

//! Program::binary, Program::binaryInputs and Program::binaryRounds: one element-wise arithmetic step, its operands
//! named by input, alone or followed by a Q -> DQ step on its result.
void findBinary(Program& program)
{
    Step const& only = program.steps[0];
    bool const arithmetic = only.kind == nvinfer1::LayerType::kELEMENTWISE && only.operation >= 0
        && only.operation <= static_cast<int32_t>(nvinfer1::ElementWiseOperation::kFLOOR_DIV);
    Step const& next = program.steps[1];
    bool const rounds = program.stepCount == 2 && next.kind == nvinfer1::LayerType::kQUANTIZE
        && next.first == only.result;
    if ((program.stepCount != 1 && !rounds) || !arithmetic)
    {
        return;
    }
    int32_t const operands[2] = {only.first, only.second};
    for (int32_t k = 0; k < 2; ++k)
    {
        // A row holds the input loaded into it; a negative operand already names a single-element input.
        program.binaryInputs[k] = operands[k];
        for (int32_t i = 0; operands[k] >= 0 && i < program.inputCount; ++i)
        {
            program.binaryInputs[k] = program.inputs[i].slot == operands[k] ? i : program.binaryInputs[k];
        }
    }
    program.binary = true;
    program.binaryRounds = rounds;
}

} // namespace

Program makeProgram(PointwiseStep const* steps, size_t stepCount, ConstTensorView const* const* inputs,
    size_t inputCount, TensorView const& output, PointwiseOptions const& options)
{
    requireRunnable(steps, stepCount, inputs, inputCount, output, options);
    Program program;
    program.inputCount = static_cast<int32_t>(inputCount);
    program.stepCount = static_cast<int32_t>(stepCount);
    for (size_t i = 0; i < inputCount; ++i)
    {
        program.inputs[i].data = inputs[i]->data;
        program.inputs[i].type = inputs[i]->type;
        program.inputs[i].reach = reachOf(*inputs[i], output);
    }
    simplifyAxes(program, inputs, output);
    allocateSlots(program, steps, stepCount, inputCount);
    program.output = output.data;
    program.outputType = output.type;
    program.count = output.count();
    program.reluAfter = options.reluAfter;
    program.rowsHoldGroups = program.extents[program.rank - 1] % kGroupElements == 0;
    program.narrow = program.count <= static_cast<int64_t>(std::numeric_limits<uint32_t>::max());
    program.grouped = alignedForGroups(output.data, output.type);
    for (size_t i = 0; i < inputCount; ++i)
    {
        Input const& input = program.inputs[i];
        if (input.reach == Reach::kSAME_SHAPE && input.slot >= 0)
        {
            program.grouped = program.grouped && alignedForGroups(input.data, input.type);
        }
    }
    findSoleInput(program);
    findBinary(program);
    return program;
}

} // namespace kiln::cuda::pointwise
