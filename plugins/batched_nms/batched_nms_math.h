// BatchedNMS's overlap rule, written once for the host kernel and the CUDA kernels (__host__ __device__ under
// nvcc), with the run's configuration and shape.
#pragma once

#include "efficient_nms/efficient_nms_math.h" // NmsBox, ordered(), KILN_NMS_HD

#include <cstdint>

namespace kiln::plugins
{

struct BatchedNmsConfig
{
    bool shareLocation{true};
    int32_t backgroundLabelId{-1};
    int32_t topK{0};     //!< candidates per class entering NMS (limited to the number of boxes)
    int32_t keepTopK{0}; //!< detections kept per image
    float scoreThreshold{0.F};
    float iouThreshold{0.F};
    bool isNormalized{true};
    bool clipBoxes{true};
    bool caffeSemantics{true};
};

struct BatchedNmsShape
{
    int32_t batch{0};
    int32_t boxes{0};   //!< N
    int32_t classes{0}; //!< C
};

//! NVIDIA's BatchedNMS overlap: boxes reordered min-first; disjoint boxes give 0; unnormalized boxes add 1 to
//! each box's sides (areas), and with Caffe semantics to the intersection's sides too.
KILN_NMS_HD inline float batchedIou(NmsBox const& first, NmsBox const& second, bool normalized, bool caffe)
{
    NmsBox const a = ordered(first);
    NmsBox const b = ordered(second);
    if (b.v[0] > a.v[2] || b.v[2] < a.v[0] || b.v[1] > a.v[3] || b.v[3] < a.v[1])
    {
        return 0.F;
    }
    float const extra = (!normalized && caffe) ? 1.F : 0.F;
    float const interW = fminf(a.v[2], b.v[2]) - fmaxf(a.v[0], b.v[0]) + extra;
    float const interH = fminf(a.v[3], b.v[3]) - fmaxf(a.v[1], b.v[1]) + extra;
    if (!(interW > 0.F && interH > 0.F))
    {
        return 0.F;
    }
    float const side = normalized ? 0.F : 1.F;
    float const areaA = (a.v[2] - a.v[0] + side) * (a.v[3] - a.v[1] + side);
    float const areaB = (b.v[2] - b.v[0] + side) * (b.v[3] - b.v[1] + side);
    float const inter = interW * interH;
    return inter / (areaA + areaB - inter);
}

//! The box of (image, box, class) in boxes [B, N, 1 or C, 4].
KILN_NMS_HD inline int64_t batchedBoxOffset(
    BatchedNmsConfig const& config, BatchedNmsShape const& shape, int64_t image, int64_t box, int64_t cls)
{
    return config.shareLocation ? (image * shape.boxes + box) * 4
                                : ((image * shape.boxes + box) * shape.classes + cls) * 4;
}

KILN_NMS_HD inline float clipUnit(float v)
{
    return fminf(fmaxf(v, 0.F), 1.F);
}

} // namespace kiln::plugins
