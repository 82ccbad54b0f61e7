// The Mask R-CNN family's test references, written the most direct way (loops over NVIDIA's documented rules, in
// double where it costs nothing), independent of box_coding.h and refine_host.h; and random inputs.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace kiln::test::mrcnn_reference
{

struct Box
{
    double y1, x1, y2, x2;
};

//! Matterport's anchors as NVIDIA's ProposalLayer README describes them: levels of strides 4..64 and sides
//! 32..512, cells every stride pixels from 0, ratios 0.5, 1, 2 (width / height), normalized by (H - 1, W - 1).
inline std::vector<Box> pyramidAnchors(int32_t imageH, int32_t imageW)
{
    std::vector<Box> anchors;
    for (int32_t level = 0; level < 5; ++level)
    {
        int32_t const stride = 4 << level;
        double const side = 32 << level;
        for (int32_t y = 0; y < imageH; y += stride)
        {
            for (int32_t x = 0; x < imageW; x += stride)
            {
                for (double const ratio : {0.5, 1.0, 2.0})
                {
                    double const h = side / std::sqrt(ratio);
                    double const w = side * std::sqrt(ratio);
                    anchors.push_back(Box{(y - h / 2) / (imageH - 1), (x - w / 2) / (imageW - 1),
                        (y + h / 2 - 1) / (imageH - 1), (x + w / 2 - 1) / (imageW - 1)});
                }
            }
        }
    }
    return anchors;
}

inline double clamp01(double v)
{
    return std::min(std::max(v, 0.0), 1.0);
}

//! Matterport's apply_box_deltas_graph with BBOX_STD_DEV (0.1, 0.1, 0.2, 0.2), then clip_boxes_graph to [0, 1].
inline Box refine(Box const& box, float const* delta)
{
    double const h = box.y2 - box.y1;
    double const w = box.x2 - box.x1;
    double const cy = box.y1 + 0.5 * h + delta[0] * 0.1 * h;
    double const cx = box.x1 + 0.5 * w + delta[1] * 0.1 * w;
    double const newH = h * std::exp(delta[2] * 0.2);
    double const newW = w * std::exp(delta[3] * 0.2);
    double const y1 = cy - 0.5 * newH;
    double const x1 = cx - 0.5 * newW;
    return Box{clamp01(y1), clamp01(x1), clamp01(y1 + newH), clamp01(x1 + newW)};
}

//! TLT's decoding in pixels: sizes with "+1", deltas divided by `weights` (GenerateDetection's (10, 10, 5, 5) unless
//! given), log sizes capped at log(1000 / 16), corners clipped to [0, H - 1] x [0, W - 1].
inline Box refinePixels(Box const& box, float const* delta, double imageH, double imageW,
    std::array<double, 4> const& weights = {10, 10, 5, 5})
{
    double const h = box.y2 - box.y1 + 1;
    double const w = box.x2 - box.x1 + 1;
    double const cap = std::log(1000.0 / 16.0);
    double const cy = box.y1 + 0.5 * h + delta[0] / weights[0] * h;
    double const cx = box.x1 + 0.5 * w + delta[1] / weights[1] * w;
    double const newH = h * std::exp(std::min(delta[2] / weights[2], cap));
    double const newW = w * std::exp(std::min(delta[3] / weights[3], cap));
    double const y1 = cy - 0.5 * newH;
    double const x1 = cx - 0.5 * newW;
    auto const clip = [](double v, double high) { return std::min(std::max(v, 0.0), high); };
    return Box{
        clip(y1, imageH - 1), clip(x1, imageW - 1), clip(y1 + newH - 1, imageH - 1), clip(x1 + newW - 1, imageW - 1)};
}

//! The deltas that refine() turns `from` into `to` (both unclipped): the test's way to aim at a chosen box.
inline std::vector<float> deltasFor(Box const& from, Box const& to)
{
    double const h = from.y2 - from.y1;
    double const w = from.x2 - from.x1;
    double const toH = to.y2 - to.y1;
    double const toW = to.x2 - to.x1;
    return {static_cast<float>(((to.y1 + toH / 2) - (from.y1 + h / 2)) / h / 0.1),
        static_cast<float>(((to.x1 + toW / 2) - (from.x1 + w / 2)) / w / 0.1),
        static_cast<float>(std::log(toH / h) / 0.2), static_cast<float>(std::log(toW / w) / 0.2)};
}

inline double iou(Box const& a, Box const& b)
{
    double const h = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
    double const w = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
    if (h <= 0 || w <= 0)
    {
        return 0;
    }
    double const inter = h * w;
    return inter / ((a.y2 - a.y1) * (a.x2 - a.x1) + (b.y2 - b.y1) * (b.x2 - b.x1) - inter);
}

struct Scored
{
    Box box;
    double score;
    int32_t label;
};

//! Greedy NMS over candidates sorted best first (stable), at most `maxKept`.
inline std::vector<Scored> nms(std::vector<Scored> candidates, double threshold, size_t maxKept)
{
    std::stable_sort(
        candidates.begin(), candidates.end(), [](Scored const& a, Scored const& b) { return a.score > b.score; });
    std::vector<Scored> kept;
    for (Scored const& c : candidates)
    {
        if (kept.size() >= maxKept)
        {
            break;
        }
        bool suppressed = false;
        for (Scored const& k : kept)
        {
            suppressed = suppressed || iou(k.box, c.box) > threshold;
        }
        if (!suppressed)
        {
            kept.push_back(c);
        }
    }
    return kept;
}

//! The plain detection pipeline: each ROI's argmax over classes from `firstClass` (background 0 and low scores
//! dropped), refined by `refineFn(roi, delta)`, per-class NMS, the best keepTopK, rows [y1, x1, y2, x2, class, score]
//! with scores <= 0.01 and empty slots as [0, 0, 0, 0, -1, 0].
template <typename Refine>
std::vector<float> detections(std::vector<float> const& deltas, std::vector<float> const& scores,
    std::vector<float> const& rois, int32_t batch, int32_t count, int32_t classes, int32_t keepTopK, double threshold,
    double iouThreshold, int32_t firstClass, Refine&& refineFn)
{
    std::vector<float> out;
    for (int32_t b = 0; b < batch; ++b)
    {
        std::vector<Scored> kept;
        for (int32_t cls = 1; cls < classes; ++cls)
        {
            std::vector<Scored> candidates;
            for (int32_t r = 0; r < count; ++r)
            {
                float const* s = &scores[(size_t(b) * count + r) * classes];
                auto const best = static_cast<int32_t>(std::max_element(s + firstClass, s + classes) - s);
                if (best != cls || s[best] < threshold)
                {
                    continue;
                }
                float const* box = &rois[(size_t(b) * count + r) * 4];
                float const* delta = &deltas[((size_t(b) * count + r) * classes + cls) * 4];
                candidates.push_back(Scored{refineFn(Box{box[0], box[1], box[2], box[3]}, delta), s[best], cls});
            }
            std::vector<Scored> const survivors = nms(candidates, iouThreshold, candidates.size());
            kept.insert(kept.end(), survivors.begin(), survivors.end());
        }
        std::stable_sort(kept.begin(), kept.end(), [](Scored const& x, Scored const& y) { return x.score > y.score; });
        for (int32_t slot = 0; slot < keepTopK; ++slot)
        {
            if (slot < static_cast<int32_t>(kept.size()) && kept[slot].score > 0.01)
            {
                Box const& k = kept[slot].box;
                out.insert(out.end(),
                    {float(k.y1), float(k.x1), float(k.y2), float(k.x2), float(kept[slot].label),
                        float(kept[slot].score)});
            }
            else
            {
                out.insert(out.end(), {0.F, 0.F, 0.F, 0.F, -1.F, 0.F});
            }
        }
    }
    return out;
}

//! Rows [y1, x1, y2, x2] of `slots` slots: the boxes, then zeros.
inline std::vector<float> boxRows(std::vector<Box> const& boxes, size_t slots)
{
    std::vector<float> out(slots * 4, 0.F);
    for (size_t i = 0; i < boxes.size() && i < slots; ++i)
    {
        Box const& b = boxes[i];
        out[i * 4] = static_cast<float>(b.y1);
        out[i * 4 + 1] = static_cast<float>(b.x1);
        out[i * 4 + 2] = static_cast<float>(b.y2);
        out[i * 4 + 3] = static_cast<float>(b.x2);
    }
    return out;
}

inline std::vector<float> uniform(size_t count, float low, float high, uint32_t seed)
{
    std::mt19937 generator(seed);
    std::uniform_real_distribution<float> values(low, high);
    std::vector<float> out(count);
    for (float& v : out)
    {
        v = values(generator);
    }
    return out;
}

//! Boxes [y1, x1, y2, x2] inside [0, extent] with sides in [0.05, 0.35] * extent (extent 1: normalized).
inline std::vector<float> randomBoxes(size_t count, uint32_t seed, float extent = 1.F)
{
    std::vector<float> const u = uniform(count * 4, 0.F, 1.F, seed);
    std::vector<float> boxes(count * 4);
    for (size_t i = 0; i < count; ++i)
    {
        float const h = (0.05F + 0.3F * u[i * 4 + 2]) * extent;
        float const w = (0.05F + 0.3F * u[i * 4 + 3]) * extent;
        boxes[i * 4] = u[i * 4] * (extent - h);
        boxes[i * 4 + 1] = u[i * 4 + 1] * (extent - w);
        boxes[i * 4 + 2] = boxes[i * 4] + h;
        boxes[i * 4 + 3] = boxes[i * 4 + 1] + w;
    }
    return boxes;
}

} // namespace kiln::test::mrcnn_reference
