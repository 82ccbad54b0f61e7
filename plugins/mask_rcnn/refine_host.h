// The host side of the family's two selection schemes, in the most direct form:
// - proposals (one class): candidates ranked by score, the best preNmsTopK enter greedy NMS, keepTopK survive;
// - detections (many classes): each ROI takes its best class, per-class greedy NMS, then the best keepTopK of the
//   image by score.
// Ties in score keep the lower index first (then the lower class), as the CUDA kernels' stable sorts do.
#pragma once

#include "box_coding.h"

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace kiln::plugins::mrcnn
{

struct ProposalRule
{
    int32_t preNmsTopK{0};
    int32_t keepTopK{0};
    float scoreThreshold{0.F}; //!< candidates have score >= this
    float iouThreshold{0.F};   //!< a kept box suppresses later boxes of IoU > this
};

struct DetectionRule
{
    int32_t classes{0};
    int32_t firstClass{0};      //!< the argmax starts here (1 skips the background column)
    int32_t backgroundClass{0}; //!< ROIs whose best class is this are dropped
    float scoreThreshold{0.F};  //!< candidates have score >= this
    float iouThreshold{0.F};
    int32_t keepTopK{0};
};

struct Detection
{
    YxBox box;
    int32_t label;
    float score;
};

//! Indices i with scores[i] >= threshold, by descending score (ties: lower index first), at most `limit`.
std::vector<int32_t> rankByScore(float const* scores, int32_t count, float threshold, int32_t limit);

//! Greedy NMS over boxes given best first: the positions kept, at most `maxKept`.
std::vector<int32_t> greedyKeep(std::vector<YxBox> const& boxes, float iouThreshold, int32_t maxKept);

//! One image's proposals: indices of the kept candidates, best first. boxOf(i) is candidate i's decoded box.
template <typename BoxOf>
std::vector<int32_t> keepProposals(float const* scores, int32_t count, ProposalRule const& rule, BoxOf&& boxOf)
{
    std::vector<int32_t> const ranked = rankByScore(scores, count, rule.scoreThreshold, rule.preNmsTopK);
    std::vector<YxBox> boxes;
    boxes.reserve(ranked.size());
    for (int32_t const index : ranked)
    {
        boxes.push_back(boxOf(index));
    }
    std::vector<int32_t> kept;
    for (int32_t const position : greedyKeep(boxes, rule.iouThreshold, rule.keepTopK))
    {
        kept.push_back(ranked[position]);
    }
    return kept;
}

//! Each ROI's best class from rule.firstClass on (a score must exceed 0; ties: the lower class), or -1.
std::vector<int32_t> bestClasses(float const* scores, int32_t rois, DetectionRule const& rule);

//! The best `keepTopK` of `detections` (given class by class) by score; ties keep their order.
std::vector<Detection> bestDetections(std::vector<Detection> detections, int32_t keepTopK);

//! The detections of one image, best first (at most keepTopK). scores are [rois, classes]; boxOf(roi, cls) is the
//! ROI refined by the class's deltas.
template <typename BoxOf>
std::vector<Detection> keepDetections(float const* scores, int32_t rois, DetectionRule const& rule, BoxOf&& boxOf)
{
    std::vector<int32_t> const best = bestClasses(scores, rois, rule);
    std::vector<Detection> kept; // class by class, each best first
    std::vector<float> classScores(static_cast<size_t>(rois));
    for (int32_t cls = 0; cls < rule.classes; ++cls)
    {
        if (cls == rule.backgroundClass)
        {
            continue;
        }
        for (int32_t roi = 0; roi < rois; ++roi)
        {
            // Scores below every threshold exclude the ROIs of other classes.
            classScores[roi] = best[roi] == cls ? scores[int64_t{roi} * rule.classes + cls] : -INFINITY;
        }
        std::vector<int32_t> const ranked = rankByScore(classScores.data(), rois, rule.scoreThreshold, rois);
        std::vector<YxBox> boxes;
        for (int32_t const roi : ranked)
        {
            boxes.push_back(boxOf(roi, cls));
        }
        for (int32_t const position : greedyKeep(boxes, rule.iouThreshold, rule.keepTopK))
        {
            kept.push_back(Detection{boxes[position], cls, classScores[ranked[position]]});
        }
    }
    return bestDetections(std::move(kept), rule.keepTopK);
}

//! Rows [y1, x1, y2, x2, label, score] of `keepTopK` slots: the detections scoring above kMinOutputScore, then
//! padding rows [0, 0, 0, 0, -1, 0].
void writeDetectionRows(std::vector<Detection> const& detections, int32_t keepTopK, float* rows);

} // namespace kiln::plugins::mrcnn
