// The attention layer through cuDNN's fused attention (libraries/cudnn/attention_layer.h): which problems it takes,
// and that it computes what the CPU reference computes, as Kiln's own kernel does on the same tensors: operands in
// [batch, heads, tokens, depth] and in the [batch, tokens, heads, depth] order a fused projection writes, batch axes
// that fold into two, Whisper's size, and a NaN in a query reaching its row alone; the builder's recorded choice of
// cuDNN's or Kiln's, and the timer that makes it.
#include "kernel_comparison.h"

#include "backend/cuda/libraries/cudnn/attention_layer.h"
#include "backend/cuda/tuning/algorithm_choice.h"
#include "backend/cuda/tuning/attention_timing.h"
#include "network/fused/attention.h"

#include <cmath>
#include <limits>
#include <string>

namespace
{

using namespace kiln;
using namespace kiln::test;
using nvinfer1::DataType;

//! How far FP16 attention may part from the CPU reference: the output's rounding, and the probabilities' sums
//! taken in another order.
Tolerance const kFp16Attention{4e-3, 4e-3};

//! One unmasked FP16 attention: q, k (keys by row) and v of `stored` extents, whose axes `axes` permute into
//! [..., tokens, depth] (the output is stored in that logical order).
struct CudnnCase
{
    std::string what;
    Shape stored;
    nvinfer1::Permutation axes;
};

network::AttentionParams paramsOf(CudnnCase const& c)
{
    network::AttentionParams params;
    params.scale = 0.125F;
    params.keysByRow = true;
    params.queryAxes = c.axes;
    params.keyAxes = c.axes;
    params.valueAxes = c.axes;
    return params;
}

Shape logicalShape(CudnnCase const& c)
{
    Shape shape(c.stored.size());
    for (size_t i = 0; i < shape.size(); ++i)
    {
        shape[i] = c.stored[static_cast<size_t>(c.axes.order[i])];
    }
    return shape;
}

//! What one run of the layer gave: its output, and whether cuDNN computed it.
struct LayerRun
{
    HostTensor output;
    bool onCudnn{false};
};

//! The CUDA attention layer on `inputs`, with the builder's `choice` recorded (none: the rule by key count).
LayerRun runLayer(network::AttentionParams const& params, std::vector<HostTensor> const& inputs, Shape const& output,
    cuda::AlgorithmChoice const& choice = {})
{
    plan::LayerRecord record;
    record.backendChoice = choice.encode();
    cuda::LibraryHandles handles;
    cuda::DeviceBuffer scratch;
    cuda::LayerContext const context{record, DataType::kHALF, TensorFormat::kLINEAR, handles, scratch};
    cuda::AttentionLayer layer(params, context);
    std::vector<std::unique_ptr<DeviceTensor>> devices;
    cuda::LayerInputs in;
    for (HostTensor const& input : inputs)
    {
        in.push_back(devices.emplace_back(std::make_unique<DeviceTensor>(input))->constView());
    }
    DeviceTensor result(output, DataType::kHALF);
    layer.run(in, {result.view()}, nullptr);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(result.guardsIntact());
    return {result.read(), layer.ranOnCudnn()};
}

//! Whether cuDNN's attention must run on this GPU: its engines were measured on Hopper (compute capability 9.0).
bool cudnnExpected()
{
    int device = 0;
    int major = 0;
    return cudaGetDevice(&device) == cudaSuccess
        && cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess && major == 9;
}

//! q, k and v of `c` with values spread over [-2, 2], and `nanAt` (an element of q) NaN where it is not negative.
std::vector<HostTensor> inputsOf(CudnnCase const& c, int64_t nanAt = -1)
{
    auto const count = static_cast<size_t>(volume(c.stored));
    std::vector<float> q = scattered(count, -2.0F, 2.0F, 1);
    if (nanAt >= 0)
    {
        q[static_cast<size_t>(nanAt)] = std::numeric_limits<float>::quiet_NaN();
    }
    return {fromFloats(c.stored, q, DataType::kHALF),
        fromFloats(c.stored, scattered(count, -2.0F, 2.0F, 2), DataType::kHALF),
        fromFloats(c.stored, scattered(count, -2.0F, 2.0F, 3), DataType::kHALF)};
}

HostTensor cpuReference(
    network::AttentionParams const& params, std::vector<HostTensor> const& inputs, Shape const& shape)
{
    HostTensor output = zeros(shape, DataType::kHALF);
    cpu::LayerInputs in;
    for (HostTensor const& input : inputs)
    {
        in.push_back(input.constView());
    }
    cpu::LayerOutputs out{output.view()};
    cpu::run(params, in, out);
    return output;
}

TEST(CudnnAttention, UnmaskedFp16AttentionRunsOnCudnnAndAgreesWithTheCpuReference)
{
    SKIP_WITHOUT_GPU();
    CudnnCase const cases[] = {
        {"Whisper-like, [batch, heads, tokens, depth]", {1, 6, 1500, 64}, {{0, 1, 2, 3}}},
        {"[batch, tokens, heads, depth] read through the permutation", {2, 300, 12, 64}, {{0, 2, 1, 3}}},
        {"three batch axes that fold into two", {2, 2, 3, 260, 32}, {{0, 1, 2, 3, 4}}},
        {"depth 128, tokens not a multiple of any tile", {2, 4, 333, 128}, {{0, 1, 2, 3}}},
    };
    for (CudnnCase const& c : cases)
    {
        network::AttentionParams const params = paramsOf(c);
        std::vector<HostTensor> const inputs = inputsOf(c);
        Shape const shape = logicalShape(c);
        HostTensor const expected = cpuReference(params, inputs, shape);
        LayerRun const library = runLayer(params, inputs, shape);
        LayerRun const kernel = runLayer(params, inputs, shape, cuda::AlgorithmChoice::kilnKernel());
        if (cudnnExpected())
        {
            EXPECT_TRUE(library.onCudnn) << c.what << ": cuDNN must run it on Hopper";
        }
        EXPECT_FALSE(kernel.onCudnn) << c.what << ": the builder's choice of Kiln's kernel must hold";
        expectClose(library.output.floats(), expected.floats(), kFp16Attention,
            c.what + (library.onCudnn ? ", cuDNN" : ", Kiln's kernel"));
        expectClose(kernel.output.floats(), expected.floats(), kFp16Attention, c.what + ", Kiln's kernel");
    }
}

TEST(CudnnAttention, ANanQueryMakesItsRowNaNAndNoOther)
{
    SKIP_WITHOUT_GPU();
    // Element 0 of query row 5 (batch 0, head 0) is NaN: its scores are NaN, so its row is NaN, as the unfused SoftMax
    // gives it; every other row is a number.
    CudnnCase const c{"NaN query", {1, 2, 300, 64}, {{0, 1, 2, 3}}};
    network::AttentionParams const params = paramsOf(c);
    std::vector<HostTensor> const inputs = inputsOf(c, 5 * 64);
    Shape const shape = logicalShape(c);
    for (cuda::AlgorithmChoice const choice : {cuda::AlgorithmChoice{}, cuda::AlgorithmChoice::kilnKernel()})
    {
        LayerRun const run = runLayer(params, inputs, shape, choice);
        std::string const what = run.onCudnn ? "cuDNN" : "Kiln's kernel";
        std::vector<float> const y = run.output.floats();
        for (size_t i = 0; i < y.size(); ++i)
        {
            bool const inNanRow = i / 64 == 5;
            EXPECT_EQ(std::isnan(y[i]), inNanRow) << what << ", element " << i;
        }
    }
}

TEST(CudnnAttention, ProblemsCudnnDoesNotComputeAlikeRunOnKilnsKernel)
{
    SKIP_WITHOUT_GPU();
    CudnnCase const c{"plain", {1, 2, 300, 64}, {{0, 1, 2, 3}}};
    Shape const shape = logicalShape(c);
    std::vector<HostTensor> const inputs = inputsOf(c);
    // NaN probabilities counted as zero: cuDNN would give NaN rows.
    network::AttentionParams guarded = paramsOf(c);
    guarded.zeroNaNProbabilities = true;
    EXPECT_FALSE(runLayer(guarded, inputs, shape, cuda::AlgorithmChoice::graphEngine(0)).onCudnn) << "NaN guard";
    // A depth that is not a multiple of 8 elements.
    CudnnCase const odd{"depth 20", {1, 2, 300, 20}, {{0, 1, 2, 3}}};
    LayerRun const oddRun
        = runLayer(paramsOf(odd), inputsOf(odd), logicalShape(odd), cuda::AlgorithmChoice::graphEngine(0));
    EXPECT_FALSE(oddRun.onCudnn) << "depth 20";
    expectClose(oddRun.output.floats(), cpuReference(paramsOf(odd), inputsOf(odd), logicalShape(odd)).floats(),
        kFp16Attention, "depth 20, Kiln's kernel");
    // ViT's 197 tokens, untimed: the rule by key count leaves them to Kiln's kernel; the builder's timing may choose
    // cuDNN's, which then runs them.
    CudnnCase const vit{"ViT-like", {2, 197, 12, 64}, {{0, 2, 1, 3}}};
    HostTensor const vitExpected = cpuReference(paramsOf(vit), inputsOf(vit), logicalShape(vit));
    LayerRun const vitRun = runLayer(paramsOf(vit), inputsOf(vit), logicalShape(vit));
    EXPECT_FALSE(vitRun.onCudnn) << "197 keys";
    expectClose(vitRun.output.floats(), vitExpected.floats(), kFp16Attention, "ViT-like, Kiln's kernel");
    LayerRun const vitChosen
        = runLayer(paramsOf(vit), inputsOf(vit), logicalShape(vit), cuda::AlgorithmChoice::graphEngine(0));
    if (cudnnExpected())
    {
        EXPECT_TRUE(vitChosen.onCudnn) << "197 keys, the builder's choice of cuDNN";
    }
    expectClose(vitChosen.output.floats(), vitExpected.floats(), kFp16Attention, "ViT-like, the builder's choice");
    // Keys stored by column ([..., D, Sk]): their rows are not contiguous.
    network::AttentionParams byColumn = paramsOf(c);
    byColumn.keysByRow = false;
    std::vector<HostTensor> byColumnInputs = inputs;
    byColumnInputs[1] = fromFloats({1, 2, 64, 300}, inputs[1].floats(), DataType::kHALF);
    LayerRun const byColumnRun = runLayer(byColumn, byColumnInputs, shape, cuda::AlgorithmChoice::graphEngine(0));
    EXPECT_FALSE(byColumnRun.onCudnn) << "keys by column";
    expectClose(byColumnRun.output.floats(), cpuReference(byColumn, byColumnInputs, shape).floats(), kFp16Attention,
        "keys by column, Kiln's kernel");
}

TEST(CudnnAttention, TheTimerChoosesWhatRunsTheShapes)
{
    SKIP_WITHOUT_GPU();
    cuda::AttentionTimer timer(nullptr);
    auto const shapesOf = [](CudnnCase const& c) {
        return cuda::AttentionOperandShapes{c.stored, c.stored, c.stored, logicalShape(c)};
    };
    CudnnCase const whisper{"Whisper-like", {1, 6, 1500, 64}, {{0, 1, 2, 3}}};
    cuda::AttentionAlgorithmTimer::Result const timed = timer.fastest(paramsOf(whisper), shapesOf(whisper));
    EXPECT_TRUE(
        timed.choice == cuda::AlgorithmChoice::graphEngine(0) || timed.choice == cuda::AlgorithmChoice::kilnKernel());
    EXPECT_GT(timed.milliseconds, 0.0F);
    // cuDNN does not take a depth of 20: Kiln's kernel, whatever the times.
    CudnnCase const odd{"depth 20", {1, 2, 300, 20}, {{0, 1, 2, 3}}};
    EXPECT_EQ(timer.fastest(paramsOf(odd), shapesOf(odd)).choice, cuda::AlgorithmChoice::kilnKernel());
}

} // namespace
