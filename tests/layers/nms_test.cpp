// INMSLayer on the CPU backend: cases worked out by hand (two overlapping boxes around the IoU threshold, the score
// threshold's strict comparison, several classes and batch items in ONNX's order, the per-class limit, centre and
// sizes, per-class boxes, empty results, ties, the top-k box limit, HALF inputs, INT64 indices), a random case
// against a brute-force NMS, the count changing with the shapes between runs of one context, the memory planned,
// the plan's fields, the setters, and the errors of inference and of the kernel.
#include "host_tensor.h"
#include "network/layers/nms.h"
#include "nms_cases.h"
#include "recording_output_allocator.h"
#include "round_trip.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <limits>
#include <memory>
#include <tuple>

namespace
{

using namespace nvinfer1;
using kiln::test::errorMentions;
using kiln::test::LayerHarness;
using kiln::test::NmsCase;
using kiln::test::RecordingOutputAllocator;

//! The case's selected (batch, class, box) triples, flattened, through a built and reloaded plan on the CPU, with
//! the count output and the allocator's record checked.
std::vector<int64_t> runNms(NmsCase const& c)
{
    LayerHarness h;
    if (kiln::test::addNmsCase(*h.network, c) == nullptr || !h.build())
    {
        return {-1};
    }
    kiln::test::expectRoundTrip(h);
    EXPECT_EQ(h.shapeOf("selected"), (std::vector<int64_t>{-1, 3}));
    RecordingOutputAllocator allocator;
    EXPECT_TRUE(h.context->setOutputAllocator("selected", &allocator));
    int32_t count = -1;
    std::map<std::string, void const*> inputs;
    auto const tensors = c.inputs();
    for (auto const& [name, tensor] : tensors)
    {
        inputs[name] = tensor.bytes.data();
    }
    if (!h.run(inputs, {{"count", &count}}))
    {
        return {-1};
    }
    EXPECT_EQ(h.shapeOf("selected"), (std::vector<int64_t>{count, 3}));
    EXPECT_EQ(allocator.shapes.back(), (std::vector<int64_t>{count, 3}));
    kiln::test::HostTensor selected = kiln::test::zeros({count, 3}, c.indicesType);
    if (!selected.bytes.empty())
    {
        std::memcpy(selected.bytes.data(), allocator.memory(), selected.bytes.size());
    }
    return selected.ints();
}

//! Box 0 (0, 0)-(10, 10) scores 0.9, box 1 (1, 1)-(11, 11) 0.8: IoU 81 / 119 = 0.68.
NmsCase twoOverlappingBoxes()
{
    NmsCase c;
    c.boxesShape = {1, 2, 4};
    c.boxes = {0, 0, 10, 10, 1, 1, 11, 11};
    c.scoresShape = {1, 2, 1};
    c.scores = {0.9F, 0.8F};
    return c;
}

TEST(NMSLayer, TwoOverlappingBoxesAroundTheIoUThreshold)
{
    NmsCase c = twoOverlappingBoxes();
    c.iou = {0.5F};
    EXPECT_EQ(runNms(c), (std::vector<int64_t>{0, 0, 0}));
    c.iou = {0.7F};
    EXPECT_EQ(runNms(c), (std::vector<int64_t>{0, 0, 0, 0, 0, 1}));
    // Without the IoU threshold input, 0: any overlap suppresses.
    c.iou.clear();
    EXPECT_EQ(runNms(c), (std::vector<int64_t>{0, 0, 0}));
    // Corners in the other diagonal order are the same boxes.
    c.boxes = {10, 10, 0, 0, 11, 1, 1, 11};
    c.iou = {0.7F};
    EXPECT_EQ(runNms(c), (std::vector<int64_t>{0, 0, 0, 0, 0, 1}));
}

//! Exports compute thresholds (SSDlite's come out of a Cast of an initializer): under kFP16 the layer computing one
//! must still store it as the FLOAT the NMS layer reads, or the built plan breaks the layer's contract on load.
TEST(NMSLayer, AThresholdComputedInAnFp16BuildStaysFloat)
{
    NmsCase c = twoOverlappingBoxes();
    for (float const half : {0.25F, 0.35F})
    {
        LayerHarness h;
        INMSLayer* nms = kiln::test::addNmsCase(*h.network, c);
        ASSERT_NE(nms, nullptr);
        float const two = 2.0F;
        ITensor* threshold = h.network
                                 ->addElementWise(*kiln::test::scalarConstant(*h.network, DataType::kFLOAT, &half),
                                     *kiln::test::scalarConstant(*h.network, DataType::kFLOAT, &two),
                                     ElementWiseOperation::kPROD)
                                 ->getOutput(0);
        nms->setInput(3, *threshold);
        h.config->setFlag(BuilderFlag::kFP16);
        ASSERT_TRUE(h.build());
        int32_t count = -1;
        RecordingOutputAllocator allocator;
        ASSERT_TRUE(h.context->setOutputAllocator("selected", &allocator));
        auto const tensors = c.inputs();
        ASSERT_TRUE(h.run({{"boxes", tensors.at("boxes").bytes.data()}, {"scores", tensors.at("scores").bytes.data()}},
            {{"count", &count}}));
        // IoU 0.68: a threshold of 0.5 suppresses box 1, one of 0.7 keeps it.
        EXPECT_EQ(count, half < 0.3F ? 1 : 2) << "threshold " << 2 * half;
    }
}

//! torchvision's batched NMS suppresses every class in one NMS, each box shifted by its class times the largest
//! coordinate plus one. Boxes A (0, 0)-(10, 10) and B (3, 0)-(13, 10) of class 60 overlap by IoU 70 / 130 = 0.54,
//! under the threshold 0.55; box C of class 0, (300, 300)-(319, 319), makes class 60's shift 60 * 320 = 19200.
//! Half's spacing there is 16: shifted in half, A and B would both be (19200, 19200)-(19216, 19216) and B would be
//! suppressed. Under kFP16 the shifts and the NMS compute in FP32 and keep all three, as FP32 does; the product
//! that makes the boxes (an identity here, exact in half) keeps the reduced precision.
TEST(NMSLayer, ClassShiftedBoxesInAnFp16BuildKeepTheirOverlaps)
{
    std::vector<float> const boxes{0, 0, 10, 10, 3, 0, 13, 10, 300, 300, 319, 319};
    std::vector<float> const labels{60, 60, 0};
    std::vector<float> const scores{0.9F, 0.8F, 0.7F};
    std::vector<float> const identity{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    std::vector<float> const one{1};
    float const iou = 0.55F;
    int32_t const maxOut = 10;
    for (bool const fp16 : {false, true})
    {
        SCOPED_TRACE(fp16 ? "FP16" : "FP32");
        LayerHarness h;
        INetworkDefinition& n = *h.network;
        ILayer* decode = n.addMatrixMultiply(*n.addInput("boxes", DataType::kFLOAT, Dims{2, {3, 4}}),
            MatrixOperation::kNONE, *n.addConstant(Dims{2, {4, 4}}, kiln::test::floatWeights(identity))->getOutput(0),
            MatrixOperation::kNONE);
        decode->setName("decode");
        ITensor* decoded = decode->getOutput(0);
        ITensor* largest = n.addReduce(*decoded, ReduceOperation::kMAX, 0b11, true)->getOutput(0);
        ITensor* spacing = n.addElementWise(*largest,
                                *n.addConstant(Dims{2, {1, 1}}, kiln::test::floatWeights(one))->getOutput(0),
                                ElementWiseOperation::kSUM)
                               ->getOutput(0);
        ITensor* shifts = n.addElementWise(*n.addInput("labels", DataType::kFLOAT, Dims{2, {3, 1}}), *spacing,
                               ElementWiseOperation::kPROD)
                              ->getOutput(0);
        ILayer* shift = n.addElementWise(*decoded, *shifts, ElementWiseOperation::kSUM);
        shift->setName("shift");
        IShuffleLayer* batched = n.addShuffle(*shift->getOutput(0));
        batched->setReshapeDimensions(Dims{3, {1, 3, 4}});
        INMSLayer* nms = n.addNMS(*batched->getOutput(0), *n.addInput("scores", DataType::kFLOAT, Dims{3, {1, 3, 1}}),
            *kiln::test::scalarConstant(n, DataType::kINT32, &maxOut));
        nms->setInput(3, *kiln::test::scalarConstant(n, DataType::kFLOAT, &iou));
        nms->setName("nms");
        h.output(nms, "selected", 0);
        h.output(nms, "count", 1);
        if (fp16)
        {
            h.config->setFlag(BuilderFlag::kFP16);
        }
        ASSERT_TRUE(h.build());
        RecordingOutputAllocator allocator;
        ASSERT_TRUE(h.context->setOutputAllocator("selected", &allocator));
        int32_t count = -1;
        ASSERT_TRUE(h.run(
            {{"boxes", boxes.data()}, {"labels", labels.data()}, {"scores", scores.data()}}, {{"count", &count}}));
        ASSERT_EQ(count, 3);
        std::vector<int32_t> selected(9);
        std::memcpy(selected.data(), allocator.memory(), selected.size() * sizeof(int32_t));
        EXPECT_EQ(selected, (std::vector<int32_t>{0, 0, 0, 0, 0, 1, 0, 0, 2}));

        std::unique_ptr<IEngineInspector> inspector(h.engine->createEngineInspector());
        nlohmann::json const layers
            = nlohmann::json::parse(inspector->getEngineInformation(LayerInformationFormat::kJSON))["Layers"];
        std::map<std::string, std::string> precisions;
        for (nlohmann::json const& layer : layers)
        {
            precisions[layer["Name"]] = layer.value("Precision", "");
        }
        EXPECT_EQ(precisions.at("shift"), "FLOAT");
        EXPECT_EQ(precisions.at("nms"), "FLOAT");
        EXPECT_EQ(precisions.at("decode"), fp16 ? "HALF" : "FLOAT");
    }
}

TEST(NMSLayer, ScoresMustExceedTheScoreThreshold)
{
    NmsCase c = twoOverlappingBoxes();
    c.iou = {0.7F};
    c.scoreThreshold = {0.8F}; // box 1's score equals it: not a candidate
    EXPECT_EQ(runNms(c), (std::vector<int64_t>{0, 0, 0}));
    c.scoreThreshold = {0.95F};
    EXPECT_EQ(runNms(c), (std::vector<int64_t>{}));
    // Without the score threshold input, 0: a score of 0 or less is no candidate.
    c.scoreThreshold.clear();
    c.scores = {0.0F, -0.5F};
    EXPECT_EQ(runNms(c), (std::vector<int64_t>{}));
    c.scoreThreshold = {-1.0F};
    EXPECT_EQ(runNms(c), (std::vector<int64_t>{0, 0, 0, 0, 0, 1}));
}

//! Two batch items of three boxes and two classes. Boxes 0 and 1 overlap (IoU 0.68), box 2 is apart.
NmsCase twoBatchesTwoClasses()
{
    NmsCase c;
    c.boxesShape = {2, 3, 4};
    c.boxes = {0, 0, 10, 10, 1, 1, 11, 11, 50, 50, 60, 60, /* batch 1 */ 0, 0, 10, 10, 20, 20, 30, 30, 1, 1, 11, 11};
    c.scoresShape = {2, 3, 2};
    // [batch][box][class]
    c.scores = {0.5F, 0.1F, 0.9F, 0.6F, 0.7F, 0.8F, /* batch 1 */ 0.2F, 0.9F, 0.3F, 0.4F, 0.6F, 0.95F};
    c.iou = {0.5F};
    c.scoreThreshold = {0.15F};
    return c;
}

TEST(NMSLayer, SeveralClassesAndBatchItemsInOnnxOrder)
{
    // Batch 0, class 0: scores 0.5, 0.9, 0.7: box 1, box 0 suppressed by it, box 2. Class 1: 0.1 (out), 0.6, 0.8:
    // box 2, box 1. Batch 1, class 0: 0.2, 0.3, 0.6: box 2, box 0 suppressed by it (IoU 0.68), box 1. Class 1: 0.9,
    // 0.4, 0.95: box 2, box 0 suppressed, box 1.
    EXPECT_EQ(runNms(twoBatchesTwoClasses()),
        (std::vector<int64_t>{0, 0, 1, 0, 0, 2, 0, 1, 2, 0, 1, 1, 1, 0, 2, 1, 0, 1, 1, 1, 2, 1, 1, 1}));
}

TEST(NMSLayer, MaxOutputBoxesPerClass)
{
    NmsCase c = twoBatchesTwoClasses();
    c.maxOut = {1};
    EXPECT_EQ(runNms(c), (std::vector<int64_t>{0, 0, 1, 0, 1, 2, 1, 0, 2, 1, 1, 2}));
    c.maxOut = {0};
    EXPECT_EQ(runNms(c), (std::vector<int64_t>{}));
    c.maxOut = {-3};
    EXPECT_EQ(runNms(c), (std::vector<int64_t>{}));
    // From a network input: the same selection, with memory planned for every box.
    c.maxOut = {1};
    c.maxOutAsInput = true;
    EXPECT_EQ(runNms(c), (std::vector<int64_t>{0, 0, 1, 0, 1, 2, 1, 0, 2, 1, 1, 2}));
}

TEST(NMSLayer, CenterAndSizes)
{
    NmsCase c = twoOverlappingBoxes();
    c.format = BoundingBoxFormat::kCENTER_SIZES;
    c.boxes = {5, 5, 10, 10, 6, 6, 10, 10}; // the same two boxes
    c.iou = {0.6F};
    EXPECT_EQ(runNms(c), (std::vector<int64_t>{0, 0, 0}));
    c.iou = {0.7F};
    EXPECT_EQ(runNms(c), (std::vector<int64_t>{0, 0, 0, 0, 0, 1}));
    // A negative width makes an empty box, which suppresses nothing and is not suppressed.
    c.iou = {0.0F};
    c.boxes = {5, 5, -10, 10, 6, 6, 10, 10};
    EXPECT_EQ(runNms(c), (std::vector<int64_t>{0, 0, 0, 0, 0, 1}));
}

TEST(NMSLayer, PerClassBoxes)
{
    // Class 0's boxes overlap; class 1's are apart.
    NmsCase c;
    c.boxesShape = {1, 2, 2, 4};
    c.boxes = {0, 0, 10, 10, 0, 0, 10, 10, /* box 1 */ 1, 1, 11, 11, 40, 40, 50, 50};
    c.scoresShape = {1, 2, 2};
    c.scores = {0.9F, 0.9F, 0.8F, 0.8F};
    c.iou = {0.5F};
    EXPECT_EQ(runNms(c), (std::vector<int64_t>{0, 0, 0, 0, 1, 0, 0, 1, 1}));
}

TEST(NMSLayer, EqualScoresTakeTheLowerBoxFirst)
{
    NmsCase c;
    c.boxesShape = {1, 4, 4};
    // Boxes 1 and 2 are the same; box 3 is apart; box 0 overlaps nothing.
    c.boxes = {100, 100, 110, 110, 0, 0, 10, 10, 0, 0, 10, 10, 30, 30, 40, 40};
    c.scoresShape = {1, 4, 1};
    c.scores = {0.5F, 0.7F, 0.7F, 0.7F};
    c.iou = {0.5F};
    EXPECT_EQ(runNms(c), (std::vector<int64_t>{0, 0, 1, 0, 0, 3, 0, 0, 0}));
    // -0.0 and 0.0 are equal scores (above a threshold of -1).
    c.scores = {0.0F, -0.0F, 0.0F, -0.0F};
    c.scoreThreshold = {-1.0F};
    EXPECT_EQ(runNms(c), (std::vector<int64_t>{0, 0, 0, 0, 0, 1, 0, 0, 3}));
}

TEST(NMSLayer, TopKBoxLimitKeepsTheBestCandidatesOfEachBatchItem)
{
    NmsCase c = twoBatchesTwoClasses();
    c.iou = {1.0F}; // no suppression
    c.topKBoxLimit = 2;
    // Batch 0's best: 0.9 (class 0 box 1), 0.8 (class 1 box 2). Batch 1's: 0.95 (class 1 box 2), 0.9 (class 1 box 0).
    EXPECT_EQ(runNms(c), (std::vector<int64_t>{0, 0, 1, 0, 1, 2, 1, 1, 2, 1, 1, 0}));
    // Equal scores: the lower class first.
    c.scores = {0.5F, 0.5F, 0.5F, 0.5F, 0.5F, 0.5F, 0.5F, 0.5F, 0.5F, 0.5F, 0.5F, 0.5F};
    c.topKBoxLimit = 4;
    EXPECT_EQ(
        runNms(c), (std::vector<int64_t>{0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 2, 1, 1, 0}));
    c.topKBoxLimit = 0;
    EXPECT_EQ(runNms(c), (std::vector<int64_t>{}));
}

TEST(NMSLayer, HalfInputsAndInt64Indices)
{
    NmsCase c = twoBatchesTwoClasses();
    c.scores = {0.5F, 0.125F, 0.875F, 0.625F, 0.75F, 0.8125F, 0.25F, 0.875F, 0.375F, 0.4375F, 0.625F, 0.9375F};
    std::vector<int64_t> const expected = runNms(c);
    EXPECT_EQ(expected.size(), 24U);
    c.type = DataType::kHALF;
    c.indicesType = DataType::kINT64;
    EXPECT_EQ(runNms(c), expected);
    c.type = DataType::kBF16;
    EXPECT_EQ(runNms(c), expected);
}

TEST(NMSLayer, RandomCasesMatchABruteForceNms)
{
    for (bool perClass : {false, true})
    {
        NmsCase c = kiln::test::randomNmsCase(perClass ? 7 : 3, 2, 300, 3, perClass);
        c.maxOut = {40};
        SCOPED_TRACE(perClass ? "per-class boxes" : "shared boxes");
        std::vector<int64_t> const expected = kiln::test::bruteForceNms(c);
        EXPECT_GT(expected.size(), 3U * 40U); // several classes fill up, others do not
        EXPECT_EQ(runNms(c), expected);
        NmsCase many = kiln::test::randomNmsCase(perClass ? 17 : 13, 1, 5000, 2, perClass);
        many.maxOut = {std::numeric_limits<int32_t>::max()};
        std::vector<int64_t> const all = kiln::test::bruteForceNms(many);
        EXPECT_GT(all.size(), 3U * 1000U);
        EXPECT_EQ(runNms(many), all);
        c.topKBoxLimit = 150;
        c.format = BoundingBoxFormat::kCENTER_SIZES;
        EXPECT_EQ(runNms(c), kiln::test::bruteForceNms(c));
    }
}

} // namespace

namespace
{

//! boxes [1, -1, 4] and scores [1, -1, 1] (their box count given at run time, up to 8), the IoU threshold 0.5, at
//! most `maxOut` boxes; "selected" through an allocator.
void addDynamicNms(LayerHarness& h, std::vector<int32_t> const& maxOut, std::vector<float> const& iou)
{
    ITensor* boxes = h.network->addInput("boxes", DataType::kFLOAT, Dims{3, {1, -1, 4}});
    ITensor* scores = h.network->addInput("scores", DataType::kFLOAT, Dims{3, {1, -1, 1}});
    h.setProfile("boxes", Dims{3, {1, 0, 4}}, Dims{3, {1, 4, 4}}, Dims{3, {1, 8, 4}});
    h.setProfile("scores", Dims{3, {1, 0, 1}}, Dims{3, {1, 4, 1}}, Dims{3, {1, 8, 1}});
    INMSLayer* layer
        = h.network->addNMS(*boxes, *scores, *kiln::test::scalarConstant(*h.network, DataType::kINT32, maxOut.data()));
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setInput(3, *kiln::test::scalarConstant(*h.network, DataType::kFLOAT, iou.data()));
    h.output(layer, "selected");
    h.output(layer, "count", 1);
}

TEST(NMSLayer, CountAndShapesChangeBetweenRunsOfOneContext)
{
    LayerHarness h;
    std::vector<int32_t> const maxOut{3};
    std::vector<float> const iou{0.5F};
    addDynamicNms(h, maxOut, iou);
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    RecordingOutputAllocator allocator;
    ASSERT_TRUE(h.context->setOutputAllocator("selected", &allocator));
    struct Case
    {
        std::vector<float> boxes;
        std::vector<float> scores;
        std::vector<int64_t> selected;
    };
    std::vector<float> const overlapping{0, 0, 10, 10, 1, 1, 11, 11};
    std::vector<float> const apart{20, 20, 30, 30, 40, 40, 50, 50, 60, 60, 70, 70};
    std::vector<float> eight;
    for (int i = 0; i < 8; ++i)
    {
        eight.insert(eight.end(), {20.0F * i, 0, 20.0F * i + 10, 10});
    }
    std::vector<Case> const cases{{overlapping, {0.6F, 0.9F}, {0, 0, 1}},
        {[&] {
             auto b = overlapping;
             b.insert(b.end(), apart.begin(), apart.end());
             return b;
         }(),
            {0.6F, 0.9F, 0.1F, 0.8F, 0.7F}, {0, 0, 1, 0, 0, 3, 0, 0, 4}},
        {{}, {}, {}}, {eight, {1, 2, 3, 4, 5, 6, 7, 8}, {0, 0, 7, 0, 0, 6, 0, 0, 5}}};
    for (Case const& c : cases)
    {
        auto const n = static_cast<int64_t>(c.scores.size());
        ASSERT_TRUE(h.context->setInputShape("boxes", Dims{3, {1, n, 4}}));
        ASSERT_TRUE(h.context->setInputShape("scores", Dims{3, {1, n, 1}}));
        // At most 3 boxes of one class: memory for min(n, 3) rows of 3 INT32.
        EXPECT_EQ(h.context->getMaxOutputSize("selected"), std::min<int64_t>(n, 3) * 3 * 4);
        int32_t count = -1;
        float unused = 0;
        ASSERT_TRUE(h.run({{"boxes", c.boxes.empty() ? &unused : c.boxes.data()},
                              {"scores", c.scores.empty() ? &unused : c.scores.data()}},
            {{"count", &count}}));
        auto const expectedCount = static_cast<int32_t>(c.selected.size() / 3);
        EXPECT_EQ(count, expectedCount);
        EXPECT_EQ(h.shapeOf("selected"), (std::vector<int64_t>{expectedCount, 3}));
        std::vector<int32_t> rows(c.selected.size());
        if (!rows.empty())
        {
            std::memcpy(rows.data(), allocator.memory(), rows.size() * 4);
        }
        EXPECT_EQ(std::vector<int64_t>(rows.begin(), rows.end()), c.selected) << n << " boxes";
    }
}

TEST(NMSLayer, MemoryPlannedForEveryBoxWhenTheLimitIsKnownOnlyAtRunTime)
{
    NmsCase c = twoBatchesTwoClasses();
    c.maxOutAsInput = true;
    LayerHarness h;
    ASSERT_NE(kiln::test::addNmsCase(*h.network, c), nullptr);
    ASSERT_TRUE(h.build());
    // 2 batch items * 2 classes * 3 boxes rows; the input stays a plain data input, not a shape tensor.
    EXPECT_EQ(h.context->getMaxOutputSize("selected"), 2 * 2 * 3 * 3 * 4);
    EXPECT_FALSE(h.engine->isShapeInferenceIO("max_out"));
    NmsCase limited = twoBatchesTwoClasses();
    limited.maxOut = {1};
    LayerHarness known;
    ASSERT_NE(kiln::test::addNmsCase(*known.network, limited), nullptr);
    ASSERT_TRUE(known.build());
    EXPECT_EQ(known.context->getMaxOutputSize("selected"), 2 * 2 * 1 * 3 * 4);
}

TEST(NMSLayer, PlanKeepsTheFields)
{
    NmsCase c = twoOverlappingBoxes();
    c.format = BoundingBoxFormat::kCENTER_SIZES;
    c.topKBoxLimit = 7;
    c.indicesType = DataType::kINT64;
    LayerHarness h;
    ASSERT_NE(kiln::test::addNmsCase(*h.network, c), nullptr);
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    auto const params = kiln::test::paramsInPlan<kiln::network::NMSParams>(h);
    ASSERT_EQ(params.size(), 1U);
    EXPECT_EQ(params[0].boxFormat, BoundingBoxFormat::kCENTER_SIZES);
    EXPECT_EQ(params[0].topKBoxLimit, 7);
    EXPECT_EQ(params[0].indicesType, DataType::kINT64);
    EXPECT_EQ(h.engine->getTensorDataType("selected"), DataType::kINT64);
    EXPECT_EQ(h.engine->getTensorDataType("count"), DataType::kINT32);
}

TEST(NMSLayer, SettersDefaultsAndOutputs)
{
    LayerHarness h;
    std::vector<int32_t> const maxOut{2};
    ITensor* boxes = h.network->addInput("boxes", DataType::kFLOAT, Dims{3, {1, 5, 4}});
    ITensor* scores = h.network->addInput("scores", DataType::kFLOAT, Dims{3, {1, 5, 3}});
    INMSLayer* layer
        = h.network->addNMS(*boxes, *scores, *kiln::test::scalarConstant(*h.network, DataType::kINT32, maxOut.data()));
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    EXPECT_EQ(layer->getType(), LayerType::kNMS);
    EXPECT_EQ(layer->getBoundingBoxFormat(), BoundingBoxFormat::kCORNER_PAIRS);
    EXPECT_EQ(layer->getTopKBoxLimit(), std::numeric_limits<int32_t>::max());
    EXPECT_EQ(layer->getIndicesType(), DataType::kINT32);
    EXPECT_EQ(layer->getNbInputs(), 3);
    ASSERT_EQ(layer->getNbOutputs(), 2);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kINT32);
    Dims const selected = layer->getOutput(0)->getDimensions();
    EXPECT_EQ(selected.nbDims, 2);
    EXPECT_EQ(selected.d[0], -1);
    EXPECT_EQ(selected.d[1], 3);
    EXPECT_EQ(layer->getOutput(1)->getType(), DataType::kINT32);
    EXPECT_EQ(layer->getOutput(1)->getDimensions().nbDims, 0);

    layer->setBoundingBoxFormat(static_cast<BoundingBoxFormat>(2));
    EXPECT_TRUE(errorMentions(h, "2 is not a BoundingBoxFormat"));
    EXPECT_EQ(layer->getBoundingBoxFormat(), BoundingBoxFormat::kCORNER_PAIRS);
    layer->setBoundingBoxFormat(BoundingBoxFormat::kCENTER_SIZES);
    EXPECT_EQ(layer->getBoundingBoxFormat(), BoundingBoxFormat::kCENTER_SIZES);
    layer->setTopKBoxLimit(-1);
    EXPECT_TRUE(errorMentions(h, "the limit -1 is negative"));
    EXPECT_EQ(layer->getTopKBoxLimit(), std::numeric_limits<int32_t>::max());
    layer->setTopKBoxLimit(100000); // beyond TensorRT's 5000: Kiln takes it
    EXPECT_EQ(layer->getTopKBoxLimit(), 100000);
    EXPECT_FALSE(layer->setIndicesType(DataType::kFLOAT));
    EXPECT_TRUE(errorMentions(h, "INT32 or INT64, not FLOAT"));
    EXPECT_TRUE(layer->setIndicesType(DataType::kINT64));
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kINT64);
    // The optional thresholds are inputs 3 and 4; a sixth input is refused.
    std::vector<float> const threshold{0.5F};
    ITensor* t = kiln::test::scalarConstant(*h.network, DataType::kFLOAT, threshold.data());
    layer->setInput(4, *t);
    EXPECT_EQ(layer->getNbInputs(), 5);
    EXPECT_EQ(layer->getInput(3), nullptr);
    layer->setInput(5, *t);
    EXPECT_TRUE(errorMentions(h, "the layer takes 3 to 5 inputs"));
}

} // namespace

namespace
{

struct BadInputs
{
    DataType boxesType;
    Dims boxes;
    DataType scoresType;
    Dims scores;
    DataType maxOutType;
    Dims maxOut;
    char const* error;
};

TEST(NMSLayer, InferenceRefusesWhatItCannotRead)
{
    Dims const scalar{0, {}};
    DataType const f = DataType::kFLOAT;
    DataType const i = DataType::kINT32;
    std::vector<BadInputs> const cases{
        {f, Dims{2, {5, 4}}, f, Dims{3, {1, 5, 1}}, i, scalar,
            "the boxes (input 0) must be FLOAT, HALF or BF16 of "
            "shape [batch, boxes, 4] or [batch, boxes, classes, 4], not a 2-D FLOAT tensor"},
        {i, Dims{3, {1, 5, 4}}, i, Dims{3, {1, 5, 1}}, i, scalar, "not a 3-D INT32 tensor"},
        {f, Dims{3, {1, 5, 5}}, f, Dims{3, {1, 5, 1}}, i, scalar,
            "must hold each box's 4 coordinates in its last "
            "axis, not 5"},
        {f, Dims{3, {1, 5, 4}}, DataType::kHALF, Dims{3, {1, 5, 1}}, i, scalar,
            "the scores (input 1) must be a 3-D FLOAT tensor [batch, boxes, classes] (the boxes' type), not a 3-D "
            "HALF tensor"},
        {f, Dims{3, {1, 5, 4}}, f, Dims{2, {5, 1}}, i, scalar, "not a 2-D FLOAT tensor"},
        {f, Dims{3, {1, 5, 4}}, f, Dims{3, {1, 6, 1}}, i, scalar, "the boxes have 5 boxes but the scores 6"},
        {f, Dims{3, {2, 5, 4}}, f, Dims{3, {1, 5, 1}}, i, scalar, "the boxes have 2 batch items but the scores 1"},
        {f, Dims{4, {1, 5, 2, 4}}, f, Dims{3, {1, 5, 3}}, i, scalar, "the boxes have 2 classes but the scores 3"},
        {f, Dims{3, {1, 5, 4}}, f, Dims{3, {1, 5, 1}}, DataType::kINT64, scalar,
            "maxOutputBoxesPerClass (input 2) must be a 0-D INT32 tensor, not a 0-D INT64 tensor"},
        {f, Dims{3, {1, 5, 4}}, f, Dims{3, {1, 5, 1}}, i, Dims{1, {1}},
            "maxOutputBoxesPerClass (input 2) must be a 0-D INT32 tensor, not a 1-D INT32 tensor"},
    };
    for (BadInputs const& c : cases)
    {
        SCOPED_TRACE(c.error);
        LayerHarness h;
        ITensor* boxes = h.network->addInput("boxes", c.boxesType, c.boxes);
        ITensor* scores = h.network->addInput("scores", c.scoresType, c.scores);
        ITensor* maxOut = h.network->addInput("max_out", c.maxOutType, c.maxOut);
        EXPECT_EQ(h.network->addNMS(*boxes, *scores, *maxOut), nullptr);
        EXPECT_TRUE(errorMentions(h, c.error)) << h.logger.errors();
    }
}

TEST(NMSLayer, ThresholdsMustBeScalarFloats)
{
    for (auto const& [type, dims, error] : {std::tuple{DataType::kINT32, Dims{0, {}},
                                                "the IoU threshold (input 3) must be a 0-D FLOAT tensor, not a 0-D "
                                                "INT32 tensor"},
             std::tuple{DataType::kFLOAT, Dims{1, {1}}, "not a 1-D FLOAT tensor"}})
    {
        LayerHarness h;
        NmsCase c = twoOverlappingBoxes();
        INMSLayer* layer = kiln::test::addNmsCase(*h.network, c);
        ASSERT_NE(layer, nullptr);
        layer->setInput(3, *h.network->addInput("iou", type, dims));
        h.expectBuildToFail(error);
    }
    LayerHarness h;
    NmsCase c = twoOverlappingBoxes();
    INMSLayer* layer = kiln::test::addNmsCase(*h.network, c);
    ASSERT_NE(layer, nullptr);
    layer->setInput(4, *h.network->addInput("threshold", DataType::kHALF, Dims{0, {}}));
    h.expectBuildToFail("the score threshold (input 4) must be a 0-D FLOAT tensor, not a 0-D HALF tensor");
}

TEST(NMSLayer, ExtentsThatDisagreeAtRunTimeFailTheRun)
{
    LayerHarness h;
    std::vector<int32_t> const maxOut{3};
    ITensor* boxes = h.network->addInput("boxes", DataType::kFLOAT, Dims{3, {1, -1, 4}});
    ITensor* scores = h.network->addInput("scores", DataType::kFLOAT, Dims{3, {1, -1, 1}});
    h.setProfile("boxes", Dims{3, {1, 1, 4}}, Dims{3, {1, 2, 4}}, Dims{3, {1, 4, 4}});
    h.setProfile("scores", Dims{3, {1, 1, 1}}, Dims{3, {1, 2, 1}}, Dims{3, {1, 4, 1}});
    INMSLayer* layer
        = h.network->addNMS(*boxes, *scores, *kiln::test::scalarConstant(*h.network, DataType::kINT32, maxOut.data()));
    h.output(layer, "selected");
    ASSERT_TRUE(h.build());
    RecordingOutputAllocator allocator;
    ASSERT_TRUE(h.context->setOutputAllocator("selected", &allocator));
    ASSERT_TRUE(h.context->setInputShape("boxes", Dims{3, {1, 2, 4}}));
    ASSERT_TRUE(h.context->setInputShape("scores", Dims{3, {1, 3, 1}}));
    std::vector<float> const data(12, 1.0F);
    h.context->setTensorAddress("boxes", const_cast<float*>(data.data()));
    h.context->setTensorAddress("scores", const_cast<float*>(data.data()));
    EXPECT_FALSE(h.context->enqueueV3(nullptr));
    EXPECT_TRUE(errorMentions(h, "nms: boxes [1, 2, 4] do not match scores [1, 3, 1]")) << h.logger.errors();
}

} // namespace
