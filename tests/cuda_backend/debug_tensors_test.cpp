// Debug tensors on the CUDA backend: a tensor marked with markDebug stays out of the fusions (a point-wise chain, a
// convolution's epilogue) and row-major, and the debug listener gets its values in device memory, in the enqueue's
// stream order; they equal what the CPU reference, which runs every layer as written, gives for the same tensor. With
// markUnfusedTensorsAsDebugTensors every tensor the CUDA plan keeps in memory is given, each equal to the reference's.
#include "backend_comparison.h"
#include "named_layers.h"

#include "plan/plan_graph.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

//! Copies every debug tensor it is given to the host, by name.
class CopyingListener : public IDebugListener
{
public:
    bool processDebugTensor(void const* addr, TensorLocation location, DataType type, Dims const& shape,
        char const* name, cudaStream_t stream) override
    {
        HostTensor tensor = zeros(std::vector<int64_t>(shape.d, shape.d + shape.nbDims), type);
        if (location == TensorLocation::kDEVICE)
        {
            EXPECT_EQ(cudaMemcpyAsync(tensor.bytes.data(), addr, tensor.bytes.size(), cudaMemcpyDeviceToHost, stream),
                cudaSuccess);
            EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        }
        else if (!tensor.bytes.empty())
        {
            std::memcpy(tensor.bytes.data(), addr, tensor.bytes.size());
        }
        locations[name] = location;
        received[name] = std::move(tensor);
        return true;
    }

    std::map<std::string, HostTensor> received;
    std::map<std::string, TensorLocation> locations;
};

struct Weighted
{
    std::vector<std::unique_ptr<std::vector<float>>> held; // the network points at them until it is built

    Weights weights(std::vector<float> values)
    {
        held.push_back(std::make_unique<std::vector<float>>(std::move(values)));
        return Weights{DataType::kFLOAT, held.back()->data(), static_cast<int64_t>(held.back()->size())};
    }
};

Dims const kTokens{3, {2, 7, 37}};

//! GELU after a bias, as PyTorch exports it; the CUDA backend runs the whole chain as one kernel unless "e" is a
//! debug tensor. With `unfusedAreDebug`, the GELU "y" is averaged over the last axis into the output "mean", so that
//! the chain's result is a tensor in memory (a debug tensor) rather than an output.
NetworkMaker gelu(std::shared_ptr<Weighted> const& w, bool markE, bool unfusedAreDebug = false)
{
    return [w, markE, unfusedAreDebug](INetworkDefinition& network) {
        ITensor& x = *network.addInput("x", DataType::kFLOAT, kTokens);
        auto constant = [&](Dims const& dims, std::vector<float> values) -> ITensor& {
            return *network.addConstant(dims, w->weights(std::move(values)))->getOutput(0);
        };
        ITensor& h = binary(
            network, x, constant(Dims{3, {1, 1, 37}}, spread(37, -0.5F, 0.5F)), ElementWiseOperation::kSUM, "add bias");
        ITensor& scaled
            = binary(network, h, constant(Dims{3, {1, 1, 1}}, {1.41421356F}), ElementWiseOperation::kDIV, "div");
        ITensor& e = unary(network, scaled, UnaryOperation::kERF, "erf");
        e.setName("e");
        ITensor& g = binary(network, h,
            binary(network, e, constant(Dims{3, {1, 1, 1}}, {1.0F}), ElementWiseOperation::kSUM, "add one"),
            ElementWiseOperation::kPROD, "mul");
        ITensor& y = binary(network, g, constant(Dims{3, {1, 1, 1}}, {0.5F}), ElementWiseOperation::kPROD, "mul half");
        y.setName("y");
        if (markE)
        {
            EXPECT_TRUE(network.markDebug(e));
        }
        if (!unfusedAreDebug)
        {
            network.markOutput(y);
            return;
        }
        IReduceLayer* mean = network.addReduce(y, ReduceOperation::kAVG, 1U << 2, true);
        mean->getOutput(0)->setName("mean");
        network.markOutput(*mean->getOutput(0));
        EXPECT_TRUE(network.markUnfusedTensorsAsDebugTensors());
    };
}

Dims const kImage{4, {2, 16, 9, 9}};

//! A ResNet-style block: convolution "conv", ReLU, convolution, the sum with the block's input, ReLU. The CUDA
//! backend folds the ReLUs and the sum into the convolutions and, in FP16, keeps the block channels-last.
NetworkMaker block(std::shared_ptr<Weighted> const& w, bool markConv, bool unfusedAreDebug)
{
    return [w, markConv, unfusedAreDebug](INetworkDefinition& network) {
        ITensor& x = *network.addInput("x", DataType::kFLOAT, kImage);
        auto convolution = [&](ITensor& input, float phase, char const* name) -> ITensor& {
            IConvolutionLayer* layer = network.addConvolutionNd(input, 16, Dims{2, {3, 3}},
                w->weights(weightsOf(16 * 16 * 9, phase)), w->weights(weightsOf(16, phase + 1.0F)));
            layer->setPaddingNd(Dims{2, {1, 1}});
            layer->setName(name);
            layer->getOutput(0)->setName(name);
            return *layer->getOutput(0);
        };
        ITensor& conv = convolution(x, 0.3F, "conv");
        ITensor& second = convolution(relu(network, conv, "relu"), 0.7F, "conv2");
        ITensor& y = relu(network, add(network, second, x, "sum"), "y");
        y.setName("y");
        network.markOutput(y);
        if (markConv)
        {
            EXPECT_TRUE(network.markDebug(conv));
        }
        if (unfusedAreDebug)
        {
            EXPECT_TRUE(network.markUnfusedTensorsAsDebugTensors());
        }
    };
}

//! Runs `maker` on `backend` with every debug tensor on; what the listener got.
std::shared_ptr<CopyingListener> debugValues(
    kiln::Backend backend, NetworkMaker const& maker, std::map<std::string, HostTensor> const& inputs, bool fp16)
{
    auto listener = std::make_shared<CopyingListener>();
    runOn(backend, maker, inputs, fp16, nullptr, {}, [listener](IExecutionContext& context) {
        EXPECT_TRUE(context.setDebugListener(listener.get()));
        EXPECT_TRUE(context.setAllTensorsDebugState(true));
        EXPECT_TRUE(context.setUnfusedTensorsDebugState(true));
    });
    return listener;
}

//! Whether tensor `name` of `model` is in memory, row-major.
bool keptLinear(kiln::plan::PlanModel const& model, std::string const& name)
{
    for (kiln::plan::TensorRecord const& t : model.tensors)
    {
        if (t.name == name)
        {
            return (t.arenaOffset >= 0 || t.viewOf >= 0) && t.format == TensorFormat::kLINEAR;
        }
    }
    return false;
}

void expectSameValues(HostTensor const& gpu, HostTensor const& cpu, bool fp16, std::string const& what)
{
    ASSERT_EQ(gpu.shape, cpu.shape) << what;
    Tolerance const tolerance = fp16 ? Tolerance{2e-2, 2e-2} : Tolerance{1e-4, 1e-4};
    expectClose(gpu.floats(), cpu.floats(), tolerance, what);
}

class CudaDebugTensors : public ::testing::TestWithParam<bool>
{
};

TEST_P(CudaDebugTensors, MarkedTensorOfAPointwiseChainIsKeptAndGiven)
{
    bool const fp16 = GetParam();
    auto w = std::make_shared<Weighted>();
    // Built without a GPU: the mark splits the chain, which is one layer otherwise.
    EXPECT_FALSE(keptLinear(cudaPlanOf(gelu(w, false), fp16), "e"));
    EXPECT_TRUE(keptLinear(cudaPlanOf(gelu(w, true), fp16), "e"));
    SKIP_WITHOUT_GPU();
    std::map<std::string, HostTensor> const inputs{{"x", fromFloats(shapeOf(kTokens), spread(2 * 7 * 37, -3, 3))}};
    auto const gpu = debugValues(kiln::Backend::kCUDA, gelu(w, true), inputs, fp16);
    auto const cpu = debugValues(kiln::Backend::kCPU, gelu(w, true), inputs, fp16);
    ASSERT_EQ(gpu->received.count("e"), 1U);
    ASSERT_EQ(cpu->received.count("e"), 1U);
    EXPECT_EQ(gpu->locations.at("e"), TensorLocation::kDEVICE);
    EXPECT_EQ(cpu->locations.at("e"), TensorLocation::kHOST);
    expectSameValues(gpu->received.at("e"), cpu->received.at("e"), fp16, "e");
}

TEST_P(CudaDebugTensors, MarkedConvolutionOutputIsKeptOutOfTheEpilogueAndRowMajor)
{
    bool const fp16 = GetParam();
    auto w = std::make_shared<Weighted>();
    EXPECT_FALSE(keptLinear(cudaPlanOf(block(w, false, false), fp16), "conv"));
    EXPECT_TRUE(keptLinear(cudaPlanOf(block(w, true, false), fp16), "conv"));
    SKIP_WITHOUT_GPU();
    std::map<std::string, HostTensor> const inputs{{"x", fromFloats(shapeOf(kImage), spread(2 * 16 * 9 * 9, -1, 1))}};
    auto const gpu = debugValues(kiln::Backend::kCUDA, block(w, true, false), inputs, fp16);
    auto const cpu = debugValues(kiln::Backend::kCPU, block(w, true, false), inputs, fp16);
    ASSERT_EQ(gpu->received.count("conv"), 1U);
    expectSameValues(gpu->received.at("conv"), cpu->received.at("conv"), fp16, "conv");
}

//! With every unfused tensor a debug tensor, the CUDA backend gives those its plan keeps in memory, row-major (the
//! fused chain's result "y"; not its inner tensors), each equal to the reference's tensor of that name. A
//! channels-last block keeps none row-major in FP16: its FP32 plan is checked alike.
TEST_P(CudaDebugTensors, UnfusedTensorsEqualTheReferences)
{
    bool const fp16 = GetParam();
    auto w = std::make_shared<Weighted>();
    SKIP_WITHOUT_GPU();
    // What the CUDA backend gives, each tensor equal to the reference's of that name.
    auto compare = [fp16](NetworkMaker const& maker, std::map<std::string, HostTensor> const& inputs) {
        auto const gpu = debugValues(kiln::Backend::kCUDA, maker, inputs, fp16);
        auto const cpu = debugValues(kiln::Backend::kCPU, maker, inputs, fp16);
        for (auto const& [name, values] : gpu->received)
        {
            EXPECT_EQ(cpu->received.count(name), 1U) << name << " is not a tensor of the reference";
            if (cpu->received.count(name) == 1)
            {
                expectSameValues(values, cpu->received.at(name), fp16, name);
            }
        }
        return gpu;
    };
    auto const chain = compare(gelu(w, false, true), {{"x", fromFloats(shapeOf(kTokens), spread(2 * 7 * 37, -3, 3))}});
    EXPECT_EQ(chain->received.count("y"), 1U);
    EXPECT_EQ(chain->received.count("e"), 0U) << "fused into the chain";
    compare(block(w, false, true), {{"x", fromFloats(shapeOf(kImage), spread(2 * 16 * 9 * 9, -1, 1))}});
}

INSTANTIATE_TEST_SUITE_P(
    Precisions, CudaDebugTensors, ::testing::Bool(), [](::testing::TestParamInfo<bool> const& param) {
        return param.param ? std::string("FP16") : std::string("FP32");
    });

} // namespace
