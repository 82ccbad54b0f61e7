// The CUDA point-wise chain kernel called directly against the CPU reference: GELU as exported (single-element
// constants), a bias GELU whose first result is read again later (register rows reused), LayerNorm's tail (statistics
// repeated along the innermost axis, parameters along the others), operands that broadcast both ways, sixteen inputs,
// one step of every activation and of unary operations (the kernel that chooses the formula once), every activation
// gated by its input (SiLU, hard-swish), the element-wise layer's broadcasts over channels-last tensors,
// NaN and infinities through MAX, MIN and activations, FP32, FP16 and BF16, tensors aligned for groups of four or one
// element past (so the kernel moves elements one by one), ragged extents, in place, one element and none.
#include "kernel_comparison.h"
#include "pointwise_steps.h"

#include "backend/cuda/kernels/kernels.h"
#include "network/fused/pointwise.h"

#include <algorithm>
#include <limits>
#include <memory>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using kiln::network::PointwiseStep;

constexpr DataType kFloatTypes[] = {DataType::kFLOAT, DataType::kHALF, DataType::kBF16};

kiln::network::PointwiseParams chain(std::vector<PointwiseStep> steps)
{
    kiln::network::PointwiseParams params;
    params.steps = std::move(steps);
    return params;
}

//! A tensor of `shape` in `type` with values in [low, high].
HostTensor valuesOf(kiln::Shape const& shape, DataType type, float low, float high, uint32_t seed)
{
    return fromFloats(shape, scattered(static_cast<size_t>(kiln::volume(shape)), low, high, seed), type);
}

HostTensor single(float value, size_t rank, DataType type = DataType::kFLOAT)
{
    return fromFloats(kiln::Shape(rank, 1), {value}, type);
}

struct Offsets
{
    size_t inputs;
    size_t output;
};

constexpr Offsets kPlacements[] = {{0, 0}, {1, 1}, {0, 1}, {1, 0}};

//! The chain on both backends with the full-size inputs placed `at.inputs` elements past an aligned address (single
//! elements stay aligned) and the output `at.output` past one.
void expectChainAgrees(kiln::network::PointwiseParams const& params, std::vector<HostTensor> const& inputs,
    kiln::Shape const& outputShape, DataType outputType, Offsets at, std::string const& what)
{
    SCOPED_TRACE(what + ", offsets " + std::to_string(at.inputs) + "/" + std::to_string(at.output));
    std::vector<Placed> placed;
    for (HostTensor const& input : inputs)
    {
        placed.push_back(Placed{input, input.count() == 1 ? 0 : at.inputs});
    }
    auto const [cpu, gpu] = runBothKernels(params, placed, {zeros(outputShape, outputType)}, at.output);
    expectClose(gpu.at(0), cpu.at(0), toleranceFor(outputType), what);
}

//! GELU as PyTorch exports it: x / sqrt(2), erf, + 1, x * that, * 0.5.
kiln::network::PointwiseParams exportedGelu()
{
    return chain({binary(ElementWiseOperation::kDIV, in(0), in(1)), unary(UnaryOperation::kERF, result(0)),
        binary(ElementWiseOperation::kSUM, result(1), in(2)), binary(ElementWiseOperation::kPROD, in(0), result(2)),
        binary(ElementWiseOperation::kPROD, result(3), in(3))});
}

TEST(CudaPointwiseKernel, GeluAsExported)
{
    SKIP_WITHOUT_GPU();
    for (kiln::Shape const& shape : {kiln::Shape{2, 128, 3072}, kiln::Shape{2, 7, 37}, kiln::Shape{5}})
    {
        for (DataType type : kFloatTypes)
        {
            std::vector<HostTensor> const inputs{valuesOf(shape, type, -6.0F, 6.0F, 1),
                single(1.41421356F, shape.size()), single(1.0F, shape.size(), type), single(0.5F, shape.size(), type)};
            for (Offsets at : kPlacements)
            {
                expectChainAgrees(exportedGelu(), inputs, shape, type, at,
                    "gelu over " + std::to_string(kiln::volume(shape)) + " " + kiln::dataTypeName(type));
            }
        }
    }
}

TEST(CudaPointwiseKernel, BiasGeluReadsItsFirstResultAgain)
{
    SKIP_WITHOUT_GPU();
    auto const params = chain({binary(ElementWiseOperation::kSUM, in(0), in(1)),
        binary(ElementWiseOperation::kDIV, result(0), in(2)), unary(UnaryOperation::kERF, result(1)),
        binary(ElementWiseOperation::kSUM, result(2), in(3)), binary(ElementWiseOperation::kPROD, result(0), result(3)),
        binary(ElementWiseOperation::kPROD, result(4), in(4))});
    for (kiln::Shape const& shape : {kiln::Shape{2, 16, 768}, kiln::Shape{3, 5, 37}})
    {
        kiln::Shape const biasShape{1, 1, shape.back()};
        for (DataType type : kFloatTypes)
        {
            std::vector<HostTensor> const inputs{valuesOf(shape, type, -4.0F, 4.0F, 2),
                valuesOf(biasShape, type, -1.0F, 1.0F, 3), single(1.41421356F, 3), single(1.0F, 3), single(0.5F, 3)};
            for (Offsets at : kPlacements)
            {
                expectChainAgrees(params, inputs, shape, type, at, "bias gelu " + kiln::dataTypeName(type));
            }
        }
    }
}

TEST(CudaPointwiseKernel, LayerNormTailBroadcastsAlongEveryAxis)
{
    SKIP_WITHOUT_GPU();
    // (x - mean) * rstd * gamma + beta: mean and rstd [N, T, 1], gamma and beta [1, 1, C].
    auto const params = chain({binary(ElementWiseOperation::kSUB, in(0), in(1)),
        binary(ElementWiseOperation::kPROD, result(0), in(2)), binary(ElementWiseOperation::kPROD, result(1), in(3)),
        binary(ElementWiseOperation::kSUM, result(2), in(4))});
    for (kiln::Shape const& shape : {kiln::Shape{4, 9, 768}, kiln::Shape{2, 7, 37}, kiln::Shape{2, 3, 6}})
    {
        kiln::Shape const statistics{shape[0], shape[1], 1};
        kiln::Shape const parameters{1, 1, shape[2]};
        for (DataType type : kFloatTypes)
        {
            std::vector<HostTensor> const inputs{valuesOf(shape, type, -3.0F, 5.0F, 4),
                valuesOf(statistics, type, -1.0F, 1.0F, 5), valuesOf(statistics, type, 0.5F, 2.0F, 6),
                valuesOf(parameters, type, 0.5F, 1.5F, 7), valuesOf(parameters, type, -0.2F, 0.2F, 8)};
            for (Offsets at : kPlacements)
            {
                expectChainAgrees(params, inputs, shape, type, at, "layer norm tail " + kiln::dataTypeName(type));
            }
        }
    }
}

TEST(CudaPointwiseKernel, OperandsThatBroadcastBothWays)
{
    SKIP_WITHOUT_GPU();
    auto const params
        = chain({binary(ElementWiseOperation::kSUB, in(0), in(1)), unary(UnaryOperation::kABS, result(0))});
    for (DataType type : kFloatTypes)
    {
        for (Offsets at : kPlacements)
        {
            // [4, 1, 6] - [1, 5, 1] and [1, 5, 8] - [3, 1, 1]: every axis repeats in one of them.
            expectChainAgrees(params,
                {valuesOf({4, 1, 6}, type, -2.0F, 2.0F, 9), valuesOf({1, 5, 1}, type, -2.0F, 2.0F, 10)}, {4, 5, 6},
                type, at, "[4, 1, 6] - [1, 5, 1]");
            expectChainAgrees(params,
                {valuesOf({1, 5, 8}, type, -2.0F, 2.0F, 11), valuesOf({3, 1, 1}, type, -2.0F, 2.0F, 12)}, {3, 5, 8},
                type, at, "[1, 5, 8] - [3, 1, 1]");
        }
    }
}

TEST(CudaPointwiseKernel, SixteenInputsOfEveryReach)
{
    SKIP_WITHOUT_GPU();
    // The running sum of sixteen inputs, each of another shape, so that sixteen register rows are live at once.
    std::vector<kiln::Shape> const shapes{{2, 3, 4, 8}, {1, 1, 1, 1}, {2, 1, 1, 1}, {1, 3, 1, 1}, {1, 1, 4, 1},
        {1, 1, 1, 8}, {2, 3, 1, 1}, {1, 3, 4, 1}, {1, 1, 4, 8}, {2, 1, 4, 1}, {2, 1, 1, 8}, {1, 3, 1, 8}, {2, 3, 4, 8},
        {2, 3, 4, 1}, {1, 3, 4, 8}, {2, 1, 4, 8}};
    std::vector<PointwiseStep> steps{binary(ElementWiseOperation::kSUM, in(0), in(1))};
    for (int32_t i = 2; i < 16; ++i)
    {
        steps.push_back(binary(i % 3 == 0 ? ElementWiseOperation::kSUB : ElementWiseOperation::kSUM,
            result(static_cast<int32_t>(steps.size()) - 1), in(i)));
    }
    for (DataType type : {DataType::kFLOAT, DataType::kHALF})
    {
        std::vector<HostTensor> inputs;
        for (size_t i = 0; i < shapes.size(); ++i)
        {
            inputs.push_back(valuesOf(shapes[i], type, -1.0F, 1.0F, static_cast<uint32_t>(20 + i)));
        }
        for (Offsets at : kPlacements)
        {
            expectChainAgrees(chain(steps), inputs, {2, 3, 4, 8}, type, at, "sixteen inputs");
        }
    }
}

TEST(CudaPointwiseKernel, OneStepOfEveryActivationAndUnaryOperation)
{
    SKIP_WITHOUT_GPU();
    // A lone step on an input of the output's shape runs the kernel that chooses its formula once (the GELU fusion
    // leaves such chains); a ragged count, so that the last group is partial.
    std::vector<kiln::network::PointwiseStep> steps;
    for (ActivationType type :
        {ActivationType::kRELU, ActivationType::kSIGMOID, ActivationType::kTANH, ActivationType::kLEAKY_RELU,
            ActivationType::kELU, ActivationType::kSELU, ActivationType::kSOFTSIGN, ActivationType::kSOFTPLUS,
            ActivationType::kCLIP, ActivationType::kHARD_SIGMOID, ActivationType::kSCALED_TANH,
            ActivationType::kTHRESHOLDED_RELU, ActivationType::kGELU_ERF, ActivationType::kGELU_TANH})
    {
        steps.push_back(activation(type, in(0), 0.2F, 0.7F));
    }
    for (UnaryOperation op : {UnaryOperation::kEXP, UnaryOperation::kABS, UnaryOperation::kNEG, UnaryOperation::kSIN,
             UnaryOperation::kERF, UnaryOperation::kFLOOR, UnaryOperation::kSIGN, UnaryOperation::kROUND})
    {
        steps.push_back(unary(op, in(0)));
    }
    kiln::Shape const shape{3, 7, 53};
    for (kiln::network::PointwiseStep const& step : steps)
    {
        for (DataType type : kFloatTypes)
        {
            HostTensor const x = valuesOf(shape, type, -4.0F, 4.0F, 50);
            for (Offsets at : kPlacements)
            {
                expectChainAgrees(chain({step}), {x}, shape, type, at,
                    "one step of kind " + std::to_string(static_cast<int32_t>(step.kind)) + ", operation "
                        + std::to_string(step.operation) + ", " + kiln::dataTypeName(type));
            }
        }
    }
}

TEST(CudaPointwiseKernel, GatedActivationsOfEveryKind)
{
    SKIP_WITHOUT_GPU();
    // x * f(x), either way round (SiLU as exported, hard-swish as imported): the gated kernel of one formula. A ragged
    // count (the last group partial, FP16 elements past the last octet) and one of whole octets.
    for (ActivationType type :
        {ActivationType::kRELU, ActivationType::kSIGMOID, ActivationType::kTANH, ActivationType::kLEAKY_RELU,
            ActivationType::kELU, ActivationType::kSELU, ActivationType::kSOFTSIGN, ActivationType::kSOFTPLUS,
            ActivationType::kCLIP, ActivationType::kHARD_SIGMOID, ActivationType::kSCALED_TANH,
            ActivationType::kTHRESHOLDED_RELU, ActivationType::kGELU_ERF, ActivationType::kGELU_TANH})
    {
        float const alpha = type == ActivationType::kHARD_SIGMOID ? 1.0F / 6.0F : 0.2F;
        float const beta = type == ActivationType::kHARD_SIGMOID ? 0.5F : 0.7F;
        kiln::network::PointwiseStep const gate = activation(type, in(0), alpha, beta);
        for (bool inputFirst : {true, false})
        {
            auto const params = chain({gate,
                inputFirst ? binary(ElementWiseOperation::kPROD, in(0), result(0))
                           : binary(ElementWiseOperation::kPROD, result(0), in(0))});
            for (kiln::Shape const& shape : {kiln::Shape{3, 7, 53}, kiln::Shape{2, 16, 8, 8}})
            {
                for (DataType dataType : kFloatTypes)
                {
                    HostTensor const x = valuesOf(shape, dataType, -6.0F, 6.0F, 80);
                    for (Offsets at : kPlacements)
                    {
                        expectChainAgrees(params, {x}, shape, dataType, at,
                            "gated activation " + std::to_string(static_cast<int32_t>(type)) + " over "
                                + std::to_string(kiln::volume(shape)) + " " + kiln::dataTypeName(dataType));
                    }
                }
            }
        }
    }
}

TEST(CudaPointwiseKernel, NanAndInfinitiesThroughMaxMinAndActivations)
{
    SKIP_WITHOUT_GPU();
    float const inf = std::numeric_limits<float>::infinity();
    std::vector<float> x = scattered(3 * 10 * 13, -3.0F, 3.0F, 30);
    for (size_t i = 0; i < x.size(); i += 7)
    {
        x[i] = i % 3 == 0 ? NAN : (i % 3 == 1 ? inf : -inf);
    }
    std::vector<float> y = scattered(10, -1.0F, 1.0F, 31);
    y[4] = NAN;
    auto const params = chain({binary(ElementWiseOperation::kMAX, in(0), in(1)),
        activation(ActivationType::kLEAKY_RELU, result(0), 0.1F), unary(UnaryOperation::kABS, result(1)),
        binary(ElementWiseOperation::kMIN, result(2), in(0)), activation(ActivationType::kCLIP, result(3), -1.0F, 2.0F),
        activation(ActivationType::kGELU_ERF, result(4)), unary(UnaryOperation::kSIN, result(5))});
    for (DataType type : kFloatTypes)
    {
        for (Offsets at : kPlacements)
        {
            expectChainAgrees(params, {fromFloats({3, 10, 13}, x, type), fromFloats({1, 10, 1}, y, type)}, {3, 10, 13},
                type, at, "special values " + kiln::dataTypeName(type));
        }
    }
}

TEST(CudaPointwiseKernel, MixedTypesInPlaceAndEdges)
{
    SKIP_WITHOUT_GPU();
    // An FP16 input with FP32 constants written as BF16.
    kiln::Shape const shape{2, 9, 64};
    std::vector<HostTensor> const mixed{valuesOf(shape, DataType::kHALF, -5.0F, 5.0F, 40), single(1.41421356F, 3),
        single(1.0F, 3, DataType::kBF16), single(0.5F, 3)};
    expectChainAgrees(exportedGelu(), mixed, shape, DataType::kBF16, {0, 0}, "fp16 in, bf16 out");
    // In place: the output is the first input.
    for (DataType type : {DataType::kFLOAT, DataType::kHALF})
    {
        for (size_t offset : {0, 1})
        {
            SCOPED_TRACE("in place " + kiln::dataTypeName(type) + " offset " + std::to_string(offset));
            std::vector<Placed> const inputs{Placed{valuesOf({3, 5, 37}, type, -3.0F, 3.0F, 41), offset},
                Placed{single(1.41421356F, 3), 0}, Placed{single(1.0F, 3), 0}, Placed{single(0.5F, 3), 0}};
            auto const [cpu, gpu] = runBothKernels(exportedGelu(), inputs, {zeros({3, 5, 37}, type)}, 0, true);
            expectClose(gpu.at(0), cpu.at(0), toleranceFor(type));
        }
    }
    // One element, and none.
    auto const difference = chain({binary(ElementWiseOperation::kSUB, in(0), in(1))});
    expectChainAgrees(difference, {single(3.0F, 2), single(0.25F, 2)}, {1, 1}, DataType::kFLOAT, {0, 0}, "one");
    expectChainAgrees(difference, {zeros({2, 0, 5}), single(0.25F, 3)}, {2, 0, 5}, DataType::kFLOAT, {0, 0}, "none");
}

// The element-wise layer's floating-point arithmetic runs the same kernel as a chain of one step.

void expectElementWiseAgrees(
    ElementWiseOperation op, HostTensor const& a, HostTensor const& b, Offsets at, std::string const& what)
{
    SCOPED_TRACE(what + ", operation " + std::to_string(static_cast<int32_t>(op)) + ", offsets "
        + std::to_string(at.inputs) + "/" + std::to_string(at.output));
    kiln::network::ElementWiseParams params;
    params.operation = op;
    kiln::Shape out(a.shape.size());
    for (size_t axis = 0; axis < out.size(); ++axis)
    {
        out[axis] = std::max(a.shape[axis], b.shape[axis]);
    }
    auto const [cpu, gpu] = runBothKernels(
        params, {Placed{a, a.count() == 1 ? 0 : at.inputs}, Placed{b, at.inputs}}, {zeros(out, a.type)}, at.output);
    expectClose(gpu.at(0), cpu.at(0), toleranceFor(a.type), what);
}

TEST(CudaPointwiseKernel, ElementWiseArithmeticOfEveryOperation)
{
    SKIP_WITHOUT_GPU();
    ElementWiseOperation const operations[] = {ElementWiseOperation::kSUM, ElementWiseOperation::kPROD,
        ElementWiseOperation::kMAX, ElementWiseOperation::kMIN, ElementWiseOperation::kSUB, ElementWiseOperation::kDIV,
        ElementWiseOperation::kPOW, ElementWiseOperation::kFLOOR_DIV};
    for (DataType type : kFloatTypes)
    {
        HostTensor const a = valuesOf({2, 9, 37}, type, -3.0F, 3.0F, 50);
        HostTensor const row = valuesOf({1, 1, 37}, type, 0.5F, 2.0F, 51);
        HostTensor const same = valuesOf({2, 9, 37}, type, -2.0F, 2.0F, 52);
        for (ElementWiseOperation op : operations)
        {
            for (Offsets at : kPlacements)
            {
                expectElementWiseAgrees(op, a, row, at, "row broadcast " + kiln::dataTypeName(type));
                expectElementWiseAgrees(op, a, same, at, "same shape " + kiln::dataTypeName(type));
            }
        }
    }
}

TEST(CudaPointwiseKernel, ElementWiseShapesOfATransformer)
{
    SKIP_WITHOUT_GPU();
    for (DataType type : kFloatTypes)
    {
        for (Offsets at : kPlacements)
        {
            std::string const name = kiln::dataTypeName(type);
            // A bias add, either operand first; scaling by one element; the attention mask; a residual sum.
            HostTensor const tokens = valuesOf({2, 128, 768}, type, -2.0F, 2.0F, 60);
            HostTensor const bias = valuesOf({1, 1, 768}, type, -0.5F, 0.5F, 61);
            expectElementWiseAgrees(ElementWiseOperation::kSUM, bias, tokens, at, "bias first " + name);
            expectElementWiseAgrees(ElementWiseOperation::kSUM, tokens, bias, at, "bias second " + name);
            expectElementWiseAgrees(ElementWiseOperation::kPROD, valuesOf({2, 12, 128, 64}, type, -3.0F, 3.0F, 62),
                single(0.125F, 4, type), at, "scale " + name);
            expectElementWiseAgrees(ElementWiseOperation::kSUM, valuesOf({2, 12, 128, 128}, type, -3.0F, 3.0F, 63),
                valuesOf({2, 1, 128, 128}, type, -100.0F, 0.0F, 64), at, "mask " + name);
            expectElementWiseAgrees(ElementWiseOperation::kSUM, tokens, valuesOf({2, 128, 768}, type, -1.0F, 1.0F, 65),
                at, "residual " + name);
        }
    }
}

TEST(CudaPointwiseKernel, ElementWiseSumWithReluInPlace)
{
    SKIP_WITHOUT_GPU();
    // A convolution's residual and ReLU (makeElementWiseLayer with relu), written over the first operand; the
    // expectation is the CPU reference's sum with x < 0 made 0 (a NaN stays NaN).
    std::vector<float> values = scattered(4 * 37, -3.0F, 3.0F, 70);
    values[5] = NAN;
    for (DataType type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (size_t offset : {0, 1})
        {
            HostTensor const first = fromFloats({4, 37}, values, type);
            HostTensor const second = valuesOf({4, 37}, type, -2.0F, 2.0F, 71);
            HostTensor sum = zeros({4, 37}, type);
            kiln::network::ElementWiseParams params;
            kiln::cpu::run(params, {first.constView(), second.constView()}, {sum.view()});
            std::vector<float> expected = sum.floats();
            for (float& value : expected)
            {
                value = value < 0.0F ? 0.0F : value;
            }
            DeviceTensor const a(first, offset);
            DeviceTensor const b(second, offset);
            std::unique_ptr<kiln::cuda::DeviceLayer> const layer
                = kiln::cuda::makeElementWiseLayer(ElementWiseOperation::kSUM, true);
            layer->run({a.constView(), b.constView()}, {a.view()}, nullptr);
            expectClose(a.read().floats(), expected, toleranceFor(type),
                "relu " + kiln::dataTypeName(type) + " offset " + std::to_string(offset));
            EXPECT_TRUE(a.guardsIntact());
        }
    }
}

//! The element-wise layer over kHWC operands and output (as a channels-last region runs it) against the CPU
//! reference over the same values stored kLINEAR; inputs `offset` elements past an aligned address.
void expectChannelsLastAgrees(ElementWiseOperation op, HostTensor const& a, HostTensor const& b, DataType outputType,
    size_t offset, std::string const& what)
{
    SCOPED_TRACE(
        what + ", operation " + std::to_string(static_cast<int32_t>(op)) + ", offset " + std::to_string(offset));
    kiln::Shape out(a.shape.size());
    for (size_t axis = 0; axis < out.size(); ++axis)
    {
        out[axis] = std::max(a.shape[axis], b.shape[axis]);
    }
    kiln::network::ElementWiseParams params;
    params.operation = op;
    HostTensor expected = zeros(out, outputType);
    kiln::cpu::run(params, {a.constView(), b.constView()}, {expected.view()});
    DeviceTensor const first(reorderedChannels(a, true), offset);
    DeviceTensor const second(reorderedChannels(b, true), offset);
    DeviceTensor const result(out, outputType, offset);
    kiln::ConstTensorView firstView = first.constView();
    kiln::ConstTensorView secondView = second.constView();
    kiln::TensorView resultView = result.view();
    firstView.format = secondView.format = resultView.format = TensorFormat::kHWC;
    std::unique_ptr<kiln::cuda::DeviceLayer> const layer = kiln::cuda::makeElementWiseLayer(op, false);
    layer->run({firstView, secondView}, {resultView}, nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    expectClose(reorderedChannels(result.read(), false), expected, toleranceFor(a.type));
    EXPECT_TRUE(result.guardsIntact());
}

TEST(CudaPointwiseKernel, ElementWiseBroadcastsOverChannelsLastTensors)
{
    SKIP_WITHOUT_GPU();
    // Squeeze-and-excitation's scale [N, C, 1, 1] on either side, a bias [1, C, 1, 1], a map [1, 1, H, W] repeated
    // over the channels, and a comparison (the general kernel), with channels a multiple of 8, of 4 only, and odd.
    for (DataType type : {DataType::kFLOAT, DataType::kHALF})
    {
        for (int64_t channels : {16, 12, 3})
        {
            std::string const name = kiln::dataTypeName(type) + ", " + std::to_string(channels) + " channels";
            HostTensor const x = valuesOf({2, channels, 5, 7}, type, -3.0F, 3.0F, 90);
            HostTensor const scale = valuesOf({2, channels, 1, 1}, type, 0.0F, 1.0F, 91);
            HostTensor const bias = valuesOf({1, channels, 1, 1}, type, -1.0F, 1.0F, 92);
            HostTensor const map = valuesOf({1, 1, 5, 7}, type, 0.5F, 2.0F, 93);
            for (size_t offset : {0, 1})
            {
                expectChannelsLastAgrees(ElementWiseOperation::kPROD, x, scale, type, offset, "scale second " + name);
                expectChannelsLastAgrees(ElementWiseOperation::kPROD, scale, x, type, offset, "scale first " + name);
                expectChannelsLastAgrees(ElementWiseOperation::kSUM, bias, x, type, offset, "bias " + name);
                expectChannelsLastAgrees(ElementWiseOperation::kSUB, x, map, type, offset, "map " + name);
                expectChannelsLastAgrees(
                    ElementWiseOperation::kGREATER, x, scale, DataType::kBOOL, offset, "comparison " + name);
            }
        }
    }
}

} // namespace
