// The CUDA backend's INT8 convolution (kernels/convolution/quantized_convolution.h) on Q/DQ networks made as Model
// Optimizer's exports are: the quantized fusion makes one QuantizedConvolution of DQ -> convolution -> [+ residual]
// [activation, self-gated or not] [Q] in the CUDA plan, reading INT8 channels-last (or channels-first where the
// configuration keeps every tensor linear) (checked without a GPU), and its results agree with the CPU reference
// kernels, which run every layer as written. The INT8 tensors enter and leave the channels-last region through the
// reformatter. Small cases run the layer through cuBLASLt's product; ManyTilesRunTheImplicitGemm gives channels-last
// the implicit GEMM; CudnnGraphEnginesAgreeWithTheReference runs layers through cuDNN's graph engines, as the builder
// chooses where they are faster (quantized_convolution_graph.h).
//
// Tolerance: the CUDA kernel sums the INT8 products exactly in INT32 and scales each sum once in FP32; the reference
// sums the dequantized FP32 products and rounds the sum to FP32. The two differ by a few FP32 roundings of the sum.
// Where the chain ends in a quantization that can move a value across a boundary of the INT8 grid: those outputs agree
// within one step of the output's scale. FP32 outputs agree within 1e-5 of their magnitude. FP16 builds fuse the same
// chains (the fused layer computes as in FP32 builds), and agree with the FP16 reference within its FP16 roundings.
#include "backend/cuda/libraries/cudnn/quantized_convolution_graph.h"
#include "backend/cuda/tuning/algorithm_choice.h"
#include "backend_comparison.h"
#include "core/quantization.h"
#include "network/fused/quantized_convolution.h"
#include "plan/plan_graph.h"

#include <kiln/ConvolutionLayout.h>
#include <kiln/CpuBackend.h>

#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using kiln::network::kQuantizedConvolutionLayerType;

enum class Residual
{
    kNONE,
    kINT8, //!< input "r" through a Q/DQ pair
    kFLOAT //!< input "r" itself
};

struct QdqConvolution
{
    Dims input{4, {2, 12, 11, 9}};
    int32_t maps{20};
    int32_t kernel{3};
    int32_t stride{1};
    int32_t padding{1};
    int32_t dilation{1};
    Residual residual{Residual::kNONE};
    bool relu{true};
    //! Where set, instead of the ReLU: this activation self-gated as networks write it, an activation and the product
    //! of its input by its output: SiLU (kSIGMOID) or hard-swish (kHARD_SIGMOID, alpha 1/6, beta 1/2).
    std::optional<ActivationType> gate{};
    bool quantizesOutput{true};
    bool pools{
        false}; //!< a 3x3 max pooling of stride 2 between the input's Q/DQ and a pair of the same scale (ResNet's stem)
    bool fp16{false};    //!< built with kFP16: the layers between the pairs compute in FP16
    bool sigmoid{false}; //!< a sigmoid after the chain, which does not fuse: it reads the fused layer's output
};

constexpr float kInputScale = 1.0F / 64.0F;
constexpr float kResidualScale = 2.0F / 127.0F;
constexpr float kOutputScale = 0.05F;

Weights weights(std::vector<float> const& values)
{
    return Weights{DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())};
}

ITensor& scalar(INetworkDefinition& network, float const& value)
{
    return *network.addConstant(Dims{}, Weights{DataType::kFLOAT, &value, 1})->getOutput(0);
}

ITensor& quantizedPair(INetworkDefinition& network, ITensor& input, float const& scale)
{
    ITensor* q = network.addQuantize(input, scalar(network, scale), DataType::kINT8)->getOutput(0);
    return *network.addDequantize(*q, scalar(network, scale), DataType::kFLOAT)->getOutput(0);
}

//! Filters of INT8 values times one scale per map, exactly, each map's largest magnitude 127 steps (max calibration).
std::vector<float> quantizedFilters(int64_t maps, int64_t perMap)
{
    std::mt19937 engine(5);
    std::uniform_int_distribution<int> values(-127, 127);
    std::vector<float> filters;
    for (int64_t map = 0; map < maps; ++map)
    {
        float const scale = 0.004F / static_cast<float>(map % 7 + 1);
        for (int64_t i = 0; i < perMap; ++i)
        {
            int const q = i == map % perMap ? (map % 2 == 0 ? 127 : -127) : values(engine);
            filters.push_back(kiln::dequantizeInt8(static_cast<int8_t>(q), scale));
        }
    }
    return filters;
}

Dims outputDims(QdqConvolution const& c)
{
    auto const extent
        = [&](int32_t size) { return (size + 2 * c.padding - c.dilation * (c.kernel - 1) - 1) / c.stride + 1; };
    auto const pooled = [&](int32_t size) { return c.pools ? (size + 2 - 3) / 2 + 1 : size; };
    return Dims{4, {c.input.d[0], c.maps, extent(pooled(c.input.d[2])), extent(pooled(c.input.d[3]))}};
}

NetworkMaker qdqNetwork(QdqConvolution const& c, std::vector<float> const& filters, std::vector<float> const& bias)
{
    return [=, &filters, &bias](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, c.input);
        ITensor* convolutionInput = &quantizedPair(network, *x, kInputScale);
        if (c.pools)
        {
            IPoolingLayer* pool = network.addPoolingNd(*convolutionInput, PoolingType::kMAX, DimsHW{3, 3});
            pool->setStrideNd(DimsHW{2, 2});
            pool->setPaddingNd(DimsHW{1, 1});
            convolutionInput = &quantizedPair(network, *pool->getOutput(0), kInputScale);
        }
        IConvolutionLayer* convolution = network.addConvolutionNd(
            *convolutionInput, c.maps, DimsHW{c.kernel, c.kernel}, weights(filters), weights(bias));
        convolution->setStrideNd(DimsHW{c.stride, c.stride});
        convolution->setPaddingNd(DimsHW{c.padding, c.padding});
        convolution->setDilationNd(DimsHW{c.dilation, c.dilation});
        ITensor* y = convolution->getOutput(0);
        if (c.residual != Residual::kNONE)
        {
            ITensor* r = network.addInput("r", DataType::kFLOAT, outputDims(c));
            ITensor& residual = c.residual == Residual::kINT8 ? quantizedPair(network, *r, kResidualScale) : *r;
            y = network.addElementWise(*y, residual, ElementWiseOperation::kSUM)->getOutput(0);
        }
        if (c.gate)
        {
            IActivationLayer* gate = network.addActivation(*y, *c.gate);
            if (*c.gate == ActivationType::kHARD_SIGMOID)
            {
                gate->setAlpha(1.0F / 6.0F);
                gate->setBeta(0.5F);
            }
            y = network.addElementWise(*y, *gate->getOutput(0), ElementWiseOperation::kPROD)->getOutput(0);
        }
        else if (c.relu)
        {
            y = network.addActivation(*y, ActivationType::kRELU)->getOutput(0);
        }
        if (c.quantizesOutput)
        {
            y = &quantizedPair(network, *y, kOutputScale);
        }
        if (c.sigmoid)
        {
            y = network.addActivation(*y, ActivationType::kSIGMOID)->getOutput(0);
        }
        y->setName("y");
        network.markOutput(*y);
    };
}

//! The case's CUDA plan in `layout` fuses the convolution into one QuantizedConvolution reading INT8 in the format
//! the layout gives (checked without a GPU), and runs as the CPU reference does (on a GPU), with the builder's choice
//! of kernels or, where given, `choice` (an AlgorithmChoice, encoded).
void expectCudaAgreesWithTheReference(QdqConvolution const& c, kiln::ConvolutionLayout layout, std::string const& what,
    std::optional<std::vector<uint8_t>> const& choice = std::nullopt)
{
    int64_t const perMap = c.input.d[1] * c.kernel * c.kernel;
    std::vector<float> const filters = quantizedFilters(c.maps, perMap);
    std::vector<float> const bias = spread(static_cast<size_t>(c.maps), -0.4F, 0.3F);
    NetworkMaker const maker = qdqNetwork(c, filters, bias);
    auto const settings = [layout](IBuilderConfig& config) { kiln::setConvolutionLayout(config, layout); };

    kiln::plan::PlanModel const model = cudaPlanOf(maker, c.fp16, settings);
    auto const fused = layersOfType(model, kQuantizedConvolutionLayerType);
    ASSERT_EQ(fused.size(), 1U) << what << ": the CUDA plan should fuse";
    ASSERT_EQ(layersOfKind(model, LayerType::kCONVOLUTION), 0) << what;
    TensorFormat const expected = layout == kiln::ConvolutionLayout::kLINEAR ? TensorFormat::kLINEAR
                                                                             : TensorFormat::kHWC;
    ASSERT_EQ(firstInputFormat(model, *fused[0]), expected) << what;
    ASSERT_EQ(kiln::plan::paramsOf<kiln::network::QuantizedConvolutionParams>(*fused[0])->selfGated, c.gate.has_value())
        << what << ": a self-gated activation should fuse";
    if (!gpuPresent())
    {
        return; // the plan is checked; running it needs a GPU
    }
    std::map<std::string, HostTensor> inputs{
        {"x", fromFloats(shapeOf(c.input), spread(volumeOf(c.input), -1.9F, 2.1F))}};
    if (c.residual != Residual::kNONE)
    {
        Dims const out = outputDims(c);
        inputs.emplace("r", fromFloats(shapeOf(out), spread(volumeOf(out), -1.1F, 0.9F)));
    }
    auto const reference = [](IBuilderConfig& config) { kiln::setCpuKernels(config, kiln::CpuKernels::kREFERENCE); };
    auto const cpu = runOn(kiln::Backend::kCPU, maker, inputs, c.fp16, nullptr, reference);
    auto const outputs = choice
        ? runPlan(kiln::Backend::kCUDA, withBackendChoice(model, kQuantizedConvolutionLayerType, *choice), inputs)
        : runOn(kiln::Backend::kCUDA, maker, inputs, c.fp16, nullptr, settings);
    ASSERT_EQ(outputs.count("y"), 1U) << what;
    // In FP16 builds the reference rounds each layer's output to FP16, where the fused layer computes in FP32.
    double const relative = c.fp16 ? 2e-3 : 1e-5;
    Tolerance const tolerance = c.quantizesOutput ? Tolerance(kOutputScale * 1.001, c.fp16 ? relative : 0.0)
                                                  : Tolerance(relative, relative);
    expectSameOutput(outputs.at("y"), cpu.at("y"), tolerance, what);
}

//! Both layouts the format pass may give the layer.
void expectCudaAgreesWithTheReference(QdqConvolution const& c, std::string const& what)
{
    expectCudaAgreesWithTheReference(c, kiln::ConvolutionLayout::kCHANNELS_LAST, what + " (channels-last)");
    expectCudaAgreesWithTheReference(c, kiln::ConvolutionLayout::kLINEAR, what + " (channels-first)");
}

TEST(CudaQuantizedConvolution, DequantizeConvolutionReluQuantize)
{
    expectCudaAgreesWithTheReference(QdqConvolution{}, "3x3, bias, ReLU, INT8 output");
}

TEST(CudaQuantizedConvolution, StridedDilatedAndOneByOne)
{
    QdqConvolution c;
    c.stride = 2;
    c.dilation = 2;
    c.padding = 2;
    expectCudaAgreesWithTheReference(c, "3x3 stride 2 dilation 2");
    c = QdqConvolution{};
    c.kernel = 1;
    c.padding = 0;
    c.input = Dims{4, {3, 32, 7, 7}};
    c.maps = 64;
    expectCudaAgreesWithTheReference(c, "1x1 over 32 channels into 64 (read in place channels-last)");
    c.input = Dims{4, {2, 12, 5, 6}};
    c.maps = 18;
    expectCudaAgreesWithTheReference(c, "1x1 over 12 channels into 18 (gathered: channels not a multiple of 16)");
    c = QdqConvolution{};
    c.kernel = 7;
    c.padding = 3;
    c.stride = 2;
    c.input = Dims{4, {1, 3, 23, 19}};
    c.maps = 8;
    expectCudaAgreesWithTheReference(c, "7x7 stride 2 over 3 channels (a stem: 147 taps padded to 160)");
    c.input = Dims{4, {2, 5, 13, 11}};
    c.kernel = 3;
    c.padding = 1;
    c.stride = 1;
    expectCudaAgreesWithTheReference(c, "3x3 over 5 channels (padded to 8 channels-last)");
}

TEST(CudaQuantizedConvolution, ManyTilesRunTheImplicitGemm)
{
    // Enough output positions for 132 or more tiles of 128 (an H100's or H200's SMs), so that channels-last runs the
    // implicit GEMM, as a large batch would; the cases above run cuBLASLt's product. Partial tiles of positions and of
    // maps (150 of 128), a last step of 32 taps (288 = 4 x 64 + 32), channels read 16 at a time, 24 read 4 at a time,
    // and stems of 3 and 1 channels padded to 4 (with zero filter taps) and read 4 at a time.
    QdqConvolution c;
    c.input = Dims{4, {6, 32, 48, 46}};
    c.maps = 150;
    expectCudaAgreesWithTheReference(c, "3x3 over 32 channels into 150 maps, many tiles");
    c.input = Dims{4, {6, 24, 40, 40}};
    c.maps = 130;
    expectCudaAgreesWithTheReference(c, "3x3 over 24 channels into 130 maps, many tiles");
    c = QdqConvolution{};
    c.input = Dims{4, {10, 64, 90, 90}};
    c.kernel = 1;
    c.padding = 0;
    c.stride = 2;
    c.maps = 40;
    expectCudaAgreesWithTheReference(c, "1x1 stride 2 over 64 channels into 40 maps, many tiles");
    c = QdqConvolution{};
    c.input = Dims{4, {8, 16, 96, 95}};
    c.stride = 2;
    c.dilation = 2;
    c.padding = 2;
    c.maps = 70;
    c.residual = Residual::kINT8;
    expectCudaAgreesWithTheReference(c, "3x3 stride 2 dilation 2 over 16 channels, INT8 residual, many tiles");
    c.residual = Residual::kFLOAT;
    c.quantizesOutput = false;
    c.relu = false;
    expectCudaAgreesWithTheReference(c, "the same with an FP32 residual and output, many tiles");
    c.maps = 72; // a multiple of 8: finished from each thread's sums, 8 maps at a time
    expectCudaAgreesWithTheReference(c, "the same into 72 maps, many tiles");
    c.residual = Residual::kINT8;
    c.quantizesOutput = true;
    c.relu = true;
    expectCudaAgreesWithTheReference(c, "INT8 residual, ReLU, INT8 output into 72 maps, many tiles");
    c = QdqConvolution{};
    c.input = Dims{4, {8, 3, 96, 97}};
    c.kernel = 7;
    c.padding = 3;
    c.stride = 2;
    c.maps = 24;
    expectCudaAgreesWithTheReference(c, "7x7 stride 2 over 3 channels (a stem), many tiles");
    c.input = Dims{4, {8, 1, 96, 97}};
    c.residual = Residual::kINT8;
    expectCudaAgreesWithTheReference(c, "7x7 stride 2 over 1 channel with an INT8 residual, many tiles");
}

//! The case's fused layer is one a cuDNN graph may run (checked without a GPU), and on a GPU cuDNN ranks engines for it
//! and makes the first one's plan: a plan that chooses a graph engine runs it rather than Kiln's kernels.
void expectACudnnGraphTakes(QdqConvolution const& c, std::string const& what)
{
    std::vector<float> const filters = quantizedFilters(c.maps, c.input.d[1] * c.kernel * c.kernel);
    std::vector<float> const bias = spread(static_cast<size_t>(c.maps), -0.4F, 0.3F);
    kiln::plan::PlanModel const model = cudaPlanOf(qdqNetwork(c, filters, bias));
    auto const fused = layersOfType(model, kQuantizedConvolutionLayerType);
    ASSERT_EQ(fused.size(), 1U) << what;
    auto const& params = *kiln::plan::paramsOf<kiln::network::QuantizedConvolutionParams>(*fused[0]);
    kiln::Shape const input = shapeOf(c.input);
    ASSERT_TRUE(kiln::cuda::QuantizedConvolutionGraph::takes(params, input, firstInputFormat(model, *fused[0])))
        << what;
    if (!gpuPresent())
    {
        return;
    }
    cudnnHandle_t handle = nullptr;
    ASSERT_EQ(cudnnCreate(&handle), CUDNN_STATUS_SUCCESS);
    {
        kiln::cuda::QuantizedConvolutionGraph graph(
            handle, params, input, std::make_shared<kiln::cuda::QuantizedConvolutionGraphConstants const>(params));
        EXPECT_GT(graph.candidateCount(), 0) << what;
        EXPECT_TRUE(graph.chooseOrFirstWorking(0, kiln::cuda::QuantizedConvolutionGraph::kWorkspaceLimit)) << what;
    }
    cudnnDestroy(handle);
}

TEST(CudaQuantizedConvolution, CudnnGraphEnginesAgreeWithTheReference)
{
    // Layers a cuDNN graph takes (channels-last, 16-channel multiples, INT8 output, ReLU, SiLU or none, an INT8
    // residual or none: quantized_convolution_graph.h), run by the engines cuDNN ranks first and second, and by Kiln's
    // kernels for comparison. An engine that cannot run the graph leaves the layer to the first that can.
    using kiln::cuda::AlgorithmChoice;
    std::vector<std::pair<QdqConvolution, std::string>> cases;
    QdqConvolution c;
    c.input = Dims{4, {2, 32, 11, 9}};
    c.maps = 48;
    cases.emplace_back(c, "3x3 over 32 channels into 48, bias, ReLU");
    c.stride = 2;
    c.dilation = 2;
    c.padding = 2;
    c.relu = false;
    cases.emplace_back(c, "3x3 stride 2 dilation 2, no activation");
    c = QdqConvolution{};
    c.input = Dims{4, {3, 64, 7, 7}};
    c.kernel = 1;
    c.padding = 0;
    c.maps = 32;
    c.residual = Residual::kINT8;
    cases.emplace_back(c, "1x1 over 64 channels into 32, INT8 residual, ReLU");
    c.input = Dims{4, {6, 32, 30, 30}};
    c.kernel = 3;
    c.padding = 1;
    c.maps = 64;
    cases.emplace_back(c, "3x3 over 32 channels into 64, INT8 residual, ReLU, many tiles");
    c.residual = Residual::kNONE;
    c.gate = ActivationType::kSIGMOID;
    cases.emplace_back(c, "3x3 over 32 channels into 64, SiLU (a YOLO-style detector's), many tiles");
    for (auto const& [shape, what] : cases)
    {
        expectACudnnGraphTakes(shape, what);
        for (AlgorithmChoice const choice :
            {AlgorithmChoice::graphEngine(0), AlgorithmChoice::graphEngine(1), AlgorithmChoice::kilnKernel()})
        {
            expectCudaAgreesWithTheReference(shape, kiln::ConvolutionLayout::kCHANNELS_LAST,
                what + ", choice " + std::to_string(static_cast<int>(choice.source)) + ":"
                    + std::to_string(choice.index),
                choice.encode());
        }
    }
}

TEST(CudaQuantizedConvolution, ResidualsOfBothTypes)
{
    QdqConvolution c;
    c.residual = Residual::kINT8;
    expectCudaAgreesWithTheReference(c, "INT8 residual, ReLU, INT8 output");
    c.residual = Residual::kFLOAT;
    c.quantizesOutput = false;
    expectCudaAgreesWithTheReference(c, "FP32 residual, ReLU, FP32 output");
}

TEST(CudaQuantizedConvolution, Fp32OutputWithoutActivation)
{
    QdqConvolution c;
    c.relu = false;
    c.quantizesOutput = false;
    expectCudaAgreesWithTheReference(c, "no activation, FP32 output");
}

TEST(CudaQuantizedConvolution, SiluAndHardSwishJoinTheEpilogue)
{
    QdqConvolution c;
    c.gate = ActivationType::kSIGMOID;
    expectCudaAgreesWithTheReference(c, "SiLU, INT8 output");
    c.gate = ActivationType::kHARD_SIGMOID;
    c.residual = Residual::kINT8;
    expectCudaAgreesWithTheReference(c, "INT8 residual, hard-swish, INT8 output");
    // The implicit GEMM's epilogue: 8 maps at a time from each thread's sums where the maps are a multiple of 8 (144:
    // a second block of 16), one value at a time through shared memory where they are not (150).
    for (int32_t const maps : {144, 150})
    {
        c = QdqConvolution{};
        c.input = Dims{4, {6, 32, 48, 46}};
        c.maps = maps;
        c.gate = ActivationType::kSIGMOID;
        expectCudaAgreesWithTheReference(c, "SiLU, many tiles, " + std::to_string(maps) + " maps");
        c.gate = ActivationType::kHARD_SIGMOID;
        c.residual = Residual::kFLOAT;
        c.quantizesOutput = false;
        expectCudaAgreesWithTheReference(
            c, "FP32 residual, hard-swish, FP32 output, many tiles, " + std::to_string(maps) + " maps");
    }
}

TEST(CudaQuantizedConvolution, Fp16BuildsFuseToo)
{
    QdqConvolution c;
    c.fp16 = true;
    expectCudaAgreesWithTheReference(c, "FP16 build, INT8 output");
    c.residual = Residual::kINT8;
    expectCudaAgreesWithTheReference(c, "FP16 build, INT8 residual, INT8 output");
    c.quantizesOutput = false;
    c.sigmoid = true;
    expectCudaAgreesWithTheReference(c, "FP16 build, FP32 output read by an FP16 sigmoid");
    c.input = Dims{4, {6, 32, 48, 46}}; // the implicit GEMM's epilogue, 8 maps at a time
    c.maps = 48;
    expectCudaAgreesWithTheReference(c, "FP16 build, FP32 output read by an FP16 sigmoid, many tiles");
    c.quantizesOutput = true;
    c.sigmoid = false;
    expectCudaAgreesWithTheReference(c, "FP16 build, INT8 residual, INT8 output, many tiles");
}

TEST(CudaQuantizedConvolution, MaxPoolingMovesOntoInt8)
{
    QdqConvolution c;
    c.pools = true;
    c.input = Dims{4, {2, 16, 20, 18}};
    expectCudaAgreesWithTheReference(c, "max pooling between Q/DQ pairs before the convolution");
    kiln::plan::PlanModel const model = cudaPlanOf(
        qdqNetwork(c, quantizedFilters(c.maps, 16 * 9), std::vector<float>(static_cast<size_t>(c.maps), 0.0F)));
    for (auto const* pool : layersOfType(model, LayerType::kPOOLING))
    {
        EXPECT_EQ(model.tensors[pool->inputs[0]].type, DataType::kINT8) << "the pooling should read INT8";
    }
    c.input = Dims{4, {3, 48, 9, 12}};
    expectCudaAgreesWithTheReference(c, "INT8 max pooling of 48 channels, three vectors a position");
}

TEST(CudaQuantizedConvolution, DequantizationOfOneScaleStaysChannelsLast)
{
    // The fused layer's INT8 output dequantized by one scale and read by a sigmoid (as a network's last convolution is
    // by its global pooling): the dequantization maps each element alone, so it continues the channels-last region
    // and nothing converts the INT8 tensor; the sigmoid's output, the network's, is converted as it is written.
    QdqConvolution c;
    c.sigmoid = true;
    expectCudaAgreesWithTheReference(c, "INT8 output dequantized and read by a sigmoid");
    c.input = Dims{4, {6, 32, 48, 46}};
    c.maps = 48;
    expectCudaAgreesWithTheReference(c, "INT8 output dequantized and read by a sigmoid, many tiles");
    kiln::plan::PlanModel const model
        = cudaPlanOf(qdqNetwork(c, quantizedFilters(c.maps, 32 * 9), spread(static_cast<size_t>(c.maps), -0.4F, 0.3F)));
    auto const fused = layersOfType(model, kQuantizedConvolutionLayerType);
    ASSERT_EQ(fused.size(), 1U);
    int64_t dequantizations = 0;
    for (auto const* dequantize : layersOfType(model, LayerType::kDEQUANTIZE))
    {
        if (dequantize->inputs[0] == fused[0]->outputs[0])
        {
            ++dequantizations;
            EXPECT_EQ(firstInputFormat(model, *dequantize), TensorFormat::kHWC);
            EXPECT_EQ(model.tensors[dequantize->outputs[0]].format, TensorFormat::kHWC);
        }
    }
    EXPECT_EQ(dequantizations, 1);
}

} // namespace
