// The point-wise kernel's program as the host makes it (backend/cuda/kernels/pointwise/pointwise_program.h), without a
// GPU: axes simplified to what the broadcasts need (a bias over [N * T, C], the attention mask over [B, H, T * T]), the
// strides each broadcast input reads through, register rows reused once a value is dead, single elements as constants,
// and when the kernel may move groups of four in one access, which lone or gated step names the input it reads, the
// operands of one arithmetic step, and broadcasts over channels-last tensors walked in storage order. Views point at
// addresses never read.
#include "backend/cuda/kernels/pointwise/pointwise_program.h"
#include "pointwise_steps.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::ConstTensorView;
using kiln::Shape;
using kiln::TensorView;
using kiln::cuda::PointwiseOptions;
using kiln::cuda::pointwise::constantOperand;
using kiln::cuda::pointwise::Program;
using kiln::cuda::pointwise::Reach;
using kiln::network::PointwiseStep;
using kiln::test::binary;
using kiln::test::in;
using kiln::test::result;
using kiln::test::unary;

//! An address aligned to 256 bytes plus `bytes`: the program only looks at addresses.
void const* at(size_t bytes)
{
    return reinterpret_cast<void const*>(static_cast<uintptr_t>(0x10000 + bytes));
}

ConstTensorView tensor(Shape shape, size_t address = 0, DataType type = DataType::kHALF)
{
    return ConstTensorView(type, std::move(shape), at(address));
}

TensorView output(Shape shape, size_t address = 0, DataType type = DataType::kHALF)
{
    return TensorView{type, std::move(shape), const_cast<void*>(at(address))};
}

//! The program of `steps` over `inputs`, the views handed over by pointer as the kernel's callers hand them.
Program programOf(std::vector<PointwiseStep> const& steps, std::vector<ConstTensorView> const& inputs,
    TensorView const& out, PointwiseOptions const& options)
{
    std::vector<ConstTensorView const*> views;
    for (ConstTensorView const& input : inputs)
    {
        views.push_back(&input);
    }
    return kiln::cuda::pointwise::makeProgram(steps.data(), steps.size(), views.data(), views.size(), out, options);
}

std::vector<int64_t> extentsOf(Program const& program)
{
    return std::vector<int64_t>(program.extents, program.extents + program.rank);
}

std::vector<int64_t> stridesOf(Program const& program, size_t input)
{
    return std::vector<int64_t>(program.inputs[input].strides, program.inputs[input].strides + program.rank);
}

Program sumOf(ConstTensorView const& a, ConstTensorView const& b, TensorView const& out)
{
    return programOf({binary(ElementWiseOperation::kSUM, in(0), in(1))}, {a, b}, out, PointwiseOptions{});
}

TEST(CudaPointwiseProgram, GeluKeepsTwoRegisterRowsAndItsConstantsApart)
{
    // x / c1, erf, + c2, x * that, * c3: x stays live until the fourth step; each result takes a freed row.
    std::vector<PointwiseStep> const steps{binary(ElementWiseOperation::kDIV, in(0), in(1)),
        unary(UnaryOperation::kERF, result(0)), binary(ElementWiseOperation::kSUM, result(1), in(2)),
        binary(ElementWiseOperation::kPROD, in(0), result(2)), binary(ElementWiseOperation::kPROD, result(3), in(3))};
    Shape const shape{2, 128, 3072};
    Program const program = programOf(steps,
        {tensor(shape), tensor({1, 1, 1}, 512, DataType::kFLOAT), tensor({1, 1, 1}, 520), tensor({1, 1, 1}, 530)},
        output(shape, 1 << 24), PointwiseOptions{});
    EXPECT_EQ(extentsOf(program), (std::vector<int64_t>{2 * 128 * 3072}));
    EXPECT_EQ(program.inputs[0].reach, Reach::kSAME_SHAPE);
    EXPECT_EQ(program.inputs[0].slot, 0);
    for (size_t i = 1; i < 4; ++i)
    {
        EXPECT_EQ(program.inputs[i].reach, Reach::kSINGLE) << i;
        EXPECT_EQ(program.inputs[i].slot, -1) << i;
    }
    EXPECT_EQ(program.slotCount, 2);
    EXPECT_EQ(program.steps[0].first, 0);
    EXPECT_EQ(program.steps[0].second, constantOperand(1));
    EXPECT_EQ(program.steps[0].result, 1);
    EXPECT_EQ(program.steps[1].first, 1);
    EXPECT_EQ(program.steps[1].result, 1); // erf overwrites its own operand's row
    EXPECT_EQ(program.steps[2].second, constantOperand(2));
    EXPECT_EQ(program.steps[3].first, 0);
    EXPECT_EQ(program.steps[3].second, 1);
    EXPECT_EQ(program.steps[3].result, 0); // x and the sum are dead after the product
    EXPECT_EQ(program.steps[4].first, 0);
    EXPECT_EQ(program.steps[4].second, constantOperand(3));
    EXPECT_EQ(program.resultSlot, program.steps[4].result);
    EXPECT_TRUE(program.grouped); // single elements need no alignment
    EXPECT_TRUE(program.narrow);
}

TEST(CudaPointwiseProgram, AResultReadLaterKeepsItsRow)
{
    // h = x + b; e = erf(h); y = h * e: h's row must survive the erf.
    std::vector<PointwiseStep> const steps{binary(ElementWiseOperation::kSUM, in(0), in(1)),
        unary(UnaryOperation::kERF, result(0)), binary(ElementWiseOperation::kPROD, result(0), result(1))};
    Program const program = programOf(steps, {tensor({4, 8}), tensor({4, 8}, 64)}, output({4, 8}), {});
    EXPECT_EQ(program.steps[0].result, 0); // x and b are dead after the sum; the sum takes x's row
    EXPECT_NE(program.steps[1].result, program.steps[0].result);
    EXPECT_EQ(program.steps[2].first, program.steps[0].result);
    EXPECT_EQ(program.steps[2].second, program.steps[1].result);
    EXPECT_EQ(program.slotCount, 2);
}

TEST(CudaPointwiseProgram, OnlyALoneStepOnAnInputOfTheOutputsShapeNamesItsInput)
{
    // The GELU fusion leaves a lone activation: the kernel that chooses its formula once runs it, reading input 1
    // (input 0, a constant nothing reads, has no row).
    PointwiseStep const gelu = kiln::test::activation(ActivationType::kGELU_ERF, in(1));
    EXPECT_EQ(programOf({gelu}, {tensor({1, 1}), tensor({4, 8}, 64)}, output({4, 8}), {}).soleInput, 1);
    EXPECT_EQ(programOf({unary(UnaryOperation::kERF, in(0))}, {tensor({4, 8})}, output({4, 8}), {}).soleInput, 0);
    // Not: an element-wise step, two steps, or an input that broadcasts.
    EXPECT_EQ(sumOf(tensor({4, 8}), tensor({4, 8}, 64), output({4, 8})).soleInput, -1);
    std::vector<PointwiseStep> const two{unary(UnaryOperation::kERF, in(0)), unary(UnaryOperation::kABS, result(0))};
    EXPECT_EQ(programOf(two, {tensor({4, 8})}, output({4, 8}), {}).soleInput, -1);
    EXPECT_EQ(programOf({unary(UnaryOperation::kERF, in(0))}, {tensor({1, 8})}, output({4, 8}), {}).soleInput, -1);
}

TEST(CudaPointwiseProgram, ABiasIndexesAsRowsOfTheOutput)
{
    Program const program = sumOf(tensor({1, 1, 768}), tensor({2, 128, 768}, 4096), output({2, 128, 768}, 1 << 20));
    EXPECT_EQ(program.inputs[0].reach, Reach::kBROADCAST);
    EXPECT_EQ(extentsOf(program), (std::vector<int64_t>{256, 768}));
    EXPECT_EQ(stridesOf(program, 0), (std::vector<int64_t>{0, 1}));
    EXPECT_TRUE(program.rowsHoldGroups);
    EXPECT_TRUE(program.grouped);
}

TEST(CudaPointwiseProgram, TheAttentionMaskRepeatsAlongTheHeads)
{
    Program const program
        = sumOf(tensor({2, 12, 128, 128}), tensor({2, 1, 128, 128}, 1 << 22), output({2, 12, 128, 128}, 1 << 23));
    EXPECT_EQ(extentsOf(program), (std::vector<int64_t>{2, 12, 128 * 128}));
    EXPECT_EQ(stridesOf(program, 1), (std::vector<int64_t>{128 * 128, 0, 1}));
}

TEST(CudaPointwiseProgram, OperandsThatBroadcastBothWaysKeepEveryAxis)
{
    Program const program = sumOf(tensor({4, 1, 6}), tensor({1, 5, 1}, 64), output({4, 5, 6}, 128));
    EXPECT_EQ(extentsOf(program), (std::vector<int64_t>{4, 5, 6}));
    EXPECT_EQ(stridesOf(program, 0), (std::vector<int64_t>{6, 0, 1}));
    EXPECT_EQ(stridesOf(program, 1), (std::vector<int64_t>{0, 1, 0}));
    EXPECT_FALSE(program.rowsHoldGroups); // 6 is not a multiple of four: groups straddle rows
}

TEST(CudaPointwiseProgram, ExtentsOfOneAreLeftOut)
{
    Program const program = sumOf(tensor({1, 3, 1, 5}), tensor({1, 1, 1, 5}, 64), output({1, 3, 1, 5}, 128));
    EXPECT_EQ(extentsOf(program), (std::vector<int64_t>{3, 5}));
    EXPECT_EQ(stridesOf(program, 1), (std::vector<int64_t>{0, 1}));
    Program const one = sumOf(tensor({1, 1}), tensor({1, 1}, 64), output({1, 1}, 128));
    EXPECT_EQ(extentsOf(one), (std::vector<int64_t>{1}));
    EXPECT_EQ(one.inputs[0].reach, Reach::kSAME_SHAPE);
}

TEST(CudaPointwiseProgram, GroupsNeedEveryFullSizeTensorAligned)
{
    Shape const shape{2, 64};
    EXPECT_TRUE(sumOf(tensor(shape, 0), tensor(shape, 256), output(shape, 512)).grouped);
    EXPECT_FALSE(sumOf(tensor(shape, 2), tensor(shape, 256), output(shape, 512)).grouped); // FP16 one element in
    EXPECT_FALSE(sumOf(tensor(shape, 0), tensor(shape, 256), output(shape, 514)).grouped);
    // FP32 groups are 16 bytes: 8 bytes in is not aligned, whatever FP16 would allow.
    EXPECT_FALSE(sumOf(
        tensor(shape, 8, DataType::kFLOAT), tensor(shape, 256, DataType::kFLOAT), output(shape, 512, DataType::kFLOAT))
                     .grouped);
    // A broadcast operand is read element by element, wherever it lies.
    EXPECT_TRUE(sumOf(tensor(shape, 0), tensor({1, 64}, 6), output(shape, 512)).grouped);
    // An input no step reads is not loaded, so its address does not matter.
    Program const unread = programOf({unary(UnaryOperation::kABS, in(0))}, {tensor(shape, 0), tensor(shape, 2)},
        output(shape, 512), PointwiseOptions{});
    EXPECT_EQ(unread.inputs[1].slot, -1);
    EXPECT_TRUE(unread.grouped);
}

TEST(CudaPointwiseProgram, ChannelsLastBroadcastsWalkTheStorageOrder)
{
    // Squeeze-and-excitation's scale [N, C, 1, 1] over a kHWC [N, C, H, W]: the output's axes in storage order,
    // [N, H * W, C], the scale repeating along the positions and read along the channels, innermost.
    Shape const shape{2, 12, 7, 7};
    TensorView const out{DataType::kHALF, shape, const_cast<void*>(at(1 << 16)), TensorFormat::kHWC};
    auto const product = [&](ConstTensorView const& a, ConstTensorView const& b) {
        return programOf({binary(ElementWiseOperation::kPROD, in(0), in(1))}, {a, b}, out, PointwiseOptions{});
    };
    ConstTensorView const x(DataType::kHALF, shape, at(0), TensorFormat::kHWC);
    for (TensorFormat scaleFormat : {TensorFormat::kHWC, TensorFormat::kLINEAR}) // stored alike either way
    {
        Program const program = product(x, ConstTensorView(DataType::kHALF, {2, 12, 1, 1}, at(4096), scaleFormat));
        EXPECT_EQ(extentsOf(program), (std::vector<int64_t>{2, 49, 12}));
        EXPECT_EQ(stridesOf(program, 1), (std::vector<int64_t>{12, 0, 1}));
        EXPECT_TRUE(program.rowsHoldGroups); // 12 channels: a group of four never leaves a position
    }
    // Either side; a [1, 1, H, W] map (one channel: stored alike) repeats along the batch and the channels.
    Program const map = product(ConstTensorView(DataType::kHALF, {1, 1, 7, 7}, at(4096)), x);
    EXPECT_EQ(extentsOf(map), (std::vector<int64_t>{2, 49, 12}));
    EXPECT_EQ(stridesOf(map, 0), (std::vector<int64_t>{0, 1, 0}));
    // A linear output keeps the logical order: the scale repeats along the innermost axes.
    Program const linear = programOf({binary(ElementWiseOperation::kPROD, in(0), in(1))},
        {tensor(shape), tensor({2, 12, 1, 1}, 4096)}, output(shape, 1 << 16), PointwiseOptions{});
    EXPECT_EQ(extentsOf(linear), (std::vector<int64_t>{24, 49}));
    EXPECT_EQ(stridesOf(linear, 1), (std::vector<int64_t>{1, 0}));
}

TEST(CudaPointwiseProgram, SiluAndHardSwishAreGatedActivations)
{
    // x * f(x), either way round, of an activation on an input of the output's shape: one formula per element.
    Shape const shape{2, 8, 5, 3};
    for (ActivationType type : {ActivationType::kSIGMOID, ActivationType::kHARD_SIGMOID})
    {
        PointwiseStep const gate = kiln::test::activation(type, in(0));
        for (auto const& product : {binary(ElementWiseOperation::kPROD, in(0), result(0)),
                 binary(ElementWiseOperation::kPROD, result(0), in(0))})
        {
            Program const program = programOf({gate, product}, {tensor(shape)}, output(shape, 4096), {});
            EXPECT_EQ(program.soleInput, 0);
            EXPECT_TRUE(program.gated);
        }
    }
    // Not: a sum, a unary operation, a product with another input, or a broadcast input.
    PointwiseStep const sigmoid = kiln::test::activation(ActivationType::kSIGMOID, in(0));
    auto const notGated = [&](std::vector<PointwiseStep> const& steps, std::vector<ConstTensorView> const& inputs) {
        Program const program = programOf(steps, inputs, output(shape, 1 << 16), {});
        EXPECT_EQ(program.soleInput, -1);
        EXPECT_FALSE(program.gated);
    };
    notGated({sigmoid, binary(ElementWiseOperation::kSUM, in(0), result(0))}, {tensor(shape)});
    notGated(
        {unary(UnaryOperation::kEXP, in(0)), binary(ElementWiseOperation::kPROD, in(0), result(0))}, {tensor(shape)});
    notGated({sigmoid, binary(ElementWiseOperation::kPROD, in(1), result(0))}, {tensor(shape), tensor(shape, 4096)});
    notGated({sigmoid, binary(ElementWiseOperation::kPROD, in(0), result(0))}, {tensor({2, 8, 1, 1})});
    // A lone activation is not gated.
    EXPECT_FALSE(programOf({sigmoid}, {tensor(shape)}, output(shape, 4096), {}).gated);
}

TEST(CudaPointwiseProgram, OneArithmeticStepNamesItsOperandsByInput)
{
    // The element-wise layer's program: each operand's input, whatever row it was loaded into.
    Program const sum = sumOf(tensor({4, 8}), tensor({1, 8}, 64), output({4, 8}, 128));
    EXPECT_TRUE(sum.binary);
    EXPECT_EQ(sum.binaryInputs[0], 0);
    EXPECT_EQ(sum.binaryInputs[1], 1);
    // An input no step reads has no row; the operands come in either order; a single element is a constant.
    Program const scaled = programOf({binary(ElementWiseOperation::kPROD, in(2), in(1))},
        {tensor({4, 8}), tensor({1, 1}, 64), tensor({4, 8}, 128)}, output({4, 8}, 256), {});
    EXPECT_TRUE(scaled.binary);
    EXPECT_EQ(scaled.binaryInputs[0], 2);
    EXPECT_EQ(scaled.binaryInputs[1], constantOperand(1));
    Program const same
        = programOf({binary(ElementWiseOperation::kSUM, in(0), in(0))}, {tensor({4, 8})}, output({4, 8}, 256), {});
    EXPECT_TRUE(same.binary);
    EXPECT_EQ(same.binaryInputs[1], 0);
    // Not: a comparison, two steps, an activation.
    EXPECT_FALSE(programOf({binary(ElementWiseOperation::kGREATER, in(0), in(1))}, {tensor({4, 8}), tensor({4, 8}, 64)},
        output({4, 8}, 128), {})
                     .binary);
    std::vector<PointwiseStep> const two{
        binary(ElementWiseOperation::kSUM, in(0), in(1)), binary(ElementWiseOperation::kPROD, result(0), in(1))};
    EXPECT_FALSE(programOf(two, {tensor({4, 8}), tensor({4, 8}, 64)}, output({4, 8}, 128), {}).binary);
    EXPECT_FALSE(programOf({unary(UnaryOperation::kABS, in(0))}, {tensor({4, 8})}, output({4, 8}, 128), {}).binary);
}

TEST(CudaPointwiseProgram, ASumThenAQdqStepIsBinaryAndRounds)
{
    // ConvNeXt's residual sum onto its codes' grid: the one-step kernel, rounding each sum as the pair does.
    PointwiseStep const pair = kiln::test::quantizeDequantize(result(0), 0.04F, DataType::kINT8);
    std::vector<ConstTensorView> const inputs{tensor({4, 8}), tensor({4, 8}, 64)};
    Program const rounded
        = programOf({binary(ElementWiseOperation::kSUM, in(0), in(1)), pair}, inputs, output({4, 8}, 128), {});
    EXPECT_TRUE(rounded.binary);
    EXPECT_TRUE(rounded.binaryRounds);
    EXPECT_EQ(rounded.binaryInputs[0], 0);
    EXPECT_EQ(rounded.binaryInputs[1], 1);
    EXPECT_EQ(rounded.steps[1].kind, LayerType::kQUANTIZE);
    EXPECT_FLOAT_EQ(rounded.steps[1].alpha, 0.04F);
    // A lone sum does not round.
    EXPECT_FALSE(sumOf(inputs[0], inputs[1], output({4, 8}, 128)).binaryRounds);
    // Not: a pair before the sum, a pair of an input after a sum, an activation after the sum.
    auto const notBinary = [&](std::vector<PointwiseStep> const& steps) {
        Program const program = programOf(steps, inputs, output({4, 8}, 128), {});
        EXPECT_FALSE(program.binary);
        EXPECT_FALSE(program.binaryRounds);
    };
    notBinary({kiln::test::quantizeDequantize(in(0), 0.04F, DataType::kINT8),
        binary(ElementWiseOperation::kSUM, result(0), in(1))});
    notBinary({binary(ElementWiseOperation::kSUM, in(0), in(1)),
        kiln::test::quantizeDequantize(in(0), 0.04F, DataType::kINT8)});
    notBinary(
        {binary(ElementWiseOperation::kSUM, in(0), in(1)), kiln::test::activation(ActivationType::kRELU, result(0))});
}

TEST(CudaPointwiseProgram, RefusesWhatTheKernelCannotRun)
{
    Shape const shape{2, 8, 4, 4};
    auto const sum = [](PointwiseOptions options, ConstTensorView const& a, ConstTensorView const& b) {
        return programOf({binary(ElementWiseOperation::kSUM, in(0), in(1))}, {a, b},
            TensorView{DataType::kHALF, a.shape, const_cast<void*>(at(4096)), a.format}, options);
    };
    ConstTensorView const channelsLast(DataType::kHALF, shape, at(0), TensorFormat::kHWC);
    // A broadcast input whose channels move when stored channels-last, stored linear: read in the output's storage
    // order it would be read out of order, whether or not the caller asks for its layouts checked.
    ConstTensorView const rowsLinear(DataType::kHALF, {1, 8, 4, 1}, at(512));
    PointwiseOptions unchecked;
    unchecked.checkLayouts = false;
    EXPECT_THROW(sum(PointwiseOptions{}, channelsLast, rowsLinear), std::invalid_argument);
    EXPECT_THROW(sum(unchecked, channelsLast, rowsLinear), std::invalid_argument);
    EXPECT_THROW(sum(PointwiseOptions{}, channelsLast,
                     ConstTensorView(DataType::kHALF, {1, 8, 4, 1}, at(512), TensorFormat::kHWC8)),
        std::invalid_argument);
    // The element-wise layer's rule for inputs of the output's shape: read as they are stored.
    ConstTensorView const sameShapeLinear(DataType::kHALF, shape, at(512));
    EXPECT_THROW(sum(PointwiseOptions{}, channelsLast, sameShapeLinear), std::invalid_argument);
    EXPECT_NO_THROW(sum(unchecked, channelsLast, sameShapeLinear));
    EXPECT_THROW(programOf({binary(ElementWiseOperation::kSUM, in(0), in(1))}, {tensor({2, 3}), tensor({3, 2})},
                     output({2, 3}), PointwiseOptions{}),
        std::invalid_argument);
    EXPECT_THROW(programOf({binary(ElementWiseOperation::kSUM, in(0), in(2))}, {tensor({2, 3}), tensor({2, 3})},
                     output({2, 3}), PointwiseOptions{}),
        std::invalid_argument);
    EXPECT_THROW(programOf({unary(UnaryOperation::kABS, in(0))}, {tensor({2, 3})}, output({2, 3}, 0, DataType::kINT32),
                     PointwiseOptions{}),
        std::invalid_argument);
}

} // namespace
