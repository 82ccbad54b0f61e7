// The CUDA backend's INT8 product by constant weights (libraries/cublaslt/quantized_matrix_multiply.h):
//   - the kernel against the CPU reference kernel of the same QuantizedMatrixMultiply layer (on a GPU): inner extents
//     that are and are not multiples of the product's padding, batch axes, FP32, FP16 and INT8 outputs, ReLU, both
//     GELUs, bias and none, an input at an address cuBLASLt's kernels do not read in place, and a second shape; and its
//     errors for channels-last data and tensors of other shapes or types;
//   - Q/DQ networks made as Model Optimizer's exports state a linear layer: the CUDA plan fuses the chain into one
//     QuantizedMatrixMultiply (checked without a GPU), which reads the INT8 activations in place, and agrees with the
//     CPU reference kernels, which run every layer as written (on a GPU); in FP16 builds an output it does not
//     quantize is FP16, which the FP16 layer after it reads as it is.
//
// Tolerance: the CUDA kernel sums the INT8 products exactly in INT32 and scales each sum once in FP32; the reference
// sums the dequantized FP32 products and rounds the sum to FP32. The two differ by a few FP32 roundings of the sum.
// Where the layer quantizes, that can move a value lying within that rounding of a boundary of the INT8 grid to the
// neighbouring step: INT8 outputs agree within one step, and only a few of them differ at all. FP32 outputs agree
// within 1e-5 of their magnitude (GELU's erf differs by an ulp between CUDA and the C library, well inside); FP16
// outputs within FP16's rounding of that.
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
#include <stdexcept>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using kiln::network::kQuantizedMatrixMultiplyLayerType;
using kiln::network::QuantizedMatrixMultiplyParams;

constexpr float kInputScale = 1.0F / 64.0F;

//! One layer: its input's shape ([batch..., M, K]), its N columns and its epilogue.
struct ProductCase
{
    kiln::Shape input{2, 3, 5, 24};
    int64_t columns{18};
    bool bias{true};
    bool activates{true};
    ActivationType activation{ActivationType::kRELU};
    bool quantizesOutput{true};
    DataType floatType{DataType::kFLOAT}; //!< the output's type where it is not quantized
};

//! The output scale that spreads the case's outputs over most of the INT8 grid: the sums of K products of values
//! up to about 2 by weights up to 1.27 grow as sqrt(K).
float outputScaleFor(int64_t inner)
{
    return 0.02F * std::sqrt(static_cast<float>(inner));
}

//! Random INT8 weights, each column's largest magnitude 127 steps (max calibration) of a scale of its own.
QuantizedMatrixMultiplyParams paramsOf(ProductCase const& c)
{
    int64_t const k = c.input.back();
    std::mt19937 engine(17);
    std::uniform_int_distribution<int> values(-127, 127);
    std::vector<int8_t> weights;
    std::vector<float> scales;
    std::vector<float> bias;
    for (int64_t n = 0; n < c.columns; ++n)
    {
        for (int64_t i = 0; i < k; ++i)
        {
            int const q = i == n % k ? (n % 2 == 0 ? 127 : -127) : values(engine);
            weights.push_back(static_cast<int8_t>(q));
        }
        scales.push_back(0.01F / static_cast<float>(n % 5 + 1));
        bias.push_back(0.15F * static_cast<float>(n % 7) - 0.4F);
    }
    QuantizedMatrixMultiplyParams params;
    params.columns = c.columns;
    params.weights
        = kiln::network::WeightsBuffer(Weights{DataType::kINT8, weights.data(), static_cast<int64_t>(weights.size())});
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
    params.outputScale = c.quantizesOutput ? outputScaleFor(k) : 0.0F;
    params.floatType = c.floatType;
    return params;
}

HostTensor int8Input(kiln::Shape const& shape, uint32_t seed)
{
    std::mt19937 engine(seed);
    std::uniform_int_distribution<int> values(-128, 127);
    std::vector<int64_t> elements(static_cast<size_t>(kiln::volume(shape)));
    std::generate(elements.begin(), elements.end(), [&] { return values(engine); });
    return fromInts(shape, elements, DataType::kINT8);
}

kiln::Shape outputShapeOf(kiln::Shape shape, int64_t columns)
{
    shape.back() = columns;
    return shape;
}

//! INT8 results within one step of the reference's, few of them differing; and enough distinct values in the
//! reference that a wrong scale, column or row would show.
void expectInt8Agrees(HostTensor const& gpu, HostTensor const& cpu, std::string const& what)
{
    ASSERT_EQ(gpu.type, DataType::kINT8) << what;
    ASSERT_EQ(gpu.shape, cpu.shape) << what;
    std::vector<int64_t> const actual = gpu.ints();
    std::vector<int64_t> const expected = cpu.ints();
    size_t differing = 0;
    for (size_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_LE(std::abs(actual[i] - expected[i]), 1) << what << ": element " << i;
        differing += actual[i] != expected[i] ? 1 : 0;
    }
    EXPECT_LE(differing, expected.size() / 50 + 1) << what << ": too many outputs a step from the reference";
    // 20 distinct values, or a quarter of a small output's (48 outputs of 256 levels can hold 15).
    size_t const enough = std::min<size_t>(20, expected.size() / 4);
    EXPECT_GE(std::set<int64_t>(expected.begin(), expected.end()).size(), enough) << what << ": a degenerate case";
}

void expectSameResults(HostTensor const& gpu, HostTensor const& cpu, bool quantized, std::string const& what)
{
    if (quantized)
    {
        expectInt8Agrees(gpu, cpu, what);
    }
    else
    {
        ASSERT_EQ(gpu.type, cpu.type) << what;
        // An FP16 output: both round FP32 sums that differ by a few FP32 roundings, which may fall on either side
        // of an FP16 rounding boundary.
        double const rounding = cpu.type == DataType::kHALF ? 1e-3 : 0.0;
        expectClose(gpu, cpu, Tolerance(1e-5 + rounding, 1e-5 + rounding), what);
    }
}

//! The layer of `c` on the CUDA kernel and on the CPU reference, its input `inputOffset` elements past a 256-byte
//! aligned address (0: read in place, as cuBLASLt's integer kernels read a plan's rows; others copy the rows first).
void expectKernelAgrees(ProductCase const& c, std::string const& what, size_t inputOffset = 0)
{
    SKIP_WITHOUT_GPU();
    QuantizedMatrixMultiplyParams const params = paramsOf(c);
    DataType const outputType = params.outputType();
    auto const [cpu, gpu] = runBothKernels(params, {Placed{int8Input(c.input, 3), inputOffset}},
        {zeros(outputShapeOf(c.input, c.columns), outputType)}, 1);
    expectSameResults(gpu.at(0), cpu.at(0), c.quantizesOutput, what);
}

TEST(CudaQuantizedMatrixMultiply, InnerExtentNotAMultipleOfSixteen)
{
    expectKernelAgrees(ProductCase{}, "K 24 padded to 32, batch [2, 3], bias, ReLU, INT8 output");
    ProductCase c;
    c.input = {4, 7, 100};
    c.columns = 33;
    expectKernelAgrees(c, "K 100 padded to 112, 33 columns");
    c.input = {3, 1, 9, 5};
    c.columns = 7;
    expectKernelAgrees(c, "K 5, 7 columns");
}

TEST(CudaQuantizedMatrixMultiply, Fp32OutputWithAndWithoutBias)
{
    ProductCase c;
    c.quantizesOutput = false;
    c.activates = false;
    expectKernelAgrees(c, "bias, no activation, FP32 output");
    c.bias = false;
    c.input = {4, 7, 40};
    c.columns = 32;
    expectKernelAgrees(c, "no bias, no activation, FP32 output");
    c.activates = true;
    expectKernelAgrees(c, "no bias, ReLU, FP32 output");
}

TEST(CudaQuantizedMatrixMultiply, Fp16Output)
{
    ProductCase c;
    c.quantizesOutput = false;
    c.floatType = DataType::kHALF;
    expectKernelAgrees(c, "bias, ReLU, FP16 output");
    c.input = {2, 2, 6, 64};
    c.columns = 48;
    c.activation = ActivationType::kGELU_ERF;
    expectKernelAgrees(c, "K 64, bias, GELU, FP16 output");
    c.bias = false;
    c.activates = false;
    c.input = {3, 7, 30};
    c.columns = 13;
    expectKernelAgrees(c, "K 30 padded, 13 columns, no bias, FP16 output", 3);
}

TEST(CudaQuantizedMatrixMultiply, GeluBothForms)
{
    ProductCase c;
    c.input = {2, 2, 6, 64};
    c.columns = 48;
    for (ActivationType const gelu : {ActivationType::kGELU_ERF, ActivationType::kGELU_TANH})
    {
        std::string const name = gelu == ActivationType::kGELU_ERF ? "GELU (erf)" : "GELU (tanh)";
        c.activation = gelu;
        c.quantizesOutput = true;
        expectKernelAgrees(c, name + ", bias, INT8 output");
        c.quantizesOutput = false;
        expectKernelAgrees(c, name + ", bias, FP32 output");
        c.bias = false;
        expectKernelAgrees(c, name + ", no bias, FP32 output");
        c.bias = true;
    }
}

TEST(CudaQuantizedMatrixMultiply, MatricesAndUnalignedInputs)
{
    ProductCase c;
    c.input = {37, 48};
    c.columns = 20;
    expectKernelAgrees(c, "a matrix [37, 48]");
    c.input = {2, 9, 32};
    expectKernelAgrees(c, "an input 1 byte past an aligned address", 1);
    c.input = {2, 9, 19};
    expectKernelAgrees(c, "K 19, the input 3 bytes past an aligned address", 3);
}

TEST(CudaQuantizedMatrixMultiply, OneLayerRunsTwoShapes)
{
    SKIP_WITHOUT_GPU();
    ProductCase c;
    c.input = {2, 5, 40};
    c.columns = 24;
    QuantizedMatrixMultiplyParams const params = paramsOf(c);
    kiln::plan::LayerRecord const record;
    kiln::cuda::LibraryHandles handles;
    kiln::cuda::DeviceBuffer scratch;
    kiln::cuda::LayerContext const context{record, DataType::kINT8, TensorFormat::kLINEAR, handles, scratch};
    std::unique_ptr<kiln::cuda::DeviceLayer> const layer = kiln::cuda::lower(params, context);
    for (kiln::Shape const& shape : {kiln::Shape{2, 5, 40}, kiln::Shape{3, 11, 40}, kiln::Shape{1, 2, 40}})
    {
        HostTensor const input = int8Input(shape, static_cast<uint32_t>(shape[1]));
        HostTensor cpu = zeros(outputShapeOf(shape, c.columns), DataType::kINT8);
        kiln::cpu::run(params, {input.constView()}, {cpu.view()});
        DeviceTensor const deviceInput(input);
        DeviceTensor const deviceOutput(cpu.shape, DataType::kINT8);
        layer->run({deviceInput.constView()}, {deviceOutput.view()}, nullptr);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        expectInt8Agrees(deviceOutput.read(), cpu, "input of " + std::to_string(shape[0] * shape[1]) + " rows");
        EXPECT_TRUE(deviceOutput.guardsIntact());
    }
}

TEST(CudaQuantizedMatrixMultiply, RefusesOtherFormatsAndShapes)
{
    SKIP_WITHOUT_GPU();
    QuantizedMatrixMultiplyParams const params = paramsOf(ProductCase{});
    kiln::plan::LayerRecord const record;
    kiln::cuda::LibraryHandles handles;
    kiln::cuda::DeviceBuffer scratch;
    kiln::cuda::LayerContext const channelsLast{record, DataType::kINT8, TensorFormat::kHWC, handles, scratch};
    EXPECT_THROW(kiln::cuda::lower(params, channelsLast), std::invalid_argument);
    kiln::cuda::LayerContext const linear{record, DataType::kINT8, TensorFormat::kLINEAR, handles, scratch};
    std::unique_ptr<kiln::cuda::DeviceLayer> const layer = kiln::cuda::lower(params, linear);
    DeviceTensor const input(int8Input({2, 5, 24}, 1));
    DeviceTensor const shortRows(int8Input({2, 5, 23}, 1));
    DeviceTensor const output({2, 5, 18}, DataType::kINT8);
    DeviceTensor const wrongColumns({2, 5, 17}, DataType::kINT8);
    DeviceTensor const wrongType({2, 5, 18}, DataType::kFLOAT);
    EXPECT_THROW(layer->run({shortRows.constView()}, {output.view()}, nullptr), std::invalid_argument);
    EXPECT_THROW(layer->run({input.constView()}, {wrongColumns.view()}, nullptr), std::invalid_argument);
    EXPECT_THROW(layer->run({input.constView()}, {wrongType.view()}, nullptr), std::invalid_argument);
    EXPECT_NO_THROW(layer->run({input.constView()}, {output.view()}, nullptr));
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST(CudaQuantizedMatrixMultiply, RunsWhatThePassMakes)
{
    QuantizedMatrixMultiplyParams params = paramsOf(ProductCase{});
    EXPECT_TRUE(kiln::cuda::runsQuantizedMatrixMultiply(params));
    QuantizedMatrixMultiplyParams shortBias = params;
    std::vector<float> const three{1.0F, 2.0F, 3.0F};
    shortBias.bias = kiln::network::WeightsBuffer(Weights{DataType::kFLOAT, three.data(), 3});
    EXPECT_FALSE(kiln::cuda::runsQuantizedMatrixMultiply(shortBias)) << "a bias of 3 values for 18 columns";
    QuantizedMatrixMultiplyParams noColumns = params;
    noColumns.columns = 0;
    EXPECT_FALSE(kiln::cuda::runsQuantizedMatrixMultiply(noColumns));
}

// ---- Q/DQ networks ----

constexpr float kNetworkOutputScale = 0.08F;

struct QdqProduct
{
    Dims input{4, {2, 3, 8, 64}};
    int32_t columns{40};
    bool bias{true};
    bool activates{true};
    ActivationType activation{ActivationType::kGELU_ERF};
    bool quantizesOutput{true};
    bool fp16{false};          //!< built with kFP16: the layers between the pairs compute in FP16
    bool layerScale{false};    //!< the sum times a positive constant per column (ConvNeXt's layer scale)
    bool channelsFirst{false}; //!< with layerScale: the sum first transposed to [batch, N, ...], as ConvNeXt's blocks
    //! Weights that FP16 holds exactly (scales of powers of two), so that an FP16 build's reference rounds its layers'
    //! outputs alone (with a layer scale, its rounding of off-grid weights exceeds the tolerance now and then).
    bool exactInHalf{false};
};

ITensor& scalar(INetworkDefinition& network, float const& value)
{
    return *network.addConstant(Dims{}, Weights{DataType::kFLOAT, &value, 1})->getOutput(0);
}

ITensor& quantizedPair(INetworkDefinition& network, ITensor& input, float const& scale)
{
    ITensor* q = network.addQuantize(input, scalar(network, scale), DataType::kINT8)->getOutput(0);
    return *network.addDequantize(*q, scalar(network, scale), DataType::kFLOAT)->getOutput(0);
}

//! Weights [K, N] of INT8 values times one scale per column, exactly, as Model Optimizer's per-channel weights; with
//! `exactInHalf`, scales of 2^-7, 2^-8 and 2^-9, which keep them exact in FP16 too.
std::vector<float> columnQuantizedWeights(int64_t k, int64_t n, bool exactInHalf = false)
{
    std::mt19937 engine(23);
    std::uniform_int_distribution<int> values(-127, 127);
    std::vector<float> weights(static_cast<size_t>(k * n));
    for (int64_t i = 0; i < k; ++i)
    {
        for (int64_t column = 0; column < n; ++column)
        {
            int const q = i == column % k ? 127 : values(engine);
            float const scale = exactInHalf ? std::ldexp(1.0F, -7 - static_cast<int>(column % 3))
                                            : 0.01F / static_cast<float>(column % 3 + 1);
            weights[static_cast<size_t>(i * n + column)] = kiln::dequantizeInt8(static_cast<int8_t>(q), scale);
        }
    }
    return weights;
}

NetworkMaker qdqNetwork(QdqProduct const& c, std::vector<float> const& weights, std::vector<float> const& bias,
    std::vector<float> const& layerScale)
{
    return [=, &weights, &bias, &layerScale](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, c.input);
        ITensor& dequantized = quantizedPair(network, *x, kInputScale);
        int32_t const rank = c.input.nbDims;
        int64_t const k = c.input.d[rank - 1];
        // The weights [1, ..., 1, K, N] and the bias [1, ..., 1, N], of the input's rank.
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
        if (c.layerScale)
        {
            // [1, ..., 1, N] over the product's rows; [1, N, 1, ...] once the columns are moved to axis 1.
            Dims scaleDims = weightDims;
            scaleDims.d[rank - 2] = 1;
            if (c.channelsFirst)
            {
                Permutation toChannelsFirst{};
                toChannelsFirst.order[0] = 0;
                toChannelsFirst.order[1] = rank - 1;
                for (int32_t axis = 2; axis < rank; ++axis)
                {
                    toChannelsFirst.order[axis] = axis - 1;
                }
                IShuffleLayer* transpose = network.addShuffle(*y);
                transpose->setFirstTranspose(toChannelsFirst);
                y = transpose->getOutput(0);
                std::fill(scaleDims.d, scaleDims.d + rank, 1);
                scaleDims.d[1] = c.columns;
            }
            ITensor* g
                = network.addConstant(scaleDims, Weights{DataType::kFLOAT, layerScale.data(), c.columns})->getOutput(0);
            y = network.addElementWise(*y, *g, ElementWiseOperation::kPROD)->getOutput(0);
        }
        if (c.activates)
        {
            y = network.addActivation(*y, c.activation)->getOutput(0);
        }
        if (c.quantizesOutput)
        {
            y = &quantizedPair(network, *y, kNetworkOutputScale);
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

//! The case's CUDA plan fuses the chain into one QuantizedMatrixMultiply reading INT8 (checked without a GPU), and
//! runs as the CPU reference runs the layers as written (on a GPU).
void expectNetworkAgrees(QdqProduct const& c, std::string const& what)
{
    int64_t const k = c.input.d[c.input.nbDims - 1];
    std::vector<float> const weights = columnQuantizedWeights(k, c.columns, c.exactInHalf);
    std::vector<float> const bias = spread(static_cast<size_t>(c.columns), -0.5F, 0.4F);
    std::vector<float> const layerScale = spread(static_cast<size_t>(c.columns), 0.3F, 1.9F);
    NetworkMaker const maker = qdqNetwork(c, weights, bias, layerScale);

    kiln::plan::PlanModel const model = cudaPlanOf(maker, c.fp16);
    auto const fused = layersOfType(model, kQuantizedMatrixMultiplyLayerType);
    ASSERT_EQ(fused.size(), 1U) << what << ": the CUDA plan should fuse";
    EXPECT_EQ(layersOfKind(model, LayerType::kMATRIX_MULTIPLY), 0) << what;
    EXPECT_EQ(layersOfKind(model, LayerType::kACTIVATION), 0) << what << ": the activation should fuse too";
    EXPECT_EQ(layersOfKind(model, LayerType::kELEMENTWISE), 0)
        << what << ": the bias and the layer scale should fuse too";
    EXPECT_EQ(model.tensors[fused[0]->inputs[0]].type, DataType::kINT8) << what;
    DataType const floatOutput = c.fp16 ? DataType::kHALF : DataType::kFLOAT;
    EXPECT_EQ(fused[0]->precision, c.quantizesOutput ? DataType::kFLOAT : floatOutput) << what;
    EXPECT_EQ(model.tensors[fused[0]->outputs[0]].type, c.quantizesOutput ? DataType::kINT8 : floatOutput) << what;
    if (!gpuPresent())
    {
        return; // the plan is checked; running it needs a GPU
    }
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
    // In FP16 builds the reference rounds each layer's output to FP16, where the fused layer computes in FP32.
    double const relative = c.fp16 ? 2e-3 : 1e-5;
    Tolerance const tolerance = c.quantizesOutput ? Tolerance(kNetworkOutputScale * 1.001, c.fp16 ? relative : 0.0)
                                                  : Tolerance(relative, relative);
    expectSameOutput(gpu.at("y"), cpu.at("y"), tolerance, what);
}

TEST(CudaQuantizedMatrixMultiply, DequantizeProductBiasGeluQuantize)
{
    expectNetworkAgrees(QdqProduct{}, "K 64 read in place, bias, GELU, INT8 output");
}

TEST(CudaQuantizedMatrixMultiply, QdqNetworksOfEveryEpilogue)
{
    QdqProduct c;
    c.activation = ActivationType::kRELU;
    c.quantizesOutput = false;
    expectNetworkAgrees(c, "bias, ReLU, FP32 output");
    c.activates = false;
    c.bias = false;
    expectNetworkAgrees(c, "no bias, no activation, FP32 output");
    c.input = Dims{3, {3, 7, 30}};
    c.columns = 13;
    c.quantizesOutput = true;
    expectNetworkAgrees(c, "K 30 padded, 13 columns, INT8 output");
}

TEST(CudaQuantizedMatrixMultiply, Fp16BuildsFuseToo)
{
    QdqProduct c;
    c.fp16 = true;
    expectNetworkAgrees(c, "FP16 build, bias, GELU, INT8 output");
    c.quantizesOutput = false;
    c.activation = ActivationType::kRELU;
    expectNetworkAgrees(c, "FP16 build, bias, ReLU, FP16 output");
    c.activates = false;
    c.input = Dims{3, {3, 7, 30}};
    c.columns = 13;
    expectNetworkAgrees(c, "FP16 build, K 30 padded, 13 columns, bias, FP16 output");
}

TEST(CudaQuantizedMatrixMultiply, LayerScalesPerColumnJoinTheProduct)
{
    // ConvNeXt's blocks end in a linear layer, its bias, the transpose back to channels-first and a layer scale per
    // channel before the Q: the CUDA passes move the scale before the transpose and the Q back before it, and the
    // fused layer takes the scale into its columns' scales (folded into the weights, it would move them off the INT8
    // grid, and the product would stay unfused). Model Optimizer's weights, which such a folding leaves off the grid.
    QdqProduct c;
    c.activates = false;
    c.layerScale = true;
    expectNetworkAgrees(c, "bias, a scale per column, INT8 output");
    c.channelsFirst = true;
    expectNetworkAgrees(c, "bias, transposed to channels-first, a scale per channel, INT8 output");
    c.fp16 = true;
    expectNetworkAgrees(c, "FP16 build, bias, transposed to channels-first, a scale per channel, INT8 output");
    // An FP16 output, compared with the FP16 reference value by value: weights FP16 holds exactly.
    c.quantizesOutput = false;
    c.channelsFirst = false;
    c.exactInHalf = true;
    expectNetworkAgrees(c, "FP16 build, bias, a scale per column, FP16 output, weights exact in FP16");
}

} // namespace
