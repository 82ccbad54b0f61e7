// Plans whose layer records break their kind's contract, written again with a valid checksum (plan::writePlan), as a
// hostile or hand-edited plan is: a convolution without its input, an activation reading INT64, counts of inputs and
// outputs its kind does not have, outputs of another type or rank. Each must give a null engine and an error naming
// the layer; a plan that still loads must run. Before the reader checked each record against its kind, the first two
// crashed inside the CPU backend's kernels.
#include "backend/cpu/fast/fast_path.h"
#include "network/layers/convolution.h"
#include "serial/byte_io.h"
#include "plan/plan_format.h"
#include "test_logger.h"

#include <NvInfer.h>
#include <kiln/Backend.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::plan::LayerRecord;
using kiln::plan::PlanModel;

//! x [1, 3, 6, 6] -> 3x3 convolution to 4 maps -> y, on the CPU backend (its fast path where present).
std::vector<uint8_t> convolutionPlan()
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{4, {1, 3, 6, 6}});
    static std::vector<float> const kernel(4 * 3 * 3 * 3, 0.25F);
    static std::vector<float> const bias(4, 1.0F);
    auto* conv = network->addConvolutionNd(*x, 4, Dims{2, {3, 3}},
        Weights{DataType::kFLOAT, kernel.data(), static_cast<int64_t>(kernel.size())},
        Weights{DataType::kFLOAT, bias.data(), static_cast<int64_t>(bias.size())});
    // Alone: an activation after it would be fused into its record, which then has another name.
    conv->setName("conv");
    conv->getOutput(0)->setName("y");
    network->markOutput(*conv->getOutput(0));
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCPU);
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    EXPECT_NE(plan, nullptr) << logger.errors();
    auto const* bytes = static_cast<uint8_t const*>(plan->data());
    return std::vector<uint8_t>(bytes, bytes + plan->size());
}

//! x [2, 3] -> leaky ReLU -> y, on the CPU backend.
std::vector<uint8_t> activationPlan()
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    auto* relu = network->addActivation(*x, ActivationType::kLEAKY_RELU);
    relu->setAlpha(0.5F);
    relu->setName("leaky");
    relu->getOutput(0)->setName("y");
    network->markOutput(*relu->getOutput(0));
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCPU);
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    EXPECT_NE(plan, nullptr) << logger.errors();
    auto const* bytes = static_cast<uint8_t const*>(plan->data());
    return std::vector<uint8_t>(bytes, bytes + plan->size());
}

PlanModel modelOf(std::vector<uint8_t> const& bytes)
{
    PlanModel model;
    std::string error;
    EXPECT_TRUE(kiln::plan::readPlan(bytes.data(), bytes.size(), model, error)) << error;
    return model;
}

LayerRecord& layerNamed(PlanModel& model, std::string const& name)
{
    for (LayerRecord& layer : model.layers)
    {
        if (layer.name == name)
        {
            return layer;
        }
    }
    ADD_FAILURE() << "no layer \"" << name << "\"";
    return model.layers.front();
}

//! Runs every input at 1.0 through `engine` with its I/O tensors in host memory; whether the run succeeded.
bool runOnes(ICudaEngine& engine)
{
    std::unique_ptr<IExecutionContext> context(engine.createExecutionContext());
    if (context == nullptr)
    {
        return false;
    }
    std::vector<std::vector<float>> buffers;
    for (int32_t i = 0; i < engine.getNbIOTensors(); ++i)
    {
        char const* name = engine.getIOTensorName(i);
        Dims const dims = engine.getTensorShape(name);
        int64_t count = 1;
        for (int32_t d = 0; d < dims.nbDims; ++d)
        {
            count *= dims.d[d];
        }
        // Room for the widest element type, whatever the record says.
        buffers.emplace_back(static_cast<size_t>(count) * 2, 1.0F);
        context->setTensorAddress(name, buffers.back().data());
    }
    return context->enqueueV3(nullptr);
}

//! Loads `changed`, written again with a valid checksum: a null engine with an error naming `layer` that contains
//! `reason`, or an engine that runs. Returns whether it was refused.
bool refusedOrRuns(PlanModel const& changed, std::string const& layer, std::string const& reason)
{
    std::vector<uint8_t> const bytes = kiln::plan::writePlan(changed);
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(bytes.data(), bytes.size()));
    if (engine != nullptr)
    {
        EXPECT_TRUE(runOnes(*engine)) << logger.errors();
        return false;
    }
    std::string const errors = logger.errors();
    EXPECT_NE(errors.find("layer \"" + layer + "\""), std::string::npos) << errors;
    EXPECT_NE(errors.find(reason), std::string::npos) << errors;
    return true;
}

//! A record that breaks its kind's contract: refused at load, naming the layer.
void expectRefused(PlanModel const& changed, std::string const& layer, std::string const& reason)
{
    EXPECT_TRUE(refusedOrRuns(changed, layer, reason)) << "layer " << layer << ": the plan loaded";
}

TEST(LayerContract, UnchangedPlansLoadAndRun)
{
    for (std::vector<uint8_t> const& bytes : {convolutionPlan(), activationPlan()})
    {
        kiln::test::RecordingLogger logger;
        std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
        std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(bytes.data(), bytes.size()));
        ASSERT_NE(engine, nullptr) << logger.errors();
        EXPECT_TRUE(runOnes(*engine)) << logger.errors();
    }
}

TEST(LayerContract, ConvolutionWithoutInputs)
{
    PlanModel model = modelOf(convolutionPlan());
    LayerRecord& conv = layerNamed(model, "conv");
    conv.inputs.clear();
    if (!conv.ioTypes.empty())
    {
        conv.ioTypes.erase(conv.ioTypes.begin());
    }
    if (!conv.ioFormats.empty())
    {
        conv.ioFormats.erase(conv.ioFormats.begin());
    }
    expectRefused(model, "conv", "takes one input");
}

TEST(LayerContract, ConvolutionWithoutKernelWeights)
{
    PlanModel model = modelOf(convolutionPlan());
    LayerRecord& conv = layerNamed(model, "conv");
    auto params = std::make_shared<kiln::network::ConvolutionParams>(
        static_cast<kiln::network::ConvolutionParams const&>(*conv.params));
    params->kernel = kiln::network::WeightsBuffer{};
    conv.params = params;
    expectRefused(model, "conv", "conv");
}

TEST(LayerContract, ActivationReadingInt64)
{
    // The input tensor itself, network input included, recorded as INT64.
    PlanModel model = modelOf(activationPlan());
    LayerRecord& leaky = layerNamed(model, "leaky");
    model.tensors[static_cast<size_t>(leaky.inputs[0])].type = DataType::kINT64;
    expectRefused(model, "leaky", "INT64");

    // The type the layer reads in, its tensor left FLOAT.
    PlanModel slots = modelOf(activationPlan());
    LayerRecord& layer = layerNamed(slots, "leaky");
    layer.ioTypes = {DataType::kINT64, DataType::kFLOAT};
    expectRefused(slots, "leaky", "INT64");
}

TEST(LayerContract, ActivationOfIntegersMarkedForTheFastPath)
{
    // INT8 is a type activations take, so the kind's contract holds, but not one the CPU backend's oneDNN kernels are
    // given: the layer stays marked for them as the FP32 build marked it, and they would read its one-byte elements
    // as four-byte floats, past the end of the tensors. The backend refuses the record when the engine is made.
    PlanModel model = modelOf(activationPlan());
    LayerRecord& leaky = layerNamed(model, "leaky");
    leaky.ioTypes = {DataType::kINT8, DataType::kINT8};
    bool const marked = kiln::cpu::fast::Session::available() && kiln::cpu::fast::isMarked(leaky);
    if (marked)
    {
        expectRefused(model, "leaky", "oneDNN");
    }
    else
    {
        refusedOrRuns(model, "leaky", "leaky");
    }
}

TEST(LayerContract, CountsOfInputsAndOutputs)
{
    PlanModel twoInputs = modelOf(activationPlan());
    LayerRecord& extraInput = layerNamed(twoInputs, "leaky");
    extraInput.inputs.push_back(extraInput.inputs[0]);
    extraInput.ioTypes.clear();
    extraInput.ioFormats.clear();
    expectRefused(twoInputs, "leaky", "takes one input");

    PlanModel twoOutputs = modelOf(activationPlan());
    LayerRecord& extraOutput = layerNamed(twoOutputs, "leaky");
    extraOutput.outputs.push_back(extraOutput.inputs[0]);
    extraOutput.ioTypes.clear();
    extraOutput.ioFormats.clear();
    expectRefused(twoOutputs, "leaky", "outputs");

    PlanModel noOutputs = modelOf(activationPlan());
    LayerRecord& none = layerNamed(noOutputs, "leaky");
    none.outputs.clear();
    none.ioTypes.clear();
    none.ioFormats.clear();
    expectRefused(noOutputs, "leaky", "outputs");
}

TEST(LayerContract, OutputsOfAnotherTypeOrRank)
{
    // An output type the application may have asked for (ILayer::setOutputType): refused by the kernel chosen for
    // the layer or run, never a crash.
    PlanModel integers = modelOf(activationPlan());
    LayerRecord& typed = layerNamed(integers, "leaky");
    integers.tensors[static_cast<size_t>(typed.outputs[0])].type = DataType::kINT32;
    refusedOrRuns(integers, "leaky", "leaky");

    PlanModel flattened = modelOf(activationPlan());
    LayerRecord& ranked = layerNamed(flattened, "leaky");
    std::vector<int32_t>& dims = flattened.tensors[static_cast<size_t>(ranked.outputs[0])].dims;
    dims.pop_back();
    expectRefused(flattened, "leaky", "rank");
}

TEST(LayerContract, CountsAreCheckedAgainstTheBytesLeft)
{
    // 100,000 tensors announced, followed by 200,000 zero bytes: more bytes than tensors, but fewer than the 54 each
    // tensor takes at the least. The count is refused before a list is sized by it.
    kiln::serial::ByteWriter payload;
    payload.write(static_cast<int32_t>(kiln::Backend::kCPU));
    payload.writeString("");    // network name
    payload.write(uint32_t{0}); // plugins
    payload.write(uint32_t{0}); // expressions
    payload.write(uint32_t{0}); // symbols
    payload.write(uint32_t{100000});
    std::vector<uint8_t> body = payload.take();
    body.resize(body.size() + 200000, 0);

    kiln::serial::ByteWriter header;
    for (char c : kiln::plan::kPlanMagic)
    {
        header.write(c);
    }
    header.write(kiln::plan::kPlanFormatVersion);
    header.write(uint32_t{0});
    header.write(static_cast<uint64_t>(body.size()));
    header.write(kiln::plan::planChecksum(header.bytes().data(), body.data(), body.size()));
    std::vector<uint8_t> file = header.take();
    file.insert(file.end(), body.begin(), body.end());

    PlanModel model;
    std::string error;
    EXPECT_FALSE(kiln::plan::readPlan(file.data(), file.size(), model, error));
    EXPECT_NE(error.find("tensors: count 100000 is impossible"), std::string::npos) << error;
}

} // namespace
