// INMSLayer's test cases, shared by the CPU backend's test (tests/layers/nms_test.cpp) and the CUDA backend's
// (tests/cuda_backend/nms_test.cpp): a case's network (boxes and scores as inputs "boxes" and "scores", the other
// inputs as constants unless the case feeds maxOutputBoxesPerClass as input "max_out"; outputs "selected" and
// "count"), random cases with ties, and a brute-force NMS written apart from the kernels, to check them against.
#pragma once

#include "host_tensor.h"

#include <NvInfer.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace kiln::test
{

struct NmsCase
{
    Shape boxesShape; //!< [batch, boxes, 4] or [batch, boxes, classes, 4]
    std::vector<float> boxes;
    Shape scoresShape; //!< [batch, boxes, classes]
    std::vector<float> scores;
    std::vector<int32_t> maxOut{100};  //!< one value; kept here, since the constant's weights must outlive the build
    std::vector<float> iou;            //!< empty: input 3 not given
    std::vector<float> scoreThreshold; //!< empty: input 4 not given
    nvinfer1::BoundingBoxFormat format{nvinfer1::BoundingBoxFormat::kCORNER_PAIRS};
    std::optional<int32_t> topKBoxLimit;
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    nvinfer1::DataType indicesType{nvinfer1::DataType::kINT32};
    bool maxOutAsInput{false}; //!< maxOutputBoxesPerClass as network input "max_out" rather than a constant

    std::map<std::string, HostTensor> inputs() const
    {
        std::map<std::string, HostTensor> tensors{
            {"boxes", fromFloats(boxesShape, boxes, type)}, {"scores", fromFloats(scoresShape, scores, type)}};
        if (maxOutAsInput)
        {
            tensors["max_out"] = fromInts({}, {maxOut.at(0)}, nvinfer1::DataType::kINT32);
        }
        return tensors;
    }
};

inline nvinfer1::Dims dimsOf(Shape const& shape)
{
    nvinfer1::Dims d{static_cast<int32_t>(shape.size()), {}};
    std::copy(shape.begin(), shape.end(), d.d);
    return d;
}

inline nvinfer1::ITensor* scalarConstant(
    nvinfer1::INetworkDefinition& network, nvinfer1::DataType type, void const* value)
{
    nvinfer1::IConstantLayer* layer = network.addConstant(nvinfer1::Dims{0, {}}, nvinfer1::Weights{type, value, 1});
    return layer != nullptr ? layer->getOutput(0) : nullptr;
}

//! The case's network; the layer, or null (with a test failure) where it was refused.
inline nvinfer1::INMSLayer* addNmsCase(nvinfer1::INetworkDefinition& network, NmsCase const& c)
{
    using nvinfer1::DataType;
    nvinfer1::ITensor* boxes = network.addInput("boxes", c.type, dimsOf(c.boxesShape));
    nvinfer1::ITensor* scores = network.addInput("scores", c.type, dimsOf(c.scoresShape));
    nvinfer1::ITensor* maxOut = c.maxOutAsInput ? network.addInput("max_out", DataType::kINT32, nvinfer1::Dims{0, {}})
                                                : scalarConstant(network, DataType::kINT32, c.maxOut.data());
    nvinfer1::INMSLayer* layer = network.addNMS(*boxes, *scores, *maxOut);
    EXPECT_NE(layer, nullptr);
    if (layer == nullptr)
    {
        return nullptr;
    }
    if (!c.iou.empty())
    {
        layer->setInput(3, *scalarConstant(network, DataType::kFLOAT, c.iou.data()));
    }
    if (!c.scoreThreshold.empty())
    {
        layer->setInput(4, *scalarConstant(network, DataType::kFLOAT, c.scoreThreshold.data()));
    }
    layer->setBoundingBoxFormat(c.format);
    if (c.topKBoxLimit)
    {
        layer->setTopKBoxLimit(*c.topKBoxLimit);
    }
    EXPECT_TRUE(layer->setIndicesType(c.indicesType));
    layer->getOutput(0)->setName("selected");
    layer->getOutput(1)->setName("count");
    network.markOutput(*layer->getOutput(0));
    network.markOutput(*layer->getOutput(1));
    return layer;
}

//! Box n of batch item b for class c, as [low x, low y, high x, high y] by the brute force's own reading.
inline std::vector<float> bruteForceBox(NmsCase const& c, int64_t b, int64_t cls, int64_t n)
{
    bool const perClass = c.boxesShape.size() == 4;
    int64_t const classes = c.scoresShape[2];
    int64_t const first = 4 * (perClass ? (b * c.scoresShape[1] + n) * classes + cls : b * c.scoresShape[1] + n);
    float const* v = c.boxes.data() + first;
    if (c.format == nvinfer1::BoundingBoxFormat::kCENTER_SIZES)
    {
        return {v[0] - v[2] / 2.0F, v[1] - v[3] / 2.0F, v[0] + v[2] / 2.0F, v[1] + v[3] / 2.0F};
    }
    return {std::min(v[0], v[2]), std::min(v[1], v[3]), std::max(v[0], v[2]), std::max(v[1], v[3])};
}

inline bool bruteForceOverlaps(std::vector<float> const& a, std::vector<float> const& b, float threshold)
{
    float const width = std::min(a[2], b[2]) - std::max(a[0], b[0]);
    float const height = std::min(a[3], b[3]) - std::max(a[1], b[1]);
    if (width <= 0.0F || height <= 0.0F)
    {
        return false;
    }
    float const inter = width * height;
    float const areaA = (a[2] - a[0]) * (a[3] - a[1]);
    float const areaB = (b[2] - b[0]) * (b[3] - b[1]);
    float const unionArea = areaA + areaB - inter;
    return inter > 0.0F && areaA > 0.0F && areaB > 0.0F && unionArea > 0.0F && inter / unionArea > threshold;
}

//! Batch item b's candidates as (class, box), in the order the top-k limit ranks them, the limit applied.
inline std::vector<std::pair<int64_t, int64_t>> bruteForceCandidates(NmsCase const& c, int64_t b)
{
    int64_t const boxes = c.scoresShape[1];
    int64_t const classes = c.scoresShape[2];
    float const threshold = c.scoreThreshold.empty() ? 0.0F : c.scoreThreshold[0];
    auto const score = [&](int64_t cls, int64_t n) { return c.scores[(b * boxes + n) * classes + cls]; };
    std::vector<std::pair<int64_t, int64_t>> kept;
    for (int64_t cls = 0; cls < classes; ++cls)
    {
        for (int64_t n = 0; n < boxes; ++n)
        {
            if (score(cls, n) > threshold)
            {
                kept.emplace_back(cls, n);
            }
        }
    }
    // (class, box) order is kept among equal scores by the stable sort.
    std::stable_sort(kept.begin(), kept.end(),
        [&](auto const& x, auto const& y) { return score(x.first, x.second) > score(y.first, y.second); });
    if (c.topKBoxLimit && static_cast<int64_t>(kept.size()) > *c.topKBoxLimit)
    {
        kept.resize(static_cast<size_t>(*c.topKBoxLimit));
    }
    return kept;
}

//! NMS by the definition, (batch, class, box) triples flattened: for each batch item and class, the best remaining
//! candidate again and again, kept unless a kept box overlaps it too much.
inline std::vector<int64_t> bruteForceNms(NmsCase const& c)
{
    std::vector<int64_t> rows;
    float const iou = c.iou.empty() ? 0.0F : c.iou[0];
    for (int64_t b = 0; b < c.scoresShape[0]; ++b)
    {
        auto const candidates = bruteForceCandidates(c, b);
        for (int64_t cls = 0; cls < c.scoresShape[2]; ++cls)
        {
            std::vector<std::vector<float>> kept;
            for (auto const& [candidateClass, n] : candidates) // already best first
            {
                if (candidateClass != cls || static_cast<int64_t>(kept.size()) >= c.maxOut[0])
                {
                    continue;
                }
                std::vector<float> const box = bruteForceBox(c, b, cls, n);
                if (std::none_of(kept.begin(), kept.end(),
                        [&](std::vector<float> const& other) { return bruteForceOverlaps(box, other, iou); }))
                {
                    kept.push_back(box);
                    rows.insert(rows.end(), {b, cls, n});
                }
            }
        }
    }
    return rows;
}

//! A random case: boxes on a coarse grid (so some coincide), scores in steps of 1/32 (so many tie).
inline NmsCase randomNmsCase(uint32_t seed, int64_t batch, int64_t boxes, int64_t classes, bool perClass)
{
    std::mt19937 random(seed);
    std::uniform_int_distribution<int> corner(0, 400);
    std::uniform_int_distribution<int> size(1, 60);
    std::uniform_int_distribution<int> step(0, 32);
    NmsCase c;
    c.boxesShape = perClass ? Shape{batch, boxes, classes, 4} : Shape{batch, boxes, 4};
    c.scoresShape = {batch, boxes, classes};
    int64_t const boxCount = batch * boxes * (perClass ? classes : 1);
    for (int64_t i = 0; i < boxCount; ++i)
    {
        float const x = static_cast<float>(corner(random)) * 0.25F;
        float const y = static_cast<float>(corner(random)) * 0.25F;
        float const w = static_cast<float>(size(random)) * 0.5F;
        float const h = static_cast<float>(size(random)) * 0.5F;
        if (i % 3 == 0)
        {
            c.boxes.insert(c.boxes.end(), {x + w, y + h, x, y}); // the other diagonal order
        }
        else
        {
            c.boxes.insert(c.boxes.end(), {x, y, x + w, y + h});
        }
    }
    for (int64_t i = 0; i < batch * boxes * classes; ++i)
    {
        c.scores.push_back(static_cast<float>(step(random)) / 32.0F);
    }
    c.iou = {0.5F};
    c.scoreThreshold = {0.1F};
    return c;
}

} // namespace kiln::test
