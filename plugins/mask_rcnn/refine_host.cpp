#include "refine_host.h"

#include <algorithm>

namespace kiln::plugins::mrcnn
{

std::vector<int32_t> rankByScore(float const* scores, int32_t count, float threshold, int32_t limit)
{
    std::vector<int32_t> ranked;
    for (int32_t i = 0; i < count; ++i)
    {
        if (scores[i] >= threshold)
        {
            ranked.push_back(i);
        }
    }
    std::stable_sort(ranked.begin(), ranked.end(), [scores](int32_t a, int32_t b) { return scores[a] > scores[b]; });
    if (static_cast<int64_t>(ranked.size()) > limit)
    {
        ranked.resize(static_cast<size_t>(std::max(limit, 0)));
    }
    return ranked;
}

std::vector<int32_t> greedyKeep(std::vector<YxBox> const& boxes, float iouThreshold, int32_t maxKept)
{
    std::vector<int32_t> kept;
    for (size_t i = 0; i < boxes.size() && static_cast<int32_t>(kept.size()) < maxKept; ++i)
    {
        bool const suppressed = std::any_of(kept.begin(), kept.end(),
            [&](int32_t k) { return boxIou(boxes[static_cast<size_t>(k)], boxes[i]) > iouThreshold; });
        if (!suppressed)
        {
            kept.push_back(static_cast<int32_t>(i));
        }
    }
    return kept;
}

std::vector<int32_t> bestClasses(float const* scores, int32_t rois, DetectionRule const& rule)
{
    std::vector<int32_t> best(static_cast<size_t>(rois), -1);
    for (int32_t roi = 0; roi < rois; ++roi)
    {
        float bestScore = 0.F;
        for (int32_t cls = rule.firstClass; cls < rule.classes; ++cls)
        {
            float const score = scores[int64_t{roi} * rule.classes + cls];
            if (score > bestScore)
            {
                bestScore = score;
                best[roi] = cls;
            }
        }
    }
    return best;
}

std::vector<Detection> bestDetections(std::vector<Detection> detections, int32_t keepTopK)
{
    std::stable_sort(
        detections.begin(), detections.end(), [](Detection const& a, Detection const& b) { return a.score > b.score; });
    if (static_cast<int64_t>(detections.size()) > keepTopK)
    {
        detections.resize(static_cast<size_t>(keepTopK));
    }
    return detections;
}

void writeDetectionRows(std::vector<Detection> const& detections, int32_t keepTopK, float* rows)
{
    for (int32_t slot = 0; slot < keepTopK; ++slot)
    {
        float* row = rows + int64_t{slot} * 6;
        bool const valid = slot < static_cast<int32_t>(detections.size()) && detections[slot].score > kMinOutputScore;
        if (!valid)
        {
            std::fill(row, row + 6, 0.F);
            row[4] = -1.F;
            continue;
        }
        Detection const& d = detections[slot];
        row[0] = d.box.y1;
        row[1] = d.box.x1;
        row[2] = d.box.y2;
        row[3] = d.box.x2;
        row[4] = static_cast<float>(d.label);
        row[5] = d.score;
    }
}

} // namespace kiln::plugins::mrcnn
