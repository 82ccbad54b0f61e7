// The CUDA backend's Concatenation layer against the CPU reference: every axis (and a negative one) with inputs of
// different extents, INT32 and FP16 data, more inputs than one launch takes, and an empty input; the kernel over
// channels-last tensors along every axis, in units from 2 to 16 bytes; ShuffleNet's join of two branches inside a
// channels-last FP16 region.
#include "kernel_comparison.h"

#include "network/layers/concatenation.h"
#include "plan/plan_graph.h"

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

Dims dimsOf(std::vector<int64_t> const& shape)
{
    Dims dims{static_cast<int32_t>(shape.size()), {}};
    for (size_t i = 0; i < shape.size(); ++i)
    {
        dims.d[i] = shape[i];
    }
    return dims;
}

int64_t volumeOf(std::vector<int64_t> const& shape)
{
    int64_t v = 1;
    for (int64_t e : shape)
    {
        v *= e;
    }
    return v;
}

//! The network checks shapes when a layer is added, along the default axis: add the layer over copies of the first
//! input, set the axis, then the real inputs.
IConcatenationLayer* addConcatenationAlong(
    INetworkDefinition& network, std::vector<ITensor*> const& inputs, int32_t axis)
{
    std::vector<ITensor*> const placeholders(inputs.size(), inputs[0]);
    IConcatenationLayer* layer = network.addConcatenation(placeholders.data(), static_cast<int32_t>(inputs.size()));
    layer->setAxis(axis);
    for (size_t i = 1; i < inputs.size(); ++i)
    {
        layer->setInput(static_cast<int32_t>(i), *inputs[i]);
    }
    return layer;
}

//! Inputs x0, x1, ... of the given shapes joined along `axis`.
NetworkMaker concatenationOf(std::vector<std::vector<int64_t>> const& shapes, int32_t axis, DataType type)
{
    return [shapes, axis, type](INetworkDefinition& network) {
        std::vector<ITensor*> inputs;
        for (size_t i = 0; i < shapes.size(); ++i)
        {
            inputs.push_back(network.addInput(("x" + std::to_string(i)).c_str(), type, dimsOf(shapes[i])));
        }
        IConcatenationLayer* layer = addConcatenationAlong(network, inputs, axis);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
}

std::map<std::string, HostTensor> inputsFor(std::vector<std::vector<int64_t>> const& shapes, DataType type)
{
    std::map<std::string, HostTensor> inputs;
    for (size_t i = 0; i < shapes.size(); ++i)
    {
        auto const n = static_cast<size_t>(volumeOf(shapes[i]));
        std::string const name = "x" + std::to_string(i);
        if (type == DataType::kINT32)
        {
            std::vector<int32_t> values(n);
            for (size_t k = 0; k < n; ++k)
            {
                values[k] = static_cast<int32_t>(i * 1000 + k);
            }
            inputs[name] = fromElements(shapes[i], values, type);
        }
        else
        {
            inputs[name]
                = fromFloats(shapes[i], spread(n, -static_cast<float>(i) - 1.0F, static_cast<float>(i) + 1.0F), type);
        }
    }
    return inputs;
}

TEST(CudaBackendConcatenation, EveryAxisAgreesWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    for (int32_t axis : {0, 1, 2, -1})
    {
        std::vector<std::vector<int64_t>> shapes;
        for (int64_t extent : {2, 3, 1})
        {
            std::vector<int64_t> shape{2, 3, 4};
            shape[static_cast<size_t>(axis < 0 ? axis + 3 : axis)] = extent;
            shapes.push_back(shape);
        }
        std::string const what = "axis " + std::to_string(axis);
        expectBackendsAgree(
            concatenationOf(shapes, axis, DataType::kFLOAT), inputsFor(shapes, DataType::kFLOAT), false, what);
        expectBackendsAgree(
            concatenationOf(shapes, axis, DataType::kFLOAT), inputsFor(shapes, DataType::kFLOAT), true, what + " fp16");
        expectBackendsAgree(concatenationOf(shapes, axis, DataType::kINT32), inputsFor(shapes, DataType::kINT32), false,
            what + " int32");
    }
}

TEST(CudaBackendConcatenation, MoreInputsThanOneLaunchTakes)
{
    SKIP_WITHOUT_GPU();
    std::vector<std::vector<int64_t>> shapes;
    for (int64_t i = 0; i < 21; ++i)
    {
        shapes.push_back({3, 1 + i % 4, 5});
    }
    expectBackendsAgree(
        concatenationOf(shapes, 1, DataType::kFLOAT), inputsFor(shapes, DataType::kFLOAT), false, "21 inputs");
}

TEST(CudaBackendConcatenation, AnEmptyInput)
{
    SKIP_WITHOUT_GPU();
    NetworkMaker const maker = [](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{2, {3, 4}});
        ISliceLayer* empty = network.addSlice(*x, Dims{2, {0, 0}}, Dims{2, {3, 0}}, Dims{2, {1, 1}});
        IConcatenationLayer* layer = addConcatenationAlong(network, {x, empty->getOutput(0), x}, 1);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
    expectBackendsAgree(maker, {{"x", fromFloats({3, 4}, spread(12, -1.0F, 1.0F))}}, false, "empty input");
}

//! The CUDA kernel over kHWC inputs and output (as a channels-last region runs it) against the CPU reference over the
//! same values stored kLINEAR; the tensors placed `offset` elements past an aligned address.
void expectChannelsLastAgrees(
    std::vector<HostTensor> const& inputs, int32_t axis, size_t offset, std::string const& what)
{
    SCOPED_TRACE(what + ", axis " + std::to_string(axis) + ", offset " + std::to_string(offset));
    kiln::network::ConcatenationParams params;
    params.axis = axis;
    kiln::Shape shape = inputs.at(0).shape;
    shape[static_cast<size_t>(axis)] = 0;
    kiln::cpu::LayerInputs cpuIn;
    std::vector<std::unique_ptr<DeviceTensor>> deviceInputs;
    kiln::cuda::LayerInputs gpuIn;
    for (HostTensor const& input : inputs)
    {
        shape[static_cast<size_t>(axis)] += input.shape[static_cast<size_t>(axis)];
        cpuIn.push_back(input.constView());
        deviceInputs.push_back(std::make_unique<DeviceTensor>(reorderedChannels(input, true), offset));
        gpuIn.push_back(deviceInputs.back()->constView());
        gpuIn.back().format = TensorFormat::kHWC;
    }
    HostTensor expected = zeros(shape, inputs.at(0).type);
    kiln::cpu::run(params, cpuIn, {expected.view()});
    DeviceTensor const output(shape, expected.type, offset);
    kiln::TensorView outputView = output.view();
    outputView.format = TensorFormat::kHWC;
    std::unique_ptr<kiln::cuda::DeviceLayer> const layer = runOnDevice(params, gpuIn, {outputView});
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(reorderedChannels(output.read(), false).bytes, expected.bytes);
    EXPECT_TRUE(output.guardsIntact());
}

TEST(CudaBackendConcatenation, ChannelsLastAlongEveryAxis)
{
    SKIP_WITHOUT_GPU();
    // Along the channels (ShuffleNet's join): 8 and 16 FP16 channels copy 16 bytes at a time, 4 and 12 8 bytes,
    // 58 and 116 (ShuffleNet's) 4, 3 and 5 one element; one element off an aligned address narrows every unit.
    std::vector<std::pair<int64_t, int64_t>> const channels{{8, 16}, {4, 12}, {58, 116}, {3, 5}};
    for (DataType type : {DataType::kHALF, DataType::kFLOAT})
    {
        for (auto const& [first, second] : channels)
        {
            std::vector<HostTensor> const inputs{fromFloats({2, first, 5, 3}, scattered(30 * first, -2, 2, 1), type),
                fromFloats({2, second, 5, 3}, scattered(30 * second, -2, 2, 2), type)};
            for (size_t offset : {0, 1})
            {
                expectChannelsLastAgrees(inputs, 1, offset, kiln::dataTypeName(type) + " channels");
            }
        }
        // Along the batch and the spatial axes, which are outer axes of the storage order.
        for (int32_t axis : {0, 2, 3})
        {
            kiln::Shape a{2, 6, 5, 3};
            kiln::Shape b = a;
            b[static_cast<size_t>(axis)] = 4;
            std::vector<HostTensor> const inputs{
                fromFloats(a, scattered(static_cast<size_t>(kiln::volume(a)), -2, 2, 3), type),
                fromFloats(b, scattered(static_cast<size_t>(kiln::volume(b)), -2, 2, 4), type)};
            expectChannelsLastAgrees(inputs, axis, 0, kiln::dataTypeName(type));
        }
    }
}

//! Two 58-channel branches of 1x1 convolutions joined along the channels and read by one more 1x1 convolution
//! (ShuffleNet's pattern); with `joinIsOutput`, the join is a network output too.
NetworkMaker twoBranchesJoined(
    std::shared_ptr<std::vector<std::vector<float>>> const& weights, bool joinIsOutput = false)
{
    return [weights, joinIsOutput](INetworkDefinition& network) {
        constexpr int64_t kChannels = 58;
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{4, {2, 8, 6, 5}});
        // Each backend's network is made by a call of its own: the weights' phases count this call's layers, so
        // that both get the same weights (`weights` only keeps them alive).
        float phase = 0.0F;
        auto convolve = [&](ITensor& input, int64_t inputs, char const* name) -> ITensor& {
            weights->push_back(weightsOf(static_cast<size_t>(kChannels * inputs), phase++));
            std::vector<float> const& kernel = weights->back();
            IConvolutionLayer* conv = network.addConvolutionNd(input, kChannels, Dims{2, {1, 1}},
                Weights{DataType::kFLOAT, kernel.data(), static_cast<int64_t>(kernel.size())}, Weights{});
            conv->setName(name);
            conv->getOutput(0)->setName(name);
            return *conv->getOutput(0);
        };
        ITensor& stem = convolve(*x, 8, "stem");
        ITensor& left = convolve(stem, kChannels, "left");
        ITensor& right = convolve(stem, kChannels, "right");
        IConcatenationLayer* join = addConcatenationAlong(network, {&left, &right}, 1);
        join->setName("join");
        join->getOutput(0)->setName("joined");
        weights->push_back(weightsOf(static_cast<size_t>(2 * kChannels * kChannels), 0.5F));
        std::vector<float> const& kernel = weights->back();
        IConvolutionLayer* after = network.addConvolutionNd(*join->getOutput(0), kChannels, Dims{2, {1, 1}},
            Weights{DataType::kFLOAT, kernel.data(), static_cast<int64_t>(kernel.size())}, Weights{});
        after->getOutput(0)->setName("y");
        network.markOutput(*after->getOutput(0));
        if (joinIsOutput)
        {
            network.markOutput(*join->getOutput(0));
        }
    };
}

void alwaysChannelsLast(IBuilderConfig& config)
{
    kiln::setConvolutionLayout(config, kiln::ConvolutionLayout::kCHANNELS_LAST);
}

TEST(CudaBackendConcatenation, JoinsChannelsLastBranchesWithoutConverting)
{
    // Building and reading a CUDA plan needs no GPU.
    auto const weights = std::make_shared<std::vector<std::vector<float>>>();
    kiln::plan::PlanModel const model = cudaPlanOf(twoBranchesJoined(weights), true, alwaysChannelsLast);
    for (kiln::plan::LayerRecord const& layer : model.layers)
    {
        if (layer.name != "join")
        {
            continue;
        }
        for (size_t slot = 0; slot < layer.inputs.size() + layer.outputs.size(); ++slot)
        {
            EXPECT_EQ(kiln::plan::slotFormat(model, layer, slot), TensorFormat::kHWC) << "slot " << slot;
        }
        EXPECT_TRUE(layer.ioFormats.empty()); // every slot as its tensor is stored: nothing converts
        return;
    }
    ADD_FAILURE() << "no layer join";
}

TEST(CudaBackendConcatenation, ChannelsLastBranchesAgreeWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    auto const weights = std::make_shared<std::vector<std::vector<float>>>();
    std::map<std::string, HostTensor> const x{{"x", fromFloats({2, 8, 6, 5}, spread(2 * 8 * 6 * 5, -2.0F, 2.0F))}};
    expectBackendsAgree(twoBranchesJoined(weights), x, true, "fp16, channels last", alwaysChannelsLast);
    expectBackendsAgree(twoBranchesJoined(weights), x, false, "fp32");
}

TEST(CudaBackendConcatenation, ChannelsLastJoinItselfAgreesWithTheCpu)
{
    // The join read by the user as well as by the convolution after it.
    SKIP_WITHOUT_GPU();
    auto const weights = std::make_shared<std::vector<std::vector<float>>>();
    std::map<std::string, HostTensor> const x{{"x", fromFloats({2, 8, 6, 5}, spread(2 * 8 * 6 * 5, -2.0F, 2.0F))}};
    expectBackendsAgree(twoBranchesJoined(weights, true), x, true, "fp16, channels last", alwaysChannelsLast);
}

} // namespace
