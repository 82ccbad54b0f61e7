// The CUDA backend's FP8 E4M3 product by constant weights (libraries/cublaslt/quantized_matrix_multiply.h, the FP8
// form; Fp8Gemm through cuBLASLt's FP8 kernels, Ada or Hopper):
//   - the kernel against the CPU reference kernel of the same QuantizedMatrixMultiply layer (on a GPU): K 64 and 768,
//     batch axes, FP32, FP16 and FP8 outputs, bias and none, ReLU and both GELUs, one scale per weight column (Model
//     Optimizer's: FP32 sums and Kiln's epilogue, or cuBLASLt's outer-vector scales and epilogue, the direct form,
//     where the output is FP16 or FP32 and the activation none or a ReLU) and one for all (the direct form too),
//     inputs and outputs at addresses cuBLASLt's kernels do not read in place, a second shape; which layers the
//     kernel takes (cuBLASLt's rule of K and N multiples of 16; checked without a GPU);
//   - Q/DQ networks made as Model Optimizer's FP8 exports state a linear layer: the CUDA plan fuses the chain into one
//     QuantizedMatrixMultiply reading FP8 (checked without a GPU) in FP32 and FP16 builds, and leaves unfused a
//     product whose K is 40; each agrees with the CPU reference kernels, which run every layer as written in the
//     build's type (on a GPU).
//
// Tolerance: every product of two FP8 values is exact in FP32, but cuBLASLt sums them in an order of its own (and
// Hopper's FP8 tensor cores keep fewer bits than FP32 between their periodic promotions), where the reference sums
// them in FP32 as written. FP32 and FP16 outputs agree within 1e-3 of the largest output (plus FP16's rounding);
// an FP8 output may take the neighbouring FP8 value where the exact result lies within that difference of a rounding
// boundary (one FP8 step, 1/8 of the value at most, FP8's documented resolution), which few outputs do. In FP16 builds
// the reference rounds the dequantized inputs, the weights and each layer's result to FP16 (2^-11 of each) where the
// fused layer computes in FP32: more of its FP8 outputs lie that close to a boundary (up to one in twenty), and near
// zero, where FP8's subnormal steps are far finer than those roundings, outputs may lie several steps apart, within
// 2e-3 of the largest output.
#include "backend/cuda/libraries/cublaslt/quantized_matrix_multiply.h"
#include "core/quantization.h"
#include "device_common/half.h"
#include "kernel_comparison.h"
#include "network/fused/quantized_matrix_multiply.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using kiln::network::kQuantizedMatrixMultiplyLayerType;
using kiln::network::QuantizedMatrixMultiplyParams;

constexpr float kInputScale = 1.0F / 32.0F;

//! One layer: its input's shape ([batch..., M, K]), its N columns and its epilogue.
struct Fp8Case
{
    kiln::Shape input{2, 3, 5, 64};
    int64_t columns{48};
    bool bias{true};
    bool activates{true};
    ActivationType activation{ActivationType::kGELU_ERF};
    bool quantizesOutput{true};
    DataType floatType{DataType::kFLOAT};
    bool oneWeightScale{false}; //!< one scale for all the weights (the direct form) rather than one per column
};

//! `count` FP8 codes of values spread over [-limit, limit], never NaN.
std::vector<uint8_t> fp8Codes(size_t count, float limit, uint32_t seed)
{
    std::mt19937 engine(seed);
    std::uniform_real_distribution<float> values(-limit, limit);
    std::vector<uint8_t> codes(count);
    std::generate(codes.begin(), codes.end(), [&] { return kiln::quantizeToFp8(values(engine), 1.0F); });
    return codes;
}

//! Random FP8 weights, each column's largest magnitude 448 (max calibration) of a scale of its own, or of one for all.
QuantizedMatrixMultiplyParams paramsOf(Fp8Case const& c)
{
    int64_t const k = c.input.back();
    std::vector<uint8_t> weights = fp8Codes(static_cast<size_t>(k * c.columns), 448.0F, 17);
    std::vector<float> scales;
    std::vector<float> bias;
    for (int64_t n = 0; n < c.columns; ++n)
    {
        weights[static_cast<size_t>(n * k + n % k)] = n % 2 == 0 ? 0x7E : 0xFE; // +-448
        scales.push_back(c.oneWeightScale ? 0.002F : 0.002F / static_cast<float>(n % 5 + 1));
        bias.push_back(0.3F * static_cast<float>(n % 7) - 0.8F);
    }
    QuantizedMatrixMultiplyParams params;
    params.columns = c.columns;
    params.weights
        = kiln::network::WeightsBuffer(Weights{DataType::kFP8, weights.data(), static_cast<int64_t>(weights.size())});
    params.weightScales
        = kiln::network::WeightsBuffer(Weights{DataType::kFLOAT, scales.data(), static_cast<int64_t>(scales.size())});
    if (c.bias)
    {
        params.bias
            = kiln::network::WeightsBuffer(Weights{DataType::kFLOAT, bias.data(), static_cast<int64_t>(bias.size())});
    }
    params.inputScale = kInputScale;
    params.activates = c.activates;
    params.activation = c.activation;
    params.floatType = c.floatType;
    return params;
}

HostTensor fp8Input(kiln::Shape const& shape, uint32_t seed)
{
    return fromBytes(shape, fp8Codes(static_cast<size_t>(kiln::volume(shape)), 60.0F, seed), DataType::kFP8);
}

kiln::Shape outputShapeOf(kiln::Shape shape, int64_t columns)
{
    shape.back() = columns;
    return shape;
}

//! The output scale that puts the largest of the layer's results near 300 on FP8's grid, so that its outputs spread
//! over most of the grid: from the reference's floating-point result of the same layer.
float outputScaleFor(QuantizedMatrixMultiplyParams params, HostTensor const& input)
{
    params.outputScale = 0.0F;
    params.floatType = DataType::kFLOAT;
    HostTensor output = zeros(outputShapeOf(input.shape, params.columns), DataType::kFLOAT);
    kiln::cpu::run(params, {input.constView()}, {output.view()});
    std::vector<float> const values = output.floats();
    float largest = 0.0F;
    for (float v : values)
    {
        largest = std::max(largest, std::fabs(v));
    }
    return largest / 300.0F;
}

//! An FP8 code's position in FP8's order of values: neighbouring values differ by one (both zeros are 0).
int fp8Ordinal(uint8_t code)
{
    int const magnitude = code & 0x7F;
    return (code & 0x80) != 0 ? -magnitude : magnitude;
}

//! FP8 results within one FP8 step of the reference's, few of them differing; and enough distinct values in the
//! reference that a wrong scale, column or row would show.
void expectFp8Agrees(HostTensor const& gpu, HostTensor const& cpu, std::string const& what)
{
    ASSERT_EQ(gpu.type, DataType::kFP8) << what;
    ASSERT_EQ(gpu.shape, cpu.shape) << what;
    size_t differing = 0;
    for (size_t i = 0; i < cpu.bytes.size(); ++i)
    {
        int const step = std::abs(fp8Ordinal(gpu.bytes[i]) - fp8Ordinal(cpu.bytes[i]));
        EXPECT_LE(step, 1) << what << ": element " << i;
        differing += step != 0 ? 1 : 0;
    }
    EXPECT_LE(differing, cpu.bytes.size() / 50 + 1) << what << ": too many outputs a step from the reference";
    size_t const enough = std::min<size_t>(40, cpu.bytes.size() / 4);
    EXPECT_GE(std::set<uint8_t>(cpu.bytes.begin(), cpu.bytes.end()).size(), enough) << what << ": a degenerate case";
}

//! FP32 or FP16 results within 1e-3 of the reference's largest magnitude, and FP16's rounding of each.
void expectFloatAgrees(HostTensor const& gpu, HostTensor const& cpu, std::string const& what)
{
    ASSERT_EQ(gpu.type, cpu.type) << what;
    std::vector<float> const actual = gpu.floats();
    std::vector<float> const expected = cpu.floats();
    float largest = 0.0F;
    for (float v : expected)
    {
        largest = std::max(largest, std::fabs(v));
    }
    ASSERT_GT(largest, 0.0F) << what << ": a degenerate case";
    double const rounding = cpu.type == DataType::kHALF ? 1e-3 : 0.0;
    expectClose(actual, expected, Tolerance(1e-3 * largest, rounding), what);
}

//! The layer of `c` on the CUDA kernel and on the CPU reference, its input `inputOffset` and its output
//! `outputOffset` elements past a 256-byte aligned address: at offsets 0, aligned as a plan's tensors are, cuBLASLt
//! reads the rows in place and computes the direct form's epilogue; other offsets copy the rows first, or take the
//! FP32 sums and Kiln's epilogue.
void expectKernelAgrees(Fp8Case const& c, std::string const& what, size_t inputOffset = 0, size_t outputOffset = 0)
{
    SKIP_WITHOUT_GPU();
    HostTensor const input = fp8Input(c.input, 3);
    QuantizedMatrixMultiplyParams params = paramsOf(c);
    if (c.quantizesOutput)
    {
        params.outputScale = outputScaleFor(params, input);
    }
    auto const [cpu, gpu] = runBothKernels(params, {Placed{input, inputOffset}},
        {zeros(outputShapeOf(c.input, c.columns), params.outputType())}, outputOffset);
    if (c.quantizesOutput)
    {
        expectFp8Agrees(gpu.at(0), cpu.at(0), what);
    }
    else
    {
        expectFloatAgrees(gpu.at(0), cpu.at(0), what);
    }
}

TEST(CudaFp8MatrixMultiply, PerColumnScalesEveryOutputType)
{
    expectKernelAgrees(Fp8Case{}, "K 64, batch [2, 3], bias, GELU (erf), FP8 output");
    Fp8Case c;
    c.quantizesOutput = false;
    expectKernelAgrees(c, "K 64, bias, GELU (erf), FP32 output");
    c.floatType = DataType::kHALF;
    c.activation = ActivationType::kGELU_TANH;
    expectKernelAgrees(c, "K 64, bias, GELU (tanh), FP16 output");
    c.bias = false;
    c.activates = false;
    expectKernelAgrees(c, "K 64, no bias, no activation, FP16 output");
}

TEST(CudaFp8MatrixMultiply, InnerExtentOf768)
{
    Fp8Case c;
    c.input = {4, 50, 768};
    c.columns = 64;
    c.activates = false;
    expectKernelAgrees(c, "K 768, bias, FP8 output");
    c.quantizesOutput = false;
    expectKernelAgrees(c, "K 768, bias, FP32 output");
}

TEST(CudaFp8MatrixMultiply, OneWeightScaleRunsInCublasLtsEpilogue)
{
    Fp8Case c;
    c.oneWeightScale = true;
    c.activation = ActivationType::kRELU;
    expectKernelAgrees(c, "bias, ReLU, FP8 output through cuBLASLt's output scale");
    c.quantizesOutput = false;
    c.floatType = DataType::kHALF;
    expectKernelAgrees(c, "bias (FP16), ReLU, FP16 output");
    c.floatType = DataType::kFLOAT;
    c.bias = false;
    c.activates = false;
    expectKernelAgrees(c, "no bias, FP32 output");
    c.bias = true;
    expectKernelAgrees(c, "bias, FP32 output (Kiln's epilogue: cuBLASLt's FP8 bias of an FP32 output is BF16)");
    c.activates = true;
    c.activation = ActivationType::kGELU_ERF;
    expectKernelAgrees(c, "GELU: Kiln's epilogue");
}

TEST(CudaFp8MatrixMultiply, UnalignedInputsAndOutputs)
{
    Fp8Case c;
    c.input = {3, 9, 32};
    c.columns = 32;
    expectKernelAgrees(c, "an input 16 bytes past an aligned address", 16);
    c.oneWeightScale = true;
    c.activates = false;
    expectKernelAgrees(c, "one scale, the output 16 bytes past an aligned address", 0, 16);
    c.quantizesOutput = false;
    c.floatType = DataType::kHALF;
    expectKernelAgrees(c, "one scale, FP16 output 8 elements past an aligned address", 48, 8);
}

TEST(CudaFp8MatrixMultiply, ColumnScalesRunInCublasLtsEpilogue)
{
    // Model Optimizer's projections: one scale per weight column, no activation, an FP16 output. Where cuBLASLt has
    // outer-vector scaling (cuBLAS 12.9 and later), the product writes the output itself.
    Fp8Case c;
    c.input = {4, 50, 768};
    c.columns = 64;
    c.quantizesOutput = false;
    c.floatType = DataType::kHALF;
    c.activation = ActivationType::kRELU;
    expectKernelAgrees(c, "scales per column, bias (FP16), ReLU, FP16 output");
    c.activates = false;
    expectKernelAgrees(c, "scales per column, bias (FP16), FP16 output");
    c.bias = false;
    expectKernelAgrees(c, "scales per column, no bias, FP16 output");
    c.floatType = DataType::kFLOAT;
    expectKernelAgrees(c, "scales per column, no bias, FP32 output");
}

//! One layer of `c` run on inputs of three shapes in turn, more rows, then fewer, each against the CPU reference.
void expectOneLayerRunsThreeShapes(Fp8Case const& c, std::string const& what)
{
    QuantizedMatrixMultiplyParams params = paramsOf(c);
    if (c.quantizesOutput)
    {
        params.outputScale = outputScaleFor(params, fp8Input(c.input, 5));
    }
    kiln::plan::LayerRecord const record;
    kiln::cuda::LibraryHandles handles;
    kiln::cuda::DeviceBuffer scratch;
    kiln::cuda::LayerContext const context{record, DataType::kFP8, TensorFormat::kLINEAR, handles, scratch};
    std::unique_ptr<kiln::cuda::DeviceLayer> const layer = kiln::cuda::lower(params, context);
    for (kiln::Shape const& shape : {kiln::Shape{2, 5, 64}, kiln::Shape{3, 11, 64}, kiln::Shape{1, 2, 64}})
    {
        std::string const rows = what + ", input of " + std::to_string(shape[0] * shape[1]) + " rows";
        HostTensor const input = fp8Input(shape, static_cast<uint32_t>(shape[1]));
        HostTensor cpu = zeros(outputShapeOf(shape, c.columns), params.outputType());
        kiln::cpu::run(params, {input.constView()}, {cpu.view()});
        DeviceTensor const deviceInput(input);
        DeviceTensor const deviceOutput(cpu.shape, params.outputType());
        layer->run({deviceInput.constView()}, {deviceOutput.view()}, nullptr);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        if (c.quantizesOutput)
        {
            expectFp8Agrees(deviceOutput.read(), cpu, rows);
        }
        else
        {
            expectFloatAgrees(deviceOutput.read(), cpu, rows);
        }
        EXPECT_TRUE(deviceOutput.guardsIntact());
    }
}

TEST(CudaFp8MatrixMultiply, OneLayerRunsThreeShapes)
{
    SKIP_WITHOUT_GPU();
    Fp8Case c;
    c.input = {2, 5, 64};
    c.columns = 32;
    expectOneLayerRunsThreeShapes(c, "FP8 output");
    c.quantizesOutput = false;
    c.floatType = DataType::kHALF;
    c.activates = false;
    expectOneLayerRunsThreeShapes(c, "scales per column, FP16 output");
}

TEST(CudaFp8MatrixMultiply, TakesOnlyWhatCublasLtsFp8KernelsTake)
{
    QuantizedMatrixMultiplyParams const params = paramsOf(Fp8Case{});
    EXPECT_TRUE(kiln::cuda::runsQuantizedMatrixMultiply(params));
    Fp8Case shortRows;
    shortRows.input = {2, 40};
    EXPECT_FALSE(kiln::cuda::runsQuantizedMatrixMultiply(paramsOf(shortRows))) << "K 40";
    Fp8Case oddColumns;
    oddColumns.columns = 20;
    EXPECT_FALSE(kiln::cuda::runsQuantizedMatrixMultiply(paramsOf(oddColumns))) << "N 20";
    QuantizedMatrixMultiplyParams bf16 = params;
    bf16.floatType = DataType::kBF16;
    EXPECT_FALSE(kiln::cuda::runsQuantizedMatrixMultiply(bf16)) << "a BF16 output";
}

// ---- Q/DQ networks ----

constexpr float kNetworkInputScale = 2.0F / 448.0F;
constexpr float kNetworkOutputScale = 4.0F / 448.0F;

struct QdqProduct
{
    Dims input{4, {2, 3, 8, 64}};
    int32_t columns{48};
    bool bias{true};
    bool activates{true};
    ActivationType activation{ActivationType::kGELU_ERF};
    bool quantizesOutput{true};
    bool fp16{false};   //!< built with kFP16: the layers between the pairs compute in FP16
    float factor{0.0F}; //!< > 0: the sum multiplied by this constant (Whisper's queries)
};

ITensor& scalar(INetworkDefinition& network, float const& value)
{
    return *network.addConstant(Dims{}, Weights{DataType::kFLOAT, &value, 1})->getOutput(0);
}

ITensor& fp8Pair(INetworkDefinition& network, ITensor& input, float const& scale)
{
    ITensor* q = network.addQuantize(input, scalar(network, scale), DataType::kFP8)->getOutput(0);
    return *network.addDequantize(*q, scalar(network, scale), DataType::kFLOAT)->getOutput(0);
}

//! Weights [K, N] of FP8 values times one scale per column, exactly, as Model Optimizer's FP8 weights are (the ONNX
//! parser dequantizes them so on import); with `powersOfTwo`, scales of 2^-11, 2^-12 and 2^-13, which keep the weights
//! exact in FP16 too.
std::vector<float> columnQuantizedWeights(int64_t k, int64_t n, bool powersOfTwo = false)
{
    std::vector<uint8_t> const codes = fp8Codes(static_cast<size_t>(k * n), 448.0F, 23);
    std::vector<float> weights(static_cast<size_t>(k * n));
    for (int64_t i = 0; i < k; ++i)
    {
        for (int64_t column = 0; column < n; ++column)
        {
            uint8_t const code = i == column % k ? 0x7E : codes[static_cast<size_t>(i * n + column)];
            float const scale = powersOfTwo
                ? std::ldexp(1.0F, -11 - static_cast<int>(column % 3))
                : (1.0F / 448.0F) / std::sqrt(static_cast<float>(k)) / static_cast<float>(column % 3 + 1);
            weights[static_cast<size_t>(i * n + column)] = kiln::dequantizeFp8(code, scale);
        }
    }
    return weights;
}

NetworkMaker qdqNetwork(QdqProduct const& c, std::vector<float> const& weights, std::vector<float> const& bias)
{
    return [=, &weights, &bias](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, c.input);
        ITensor& dequantized = fp8Pair(network, *x, kNetworkInputScale);
        int32_t const rank = c.input.nbDims;
        int64_t const k = c.input.d[rank - 1];
        Dims weightDims{rank, {}};
        std::fill(weightDims.d, weightDims.d + rank, 1);
        weightDims.d[rank - 2] = k;
        weightDims.d[rank - 1] = c.columns;
        ITensor* w
            = network.addConstant(weightDims, Weights{DataType::kFLOAT, weights.data(), k * c.columns})->getOutput(0);
        ITensor* y
            = network.addMatrixMultiply(dequantized, MatrixOperation::kNONE, *w, MatrixOperation::kNONE)->getOutput(0);
        if (c.bias)
        {
            Dims biasDims = weightDims;
            biasDims.d[rank - 2] = 1;
            ITensor* b = network.addConstant(biasDims, Weights{DataType::kFLOAT, bias.data(), c.columns})->getOutput(0);
            y = network.addElementWise(*y, *b, ElementWiseOperation::kSUM)->getOutput(0);
        }
        if (c.factor > 0.0F)
        {
            Dims ones{rank, {}};
            std::fill(ones.d, ones.d + rank, 1);
            ITensor* f = network.addConstant(ones, Weights{DataType::kFLOAT, &c.factor, 1})->getOutput(0);
            y = network.addElementWise(*y, *f, ElementWiseOperation::kPROD)->getOutput(0);
        }
        if (c.activates)
        {
            y = network.addActivation(*y, c.activation)->getOutput(0);
        }
        if (c.quantizesOutput)
        {
            y = &fp8Pair(network, *y, kNetworkOutputScale);
        }
        else
        {
            // A layer after the chain, so that its output is no network output (FP16 builds keep those FP32).
            y = network.addUnary(*y, UnaryOperation::kNEG)->getOutput(0);
        }
        y->setName("y");
        network.markOutput(*y);
    };
}

//! Outputs of a Q/DQ pair (values on FP8's grid times the scale) within one FP8 step of the reference's each, or
//! within `slack` of it, at most one in `differingOneIn` of them differing.
void expectWithinOneFp8Step(
    HostTensor const& gpu, HostTensor const& cpu, double slack, size_t differingOneIn, std::string const& what)
{
    std::vector<float> const actual = gpu.floats();
    std::vector<float> const expected = cpu.floats();
    ASSERT_EQ(actual.size(), expected.size()) << what;
    size_t differing = 0;
    for (size_t i = 0; i < expected.size(); ++i)
    {
        uint8_t const a = kiln::quantizeToFp8(actual[i], kNetworkOutputScale);
        uint8_t const e = kiln::quantizeToFp8(expected[i], kNetworkOutputScale);
        bool const near = std::abs(fp8Ordinal(a) - fp8Ordinal(e)) <= 1 || std::fabs(actual[i] - expected[i]) <= slack;
        EXPECT_TRUE(near) << what << ": element " << i << ", " << actual[i] << " against " << expected[i];
        differing += a != e ? 1 : 0;
    }
    EXPECT_LE(differing, expected.size() / differingOneIn + 1)
        << what << ": too many outputs a step from the reference";
}

//! Runs the case's network on CUDA and on the CPU reference kernels (every layer as written, in the build's type).
void expectRunsAsTheReference(QdqProduct const& c, NetworkMaker const& maker, std::string const& what)
{
    // In an FP16 build a backend may quantize the FP32 input as given or rounded to FP16 first, which moves a code
    // by a step near a rounding boundary: FP16 builds take inputs FP16 holds exactly.
    std::vector<float> values = scattered(volumeOf(c.input), -1.9F, 2.0F, 5);
    if (c.fp16)
    {
        std::transform(values.begin(), values.end(), values.begin(), kiln::roundThroughHalf);
    }
    std::map<std::string, HostTensor> const inputs{{"x", fromFloats(shapeOf(c.input), values)}};
    auto const reference = [](IBuilderConfig& config) { kiln::setCpuKernels(config, kiln::CpuKernels::kREFERENCE); };
    auto const cpu = runOn(kiln::Backend::kCPU, maker, inputs, c.fp16, nullptr, reference);
    auto const gpu = runOn(kiln::Backend::kCUDA, maker, inputs, c.fp16);
    ASSERT_EQ(gpu.count("y"), 1U) << what;
    ASSERT_EQ(cpu.count("y"), 1U) << what;
    if (c.quantizesOutput)
    {
        std::vector<float> const expected = cpu.at("y").floats();
        double largest = 0.0;
        for (float v : expected)
        {
            largest = std::max(largest, std::fabs(static_cast<double>(v)));
        }
        expectWithinOneFp8Step(gpu.at("y"), cpu.at("y"), c.fp16 ? 2e-3 * largest : 0.0, c.fp16 ? 20 : 50, what);
    }
    else
    {
        expectFloatAgrees(gpu.at("y"), cpu.at("y"), what);
    }
}

//! The case's CUDA plan fuses the chain into one QuantizedMatrixMultiply reading FP8 (checked without a GPU), and
//! runs as the CPU reference runs the layers as written (on a GPU). An FP16 build's layer writes FP16 where it does
//! not quantize its output.
void expectNetworkAgrees(QdqProduct const& c, std::string const& what, bool powersOfTwo = false)
{
    int64_t const k = c.input.d[c.input.nbDims - 1];
    std::vector<float> const weights = columnQuantizedWeights(k, c.columns, powersOfTwo);
    std::vector<float> const bias = spread(static_cast<size_t>(c.columns), -0.5F, 0.4F);
    NetworkMaker const maker = qdqNetwork(c, weights, bias);

    kiln::plan::PlanModel const model = cudaPlanOf(maker, c.fp16);
    auto const fused = layersOfType(model, kQuantizedMatrixMultiplyLayerType);
    ASSERT_EQ(fused.size(), 1U) << what << ": the CUDA plan should fuse";
    EXPECT_EQ(layersOfKind(model, LayerType::kMATRIX_MULTIPLY), 0) << what;
    EXPECT_EQ(layersOfKind(model, LayerType::kACTIVATION), 0) << what << ": the activation should fuse too";
    EXPECT_EQ(layersOfKind(model, LayerType::kELEMENTWISE), 0) << what << ": the bias and factor should fuse too";
    EXPECT_EQ(model.tensors[fused[0]->inputs[0]].type, DataType::kFP8) << what;
    DataType const floatOutput = c.fp16 ? DataType::kHALF : DataType::kFLOAT;
    EXPECT_EQ(fused[0]->precision, c.quantizesOutput ? DataType::kFLOAT : floatOutput) << what;
    EXPECT_EQ(kiln::plan::slotType(model, *fused[0], 1), c.quantizesOutput ? DataType::kFP8 : floatOutput) << what;
    if (gpuPresent())
    {
        expectRunsAsTheReference(c, maker, what);
    }
}

TEST(CudaFp8MatrixMultiply, DequantizeProductBiasGeluQuantize)
{
    expectNetworkAgrees(QdqProduct{}, "K 64, batch [2, 3], bias, GELU, FP8 output");
}

TEST(CudaFp8MatrixMultiply, QdqNetworksOfEveryEpilogue)
{
    QdqProduct c;
    c.input = Dims{3, {2, 17, 768}};
    c.columns = 64;
    expectNetworkAgrees(c, "K 768, bias, GELU, FP8 output");
    c.quantizesOutput = false;
    expectNetworkAgrees(c, "K 768, bias, GELU, FP32 output");
    c.activates = false;
    c.bias = false;
    expectNetworkAgrees(c, "K 768, no bias, no activation, FP32 output");
}

TEST(CudaFp8MatrixMultiply, Fp16BuildsFuseToo)
{
    // An FP16 build holds the weights in FP16: exactly on FP8's grid for scales of powers of two, rounded off it for
    // Model Optimizer's scales (the fusion recovers the FP8 values and a scale that FP16 rounds back to each weight).
    QdqProduct c;
    c.fp16 = true;
    expectNetworkAgrees(c, "FP16 build, scales of powers of two, FP8 output", true);
    expectNetworkAgrees(c, "FP16 build, FP8 output");
    c.input = Dims{3, {2, 17, 768}};
    c.columns = 64;
    expectNetworkAgrees(c, "FP16 build, K 768, FP8 output");
    c.quantizesOutput = false;
    expectNetworkAgrees(c, "FP16 build, K 768, bias, GELU, FP16 output");
}

TEST(CudaFp8MatrixMultiply, FoldsAProductByAPositiveConstant)
{
    // Attention's queries scaled right after their projection (Whisper's): DQ -> product -> bias -> times a constant
    // -> Q, in FP32 and FP16 builds.
    QdqProduct c;
    c.input = Dims{3, {2, 17, 768}};
    c.columns = 64;
    c.activates = false;
    c.factor = 0.35355339F;
    expectNetworkAgrees(c, "K 768, bias, times 0.354, FP8 output");
    c.fp16 = true;
    expectNetworkAgrees(c, "FP16 build, K 768, bias, times 0.354, FP8 output");
}

TEST(CudaFp8MatrixMultiply, InnerExtentCublasLtRefusesStaysUnfused)
{
    QdqProduct c;
    c.input = Dims{3, {2, 9, 40}};
    int64_t const k = 40;
    std::vector<float> const weights = columnQuantizedWeights(k, c.columns);
    std::vector<float> const bias = spread(static_cast<size_t>(c.columns), -0.5F, 0.4F);
    NetworkMaker const maker = qdqNetwork(c, weights, bias);
    kiln::plan::PlanModel const model = cudaPlanOf(maker);
    EXPECT_EQ(layersOfKind(model, kQuantizedMatrixMultiplyLayerType), 0) << "K 40 is no multiple of 16";
    EXPECT_EQ(layersOfKind(model, LayerType::kMATRIX_MULTIPLY), 1);
    if (gpuPresent())
    {
        expectRunsAsTheReference(c, maker, "K 40, unfused");
    }
}

} // namespace
