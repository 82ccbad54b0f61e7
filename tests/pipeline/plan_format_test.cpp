// Bad plans: truncated, corrupted, from another format version, or not a Kiln plan
// at all. Each must give a null engine and one clear error (to the logger, and to the
// runtime's error recorder where there is one), never a crash.
#include "keeping_recorder.h"
#include "plan/plan_format.h"
#include "test_logger.h"

#include <NvInfer.h>
#include <kiln/Backend.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <vector>

namespace
{

using namespace nvinfer1;

std::vector<uint8_t> smallPlan(kiln::test::RecordingLogger& logger)
{
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    auto* relu = network->addActivation(*x, ActivationType::kLEAKY_RELU);
    relu->setAlpha(0.5f);
    network->markOutput(*relu->getOutput(0));
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCPU);
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    auto const* bytes = static_cast<uint8_t const*>(plan->data());
    return std::vector<uint8_t>(bytes, bytes + plan->size());
}

//! smallPlan, read back.
kiln::plan::PlanModel smallPlanModel()
{
    kiln::test::RecordingLogger logger;
    std::vector<uint8_t> const bytes = smallPlan(logger);
    kiln::plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(kiln::plan::readPlan(bytes.data(), bytes.size(), model, error)) << error;
    return model;
}

//! A plan whose input "shape" is a shape tensor: x [2, 3] reshaped to the two values it holds, read back.
kiln::plan::PlanModel shapeInputPlanModel()
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    ITensor* shape = network->addInput("shape", DataType::kINT32, Dims{1, {2}});
    IShuffleLayer* reshape = network->addShuffle(*x);
    reshape->setInput(1, *shape);
    network->markOutput(*reshape->getOutput(0));
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCPU);
    IOptimizationProfile* profile = builder->createOptimizationProfile();
    int32_t const values[2] = {3, 2};
    for (OptProfileSelector selector : {OptProfileSelector::kMIN, OptProfileSelector::kOPT, OptProfileSelector::kMAX})
    {
        profile->setShapeValues("shape", selector, values, 2);
    }
    config->addOptimizationProfile(profile);
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    kiln::plan::PlanModel model;
    std::string error;
    EXPECT_NE(plan, nullptr) << logger.errors();
    if (plan != nullptr)
    {
        EXPECT_TRUE(kiln::plan::readPlan(plan->data(), plan->size(), model, error)) << error;
    }
    return model;
}

//! Why the reader refuses `changed` once written (expecting it to).
std::string rejection(kiln::plan::PlanModel const& changed)
{
    std::vector<uint8_t> const written = kiln::plan::writePlan(changed);
    kiln::plan::PlanModel read;
    std::string why;
    EXPECT_FALSE(kiln::plan::readPlan(written.data(), written.size(), read, why));
    return why;
}

ICudaEngine* load(IRuntime& runtime, std::vector<uint8_t> const& bytes)
{
    return runtime.deserializeCudaEngine(bytes.data(), bytes.size());
}

TEST(PlanFormat, RoundTripThroughEngineSerialize)
{
    kiln::test::RecordingLogger logger;
    std::vector<uint8_t> const plan = smallPlan(logger);
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(load(*runtime, plan));
    ASSERT_NE(engine, nullptr) << logger.errors();
    std::unique_ptr<IHostMemory> again(engine->serialize());
    ASSERT_EQ(again->size(), plan.size());
    EXPECT_EQ(std::memcmp(again->data(), plan.data(), plan.size()), 0);
}

TEST(PlanFormat, EveryTruncationFailsCleanly)
{
    kiln::test::RecordingLogger logger;
    std::vector<uint8_t> const plan = smallPlan(logger);
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    for (size_t size = 0; size < plan.size(); ++size)
    {
        std::vector<uint8_t> truncated(plan.begin(), plan.begin() + static_cast<std::ptrdiff_t>(size));
        logger.messages.clear();
        EXPECT_EQ(load(*runtime, truncated), nullptr) << "size " << size;
        EXPECT_NE(logger.errors().find("truncated"), std::string::npos) << "size " << size << ": " << logger.errors();
    }
}

TEST(PlanFormat, ABadPlanReachesTheRuntimesErrorRecorder)
{
    kiln::test::RecordingLogger logger;
    std::vector<uint8_t> const plan = smallPlan(logger);
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    kiln::test::KeepingRecorder recorder;
    runtime->setErrorRecorder(&recorder);
    std::vector<uint8_t> const truncated(plan.begin(), plan.begin() + static_cast<std::ptrdiff_t>(plan.size() / 2));
    EXPECT_EQ(load(*runtime, truncated), nullptr);
    ASSERT_EQ(recorder.errors.size(), 1U);
    EXPECT_EQ(recorder.errors[0].first, ErrorCode::kINVALID_ARGUMENT);
    EXPECT_NE(recorder.errors[0].second.find("IRuntime::deserializeCudaEngine"), std::string::npos)
        << recorder.errors[0].second;
    EXPECT_NE(recorder.errors[0].second.find("truncated"), std::string::npos) << recorder.errors[0].second;
    // The logger has it too.
    EXPECT_NE(logger.errors().find("truncated"), std::string::npos) << logger.errors();
}

TEST(PlanFormat, EnginesAndTheirContextsReportToTheRuntimesRecorder)
{
    kiln::test::RecordingLogger logger;
    std::vector<uint8_t> const plan = smallPlan(logger);
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    kiln::test::KeepingRecorder recorder;
    runtime->setErrorRecorder(&recorder);
    std::unique_ptr<ICudaEngine> engine(load(*runtime, plan));
    ASSERT_NE(engine, nullptr) << logger.errors();
    EXPECT_EQ(engine->getErrorRecorder(), &recorder);
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    ASSERT_NE(context, nullptr) << logger.errors();
    EXPECT_EQ(context->getErrorRecorder(), &recorder);
    // A context's own error: the network's output is not an input.
    char const* output = engine->getIOTensorName(1);
    EXPECT_FALSE(context->setInputShape(output, Dims{2, {2, 3}}));
    ASSERT_EQ(recorder.errors.size(), 1U);
    EXPECT_NE(recorder.errors[0].second.find("setInputShape"), std::string::npos) << recorder.errors[0].second;
    // An engine given no recorder of its own at load keeps none.
    std::unique_ptr<IRuntime> plain(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> quiet(load(*plain, plan));
    ASSERT_NE(quiet, nullptr) << logger.errors();
    EXPECT_EQ(quiet->getErrorRecorder(), nullptr);
}

TEST(PlanFormat, ByteFlipsAreDetected)
{
    kiln::test::RecordingLogger logger;
    std::vector<uint8_t> const plan = smallPlan(logger);
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::mt19937 random(1234);
    for (int trial = 0; trial < 500; ++trial)
    {
        std::vector<uint8_t> corrupted = plan;
        size_t const position = random() % corrupted.size();
        corrupted[position] ^= static_cast<uint8_t>(1 + random() % 255);
        logger.messages.clear();
        EXPECT_EQ(load(*runtime, corrupted), nullptr) << "flip at " << position;
        EXPECT_FALSE(logger.errors().empty()) << "flip at " << position;
    }
}

TEST(PlanFormat, NewerFormatVersionIsRejectedWithAdvice)
{
    kiln::test::RecordingLogger logger;
    std::vector<uint8_t> plan = smallPlan(logger);
    uint32_t const newer = kiln::plan::kPlanFormatVersion + 1;
    std::memcpy(plan.data() + 8, &newer, sizeof(newer));
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    EXPECT_EQ(load(*runtime, plan), nullptr);
    EXPECT_NE(logger.errors().find("format version " + std::to_string(newer)), std::string::npos) << logger.errors();
    EXPECT_NE(logger.errors().find("rebuild the plan"), std::string::npos);
}

TEST(PlanFormat, ForeignFilesAreNamed)
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::vector<uint8_t> tensorRT(64, 0);
    std::memcpy(tensorRT.data(), "ftrt", 4);
    EXPECT_EQ(load(*runtime, tensorRT), nullptr);
    EXPECT_NE(logger.errors().find("TensorRT plan"), std::string::npos) << logger.errors();
    std::vector<uint8_t> text(64, 'a');
    EXPECT_EQ(load(*runtime, text), nullptr);
    EXPECT_NE(logger.errors().find("not a Kiln plan"), std::string::npos) << logger.errors();
    EXPECT_EQ(runtime->deserializeCudaEngine(nullptr, 10), nullptr);
}

TEST(PlanFormat, ChecksumValidPayloadWithBadContentIsRejected)
{
    // A payload that passes the checksum but is not a plan: the parser's own checks must catch it.
    std::vector<uint8_t> payload(100, 0xFF);
    kiln::plan::PlanModel model;
    std::string error;
    std::vector<uint8_t> file(kiln::plan::kPlanHeaderSize);
    std::memcpy(file.data(), kiln::plan::kPlanMagic, 8);
    uint32_t const version = kiln::plan::kPlanFormatVersion;
    uint32_t const writer = 0;
    uint64_t const size = payload.size();
    std::memcpy(file.data() + 8, &version, 4);
    std::memcpy(file.data() + 12, &writer, 4);
    std::memcpy(file.data() + 16, &size, 8);
    uint64_t const checksum = kiln::plan::planChecksum(file.data(), payload.data(), payload.size());
    std::memcpy(file.data() + 24, &checksum, 8);
    file.insert(file.end(), payload.begin(), payload.end());
    EXPECT_FALSE(kiln::plan::readPlan(file.data(), file.size(), model, error));
    EXPECT_NE(error.find("malformed"), std::string::npos) << error;
}

TEST(PlanFormat, FormatsKilnDoesNotStoreAreRejected)
{
    // A well-formed plan whose tensor or layer claims a vectorized format, or a channels-last matrix: a runtime would
    // read such data wrongly, so the reader refuses the plan and says why.
    kiln::plan::PlanModel const model = smallPlanModel();
    kiln::plan::PlanModel vectorized = model;
    vectorized.tensors[0].format = TensorFormat::kCHW32;
    EXPECT_NE(rejection(vectorized).find("format Kiln does not store"), std::string::npos);
    kiln::plan::PlanModel channelsLastMatrix = model;
    channelsLastMatrix.tensors[0].format = TensorFormat::kHWC; // x is [2, 3]: no spatial axis
    EXPECT_NE(rejection(channelsLastMatrix).find("format Kiln does not store"), std::string::npos);
    kiln::plan::PlanModel layerFormat = model;
    layerFormat.layers[0].ioFormats = {TensorFormat::kHWC8, TensorFormat::kLINEAR};
    EXPECT_NE(rejection(layerFormat).find("reads or writes a format"), std::string::npos);
    kiln::plan::PlanModel tooFew = model;
    tooFew.layers[0].ioFormats = {TensorFormat::kLINEAR};
    EXPECT_NE(rejection(tooFew).find("I/O formats for 1 tensors"), std::string::npos);
}

TEST(PlanFormat, MemorySizesThatWouldOverflowAreRejected)
{
    // Sizes a context adds up: a tensor's offset and size whose sum wraps around (it passed as inside the arena), and
    // activation memory so large that rounding it up to an alignment overflows.
    kiln::plan::PlanModel const model = smallPlanModel();
    kiln::plan::PlanModel wrapped = model;
    wrapped.arenaBytes = 1024;
    wrapped.tensors[0].arenaOffset = std::numeric_limits<int64_t>::max() - 8;
    wrapped.tensors[0].maxBytes = 16;
    EXPECT_NE(rejection(wrapped).find("tensor \"x\" lies outside the activation memory"), std::string::npos);
    kiln::plan::PlanModel huge = model;
    huge.arenaBytes = std::numeric_limits<int64_t>::max();
    EXPECT_NE(rejection(huge).find("the plan asks for 9223372036854775807 bytes of activation memory and 0 bytes of "
                                   "workspace, more than any machine has"),
        std::string::npos);
}

TEST(PlanFormat, ShapeInputsWhoseShapeDoesNotHoldTheirValuesAreRejected)
{
    // A context reads one value per entry of a shape-tensor input's values from the application's buffer, which holds
    // as many as the input's shape: a plan where the two disagree would read past the buffer's end.
    kiln::plan::PlanModel const model = shapeInputPlanModel();
    auto const input = std::find_if(model.tensors.begin(), model.tensors.end(), [](kiln::plan::TensorRecord const& t) {
        return t.name == "shape";
    }) - model.tensors.begin();
    ASSERT_LT(input, static_cast<std::ptrdiff_t>(model.tensors.size()));
    ASSERT_TRUE(model.tensors[input].values.has_value());
    ASSERT_EQ(model.tensors[input].values->size(), 2U);
    kiln::plan::PlanModel more = model;
    more.tensors[input].values->push_back(more.tensors[input].values->front());
    EXPECT_NE(rejection(more).find("shape-tensor input \"shape\": the plan reads 3 values from it, which its shape "
                                   "does not hold exactly"),
        std::string::npos);
    kiln::plan::PlanModel fewer = model;
    fewer.tensors[input].values->pop_back();
    EXPECT_NE(rejection(fewer).find("the plan reads 1 value from it"), std::string::npos);
    kiln::plan::PlanModel sixPlaces = model;
    sixPlaces.tensors[input].dims = sixPlaces.tensors[0].dims; // x's: [2, 3]
    EXPECT_NE(rejection(sixPlaces).find("the plan reads 2 values"), std::string::npos);
}

} // namespace
