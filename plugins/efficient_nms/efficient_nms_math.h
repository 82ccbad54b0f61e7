// EfficientNMS's box and score rules, written once for the host kernel and the CUDA kernels (they compile as
// __host__ __device__ under nvcc). Every value is computed in float, whatever the tensors' type.
#pragma once

#include <cmath>
#include <cstdint>

#ifdef __CUDACC__
#define KILN_NMS_HD __host__ __device__
#else
#define KILN_NMS_HD
#endif

namespace kiln::plugins
{

//! The fields both EfficientNMS creators set, in the form the kernels use.
struct EfficientNmsConfig
{
    float scoreThreshold{0.5F};
    float iouThreshold{0.5F};
    int32_t maxOutputBoxes{100}; //!< per image; the ONNX variant's max_output_boxes_per_class
    int32_t backgroundClass{-1};
    bool scoreActivation{false};
    bool classAgnostic{false};
    int32_t boxCoding{0}; //!< 0: corners (y1, x1, y2, x2 or x1, y1, x2, y2), 1: centre and size
};

//! Where a run's tensors come from: shapes read from the input descriptors.
struct EfficientNmsShape
{
    int32_t batch{0};
    int32_t anchors{0};
    int32_t classes{0};
    bool boxPerClass{false};    //!< boxes [B, N, C, 4] rather than one box per anchor
    bool hasAnchors{false};     //!< a third input: the fused box decoder is on
    bool anchorPerImage{false}; //!< anchors [B, N, 4] rather than [1, N, 4]
};

struct NmsBox
{
    float v[4];
};

//! The raw-score threshold: with score_activation, scores are compared before the sigmoid, against the logit of
//! the threshold (so a threshold <= 0 keeps every score), as NVIDIA's plugin does.
KILN_NMS_HD inline float rawScoreThreshold(EfficientNmsConfig const& config)
{
    if (!config.scoreActivation)
    {
        return config.scoreThreshold;
    }
    if (config.scoreThreshold <= 0.F)
    {
        return -INFINITY;
    }
    return logf(config.scoreThreshold / (1.F - config.scoreThreshold));
}

KILN_NMS_HD inline float sigmoidOf(float x)
{
    return 1.F / (1.F + expf(-x));
}

//! Corners with the smaller coordinate of each pair first (coordinates 0/2 and 1/3 are the two axes).
KILN_NMS_HD inline NmsBox ordered(NmsBox b)
{
    NmsBox r = b;
    if (r.v[0] > r.v[2])
    {
        r.v[0] = b.v[2];
        r.v[2] = b.v[0];
    }
    if (r.v[1] > r.v[3])
    {
        r.v[1] = b.v[3];
        r.v[3] = b.v[1];
    }
    return r;
}

//! A centre-size box (c0, c1, s0, s1) as corners.
KILN_NMS_HD inline NmsBox cornersOfCenterSize(NmsBox b)
{
    float const h0 = 0.5F * b.v[2];
    float const h1 = 0.5F * b.v[3];
    return NmsBox{{b.v[0] - h0, b.v[1] - h1, b.v[0] + h0, b.v[1] + h1}};
}

//! The box a candidate stands for, always as corners: the input box, or with anchors the decoded box (corner
//! coding adds the reordered anchor to the reordered delta; centre-size coding scales by the anchor's size and
//! exponentiates the size deltas).
KILN_NMS_HD inline NmsBox decodeBox(NmsBox box, NmsBox const* anchor, int32_t boxCoding)
{
    if (anchor == nullptr)
    {
        return boxCoding == 1 ? cornersOfCenterSize(box) : box;
    }
    if (boxCoding == 1)
    {
        NmsBox const& a = *anchor;
        NmsBox const decoded{
            {box.v[0] * a.v[2] + a.v[0], box.v[1] * a.v[3] + a.v[1], a.v[2] * expf(box.v[2]), a.v[3] * expf(box.v[3])}};
        return cornersOfCenterSize(decoded);
    }
    NmsBox const d = ordered(box);
    NmsBox const a = ordered(*anchor);
    return NmsBox{{d.v[0] + a.v[0], d.v[1] + a.v[1], d.v[2] + a.v[2], d.v[3] + a.v[3]}};
}

KILN_NMS_HD inline float cornerArea(NmsBox const& b)
{
    float const h = b.v[2] - b.v[0];
    float const w = b.v[3] - b.v[1];
    return (h <= 0.F || w <= 0.F) ? 0.F : h * w;
}

//! Intersection over union of two corner boxes, each reordered first; 0 where either area is empty.
KILN_NMS_HD inline float efficientIou(NmsBox const& first, NmsBox const& second)
{
    NmsBox const a = ordered(first);
    NmsBox const b = ordered(second);
    NmsBox const inter{{fmaxf(a.v[0], b.v[0]), fmaxf(a.v[1], b.v[1]), fminf(a.v[2], b.v[2]), fminf(a.v[3], b.v[3])}};
    float const interArea = cornerArea(inter);
    if (interArea <= 0.F)
    {
        return 0.F;
    }
    float const unionArea = cornerArea(a) + cornerArea(b) - interArea;
    return unionArea <= 0.F ? 0.F : interArea / unionArea;
}

//! Whether a kept box suppresses a later candidate: same class (unless class-agnostic) and IoU >= the threshold.
KILN_NMS_HD inline bool efficientSuppresses(EfficientNmsConfig const& config, NmsBox const& kept, int32_t keptClass,
    NmsBox const& candidate, int32_t candidateClass)
{
    return (config.classAgnostic || keptClass == candidateClass)
        && efficientIou(kept, candidate) >= config.iouThreshold;
}

//! Flat offsets into the inputs of element (image, anchor, class).
KILN_NMS_HD inline int64_t boxOffset(EfficientNmsShape const& s, int64_t image, int64_t anchor, int64_t cls)
{
    return s.boxPerClass ? ((image * s.anchors + anchor) * s.classes + cls) * 4 : (image * s.anchors + anchor) * 4;
}
KILN_NMS_HD inline int64_t anchorOffset(EfficientNmsShape const& s, int64_t image, int64_t anchor)
{
    return ((s.anchorPerImage ? image * s.anchors : 0) + anchor) * 4;
}

} // namespace kiln::plugins
