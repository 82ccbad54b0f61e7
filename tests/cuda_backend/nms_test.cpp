// The CUDA backend's NMS layer against the CPU reference, index for index: the hand-worked cases of the CPU test
// (thresholds, several classes and batch items, the per-class limit, centre and sizes, per-class boxes, ties, the
// top-k box limit, HALF and BF16 inputs, INT64 indices, empty results), random cases with many ties of thousands of
// boxes (past 4096; one class list of 20000 boxes, ten of the selection's chunks of 2048; 130 lists of two chunks,
// more masks than one pass holds; the top-k limit cutting), also checked against the brute-force NMS,
// maxOutputBoxesPerClass from a network input, and the count changing between runs of one context on a stream.
// Without a GPU, that the CUDA plans build.
#include "backend_comparison.h"
#include "nms_cases.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

NetworkMaker makerOf(NmsCase const& c)
{
    return [c](INetworkDefinition& network) { addNmsCase(network, c); };
}

//! The case on both backends: the same rows, the same count; and on the GPU, `expected` where given.
void expectAgreement(NmsCase const& c, std::string const& what, std::vector<int64_t> const* expected = nullptr)
{
    expectBackendsAgree(makerOf(c), c.inputs(), false, what);
    if (expected != nullptr)
    {
        auto const outputs = runOn(kiln::Backend::kCUDA, makerOf(c), c.inputs());
        ASSERT_EQ(outputs.count("selected"), 1U) << what;
        EXPECT_EQ(outputs.at("selected").ints(), *expected) << what;
        EXPECT_EQ(outputs.at("count").ints(), (std::vector<int64_t>{static_cast<int64_t>(expected->size() / 3)}))
            << what;
    }
}

NmsCase twoBatchesTwoClasses()
{
    NmsCase c;
    c.boxesShape = {2, 3, 4};
    c.boxes = {0, 0, 10, 10, 1, 1, 11, 11, 50, 50, 60, 60, /* batch 1 */ 0, 0, 10, 10, 20, 20, 30, 30, 1, 1, 11, 11};
    c.scoresShape = {2, 3, 2};
    c.scores = {0.5F, 0.125F, 0.875F, 0.625F, 0.75F, 0.8125F, 0.25F, 0.875F, 0.375F, 0.4375F, 0.625F, 0.9375F};
    c.iou = {0.5F};
    c.scoreThreshold = {0.15F};
    return c;
}

TEST(CudaNms, HandWorkedCasesMatchTheReference)
{
    SKIP_WITHOUT_GPU();
    NmsCase c = twoBatchesTwoClasses();
    std::vector<int64_t> const all{0, 0, 1, 0, 0, 2, 0, 1, 2, 0, 1, 1, 1, 0, 2, 1, 0, 1, 1, 1, 2, 1, 1, 1};
    expectAgreement(c, "two batch items, two classes", &all);
    c.maxOut = {1};
    std::vector<int64_t> const best{0, 0, 1, 0, 1, 2, 1, 0, 2, 1, 1, 2};
    expectAgreement(c, "one box a class", &best);
    c.maxOut = {0};
    std::vector<int64_t> const none;
    expectAgreement(c, "no box a class", &none);
    c = twoBatchesTwoClasses();
    c.scoreThreshold = {0.99F};
    expectAgreement(c, "no score above the threshold", &none);
    c = twoBatchesTwoClasses();
    c.iou = {1.0F};
    c.topKBoxLimit = 2;
    std::vector<int64_t> const topTwo{0, 0, 1, 0, 1, 2, 1, 1, 2, 1, 1, 0};
    expectAgreement(c, "top-k box limit 2", &topTwo);
    c.scores.assign(12, 0.5F);
    c.topKBoxLimit = 4;
    std::vector<int64_t> const ties{0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 2, 1, 1, 0};
    expectAgreement(c, "equal scores, top-k box limit 4", &ties);
    c = twoBatchesTwoClasses();
    c.iou.clear();
    c.scoreThreshold.clear();
    c.format = BoundingBoxFormat::kCENTER_SIZES;
    expectAgreement(c, "centre and sizes, default thresholds");
    for (DataType type : {DataType::kHALF, DataType::kBF16})
    {
        c = twoBatchesTwoClasses();
        c.type = type;
        c.indicesType = DataType::kINT64;
        expectAgreement(c, kiln::dataTypeName(type) + " inputs, INT64 indices", &all);
    }
}

TEST(CudaNms, EqualScoresAndPerClassBoxes)
{
    SKIP_WITHOUT_GPU();
    NmsCase c;
    c.boxesShape = {1, 4, 4};
    c.boxes = {100, 100, 110, 110, 0, 0, 10, 10, 0, 0, 10, 10, 30, 30, 40, 40};
    c.scoresShape = {1, 4, 1};
    c.scores = {0.5F, 0.7F, 0.7F, 0.7F};
    c.iou = {0.5F};
    std::vector<int64_t> const lowerFirst{0, 0, 1, 0, 0, 3, 0, 0, 0};
    expectAgreement(c, "equal scores", &lowerFirst);
    c.scores = {0.0F, -0.0F, 0.0F, -0.0F};
    c.scoreThreshold = {-1.0F};
    std::vector<int64_t> const zeros{0, 0, 0, 0, 0, 1, 0, 0, 3};
    expectAgreement(c, "-0.0 and 0.0", &zeros);
    NmsCase perClass;
    perClass.boxesShape = {1, 2, 2, 4};
    perClass.boxes = {0, 0, 10, 10, 0, 0, 10, 10, 1, 1, 11, 11, 40, 40, 50, 50};
    perClass.scoresShape = {1, 2, 2};
    perClass.scores = {0.9F, 0.9F, 0.8F, 0.8F};
    perClass.iou = {0.5F};
    std::vector<int64_t> const expected{0, 0, 0, 0, 1, 0, 0, 1, 1};
    expectAgreement(perClass, "per-class boxes", &expected);
}

TEST(CudaNms, ThousandsOfBoxesMatchTheReferenceAndTheBruteForce)
{
    SKIP_WITHOUT_GPU();
    struct Size
    {
        int64_t batch;
        int64_t boxes;
        int64_t classes;
        bool perClass;
        int32_t maxOut;
        int32_t topK; //!< 0: no limit
    };
    for (Size const& s :
        {Size{2, 5000, 3, false, 1000000, 0}, Size{1, 20000, 1, false, 1000000, 0}, Size{2, 3000, 4, true, 300, 0},
            Size{3, 2000, 5, false, 100000, 1500}, Size{4, 700, 91, false, 100, 0}, Size{1, 2100, 130, false, 30, 0}})
    {
        std::string const what = std::to_string(s.batch) + " x " + std::to_string(s.boxes) + " boxes x "
            + std::to_string(s.classes) + " classes" + (s.perClass ? ", per class" : "") + ", top-k "
            + std::to_string(s.topK);
        NmsCase c = randomNmsCase(static_cast<uint32_t>(s.boxes + s.classes), s.batch, s.boxes, s.classes, s.perClass);
        c.maxOut = {s.maxOut};
        if (s.topK > 0)
        {
            c.topKBoxLimit = s.topK;
        }
        std::vector<int64_t> const expected = bruteForceNms(c);
        EXPECT_GT(expected.size(), 3U * 256U) << what; // hundreds of selections at least
        expectAgreement(c, what, &expected);
    }
}

TEST(CudaNms, LimitFromANetworkInput)
{
    SKIP_WITHOUT_GPU();
    NmsCase c = randomNmsCase(11, 2, 600, 3, false);
    c.maxOutAsInput = true;
    for (int32_t maxOut : {0, 1, 7, 1000})
    {
        c.maxOut = {maxOut};
        std::vector<int64_t> const expected = bruteForceNms(c);
        expectAgreement(c, "max_out " + std::to_string(maxOut), &expected);
    }
}

//! A CUDA engine of `c`'s network with boxes [1, -1, 4] and scores [1, -1, classes], up to `most` boxes.
std::unique_ptr<ICudaEngine> dynamicEngine(NmsCase c, int64_t most, IRuntime& runtime, RecordingLogger& logger)
{
    int64_t const classes = c.scoresShape[2];
    c.boxesShape = {1, -1, 4};
    c.scoresShape = {1, -1, classes};
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    addNmsCase(*network, c);
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCUDA);
    IOptimizationProfile* profile = builder->createOptimizationProfile();
    for (auto const& [name, last] : {std::pair{"boxes", int64_t{4}}, std::pair{"scores", classes}})
    {
        profile->setDimensions(name, OptProfileSelector::kMIN, Dims{3, {1, 1, last}});
        profile->setDimensions(name, OptProfileSelector::kOPT, Dims{3, {1, most / 4, last}});
        profile->setDimensions(name, OptProfileSelector::kMAX, Dims{3, {1, most, last}});
    }
    config->addOptimizationProfile(profile);
    std::unique_ptr<IHostMemory> blob(builder->buildSerializedNetwork(*network, *config));
    EXPECT_NE(blob, nullptr) << logger.errors();
    return std::unique_ptr<ICudaEngine>(blob ? runtime.deserializeCudaEngine(blob->data(), blob->size()) : nullptr);
}

TEST(CudaNms, CountChangesBetweenRunsOfOneContextOnAStream)
{
    SKIP_WITHOUT_GPU();
    // Up to 4100 boxes, given at run time: the same random boxes, cut to each run's count.
    NmsCase const full = randomNmsCase(5, 1, 4100, 2, false);
    RecordingLogger logger;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine = dynamicEngine(full, 4100, *runtime, logger);
    ASSERT_NE(engine, nullptr) << logger.errors();
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    std::unique_ptr<RecordingOutputAllocator> allocator = outputAllocatorFor(kiln::Backend::kCUDA);
    ASSERT_TRUE(context->setOutputAllocator("selected", allocator.get()));
    DeviceCopy const count(std::vector<uint8_t>(4, 0));
    ASSERT_TRUE(context->setTensorAddress("count", count.data));
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    for (int64_t n : {4100, 3, 1, 777})
    {
        NmsCase c = full;
        c.boxesShape = {1, n, 4};
        c.scoresShape = {1, n, 2};
        c.boxes.resize(static_cast<size_t>(n * 4));
        c.scores.resize(static_cast<size_t>(n * 2));
        auto const inputs = c.inputs();
        DeviceCopy const boxes(inputs.at("boxes").bytes);
        DeviceCopy const scores(inputs.at("scores").bytes);
        ASSERT_TRUE(context->setInputShape("boxes", Dims{3, {1, n, 4}}));
        ASSERT_TRUE(context->setInputShape("scores", Dims{3, {1, n, 2}}));
        ASSERT_TRUE(context->setTensorAddress("boxes", boxes.data));
        ASSERT_TRUE(context->setTensorAddress("scores", scores.data));
        ASSERT_TRUE(context->enqueueV3(stream)) << logger.errors();
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        std::vector<int64_t> const expected = bruteForceNms(c);
        auto const rows = static_cast<int64_t>(expected.size() / 3);
        EXPECT_EQ(allocator->shapes.back(), (std::vector<int64_t>{rows, 3})) << n;
        EXPECT_EQ(fromBytes({}, count.read(4), DataType::kINT32).ints(), (std::vector<int64_t>{rows})) << n;
        HostTensor selected = zeros({rows, 3}, DataType::kINT32);
        if (rows > 0)
        {
            ASSERT_EQ(
                cudaMemcpy(selected.bytes.data(), allocator->memory(), selected.bytes.size(), cudaMemcpyDeviceToHost),
                cudaSuccess);
        }
        EXPECT_EQ(selected.ints(), expected) << n << " boxes";
    }
    cudaStreamDestroy(stream);
}

TEST(CudaNms, PlansBuildWithoutAGpu)
{
    RecordingLogger logger;
    NmsCase c = twoBatchesTwoClasses();
    c.type = DataType::kHALF;
    EXPECT_NE(buildPlan(logger, kiln::Backend::kCUDA, makerOf(c), false, {}), nullptr);
    c.maxOutAsInput = true;
    c.topKBoxLimit = 3;
    EXPECT_NE(buildPlan(logger, kiln::Backend::kCUDA, makerOf(c), true, {}), nullptr);
}

} // namespace
