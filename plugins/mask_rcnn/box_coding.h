// The box arithmetic of NVIDIA's Mask R-CNN plugins (ProposalLayer_TRT, DetectionLayer_TRT,
// MultilevelProposeROI_TRT, GenerateDetection_TRT), written once for the host kernels and the CUDA kernels: boxes
// are [y1, x1, y2, x2]; deltas are [dy, dx, log(dh), log(dw)].
#pragma once

#include "device_common/host_device.h"

#include <cmath>
#include <cstdint>

namespace kiln::plugins::mrcnn
{

struct YxBox
{
    float y1;
    float x1;
    float y2;
    float x2;
};

KILN_HOST_DEVICE inline float clampTo(float value, float low, float high)
{
    return fmaxf(fminf(value, high), low);
}

//! Matterport's Mask R-CNN decoding in normalized coordinates (ProposalLayer, DetectionLayer): the deltas scaled by
//! the standard deviations (0.1, 0.1, 0.2, 0.2), applied to the reference box's centre and size (no "+1"), and the
//! result clipped to [0, 1].
KILN_HOST_DEVICE inline YxBox applyNormalizedDelta(YxBox const& reference, float const* delta)
{
    float const h = reference.y2 - reference.y1;
    float const w = reference.x2 - reference.x1;
    float const cy = (reference.y1 + reference.y2) / 2.F + delta[0] * 0.1F * h;
    float const cx = (reference.x1 + reference.x2) / 2.F + delta[1] * 0.1F * w;
    float const newH = h * expf(delta[2] * 0.2F);
    float const newW = w * expf(delta[3] * 0.2F);
    float const y1 = cy - 0.5F * newH;
    float const x1 = cx - 0.5F * newW;
    return YxBox{
        clampTo(y1, 0.F, 1.F), clampTo(x1, 0.F, 1.F), clampTo(y1 + newH, 0.F, 1.F), clampTo(x1 + newW, 0.F, 1.F)};
}

//! TLT/TAO Mask R-CNN decoding in pixels (MultilevelProposeROI, GenerateDetection): sizes count the end pixel
//! ("+1"), the deltas are divided by `weights` (dy, dx, dh, dw), log sizes are capped at log(1000 / 16), and the
//! corners are clipped to [0, H - 1] x [0, W - 1].
KILN_HOST_DEVICE inline YxBox applyPixelDelta(
    YxBox const& reference, float const* delta, float const* weights, float imageH, float imageW)
{
    float const h = reference.y2 - reference.y1 + 1.F;
    float const w = reference.x2 - reference.x1 + 1.F;
    float const cy = reference.y1 + 0.5F * h + delta[0] / weights[0] * h;
    float const cx = reference.x1 + 0.5F * w + delta[1] / weights[1] * w;
    float const logCap = logf(1000.F / 16.F);
    float const newH = expf(fminf(delta[2] / weights[2], logCap)) * h;
    float const newW = expf(fminf(delta[3] / weights[3], logCap)) * w;
    float const y1 = cy - 0.5F * newH;
    float const x1 = cx - 0.5F * newW;
    return YxBox{clampTo(y1, 0.F, imageH - 1.F), clampTo(x1, 0.F, imageW - 1.F),
        clampTo(y1 + newH - 1.F, 0.F, imageH - 1.F), clampTo(x1 + newW - 1.F, 0.F, imageW - 1.F)};
}

//! How DetectionLayer (normalized) and GenerateDetection (pixels, TLT's weights 10, 10, 5, 5) refine an ROI.
struct RoiRefinement
{
    bool pixel{false};
    float imageH{0.F};
    float imageW{0.F};

    KILN_HOST_DEVICE YxBox apply(YxBox const& roi, float const* delta) const
    {
        float const weights[4] = {10.F, 10.F, 5.F, 5.F};
        return pixel ? applyPixelDelta(roi, delta, weights, imageH, imageW) : applyNormalizedDelta(roi, delta);
    }
};

//! The overlap the four plugins' NMS uses: plain areas (no "+1"); boxes that do not overlap give 0, and so do
//! boxes whose union is empty.
KILN_HOST_DEVICE inline float boxIou(YxBox const& a, YxBox const& b)
{
    float const h = fminf(a.y2, b.y2) - fmaxf(a.y1, b.y1);
    float const w = fminf(a.x2, b.x2) - fmaxf(a.x1, b.x1);
    if (h < 0.F || w < 0.F)
    {
        return 0.F;
    }
    float const inter = h * w;
    float const united = (a.y2 - a.y1) * (a.x2 - a.x1) + (b.y2 - b.y1) * (b.x2 - b.x1) - inter;
    return united > 0.F ? inter / united : 0.F;
}

//! ProposalLayer's anchors: Mask R-CNN's (matterport) feature pyramid P2-P6 of strides 4-64 with square anchor
//! sides 32-512 pixels and ratios (width / height) 0.5, 1, 2, one set per feature cell, centred on the cell's top
//! left pixel, normalized by (H - 1, W - 1). Index order: level, row, column, ratio.
struct PyramidAnchors
{
    static constexpr int32_t kLevels = 5;
    static constexpr int32_t kRatios = 3;
    int32_t imageH{1024};
    int32_t imageW{1024};

    KILN_HOST_DEVICE static int32_t strideOf(int32_t level)
    {
        return 4 << level;
    }
    KILN_HOST_DEVICE int32_t rowsOf(int32_t level) const
    {
        return (imageH + strideOf(level) - 1) / strideOf(level);
    }
    KILN_HOST_DEVICE int32_t columnsOf(int32_t level) const
    {
        return (imageW + strideOf(level) - 1) / strideOf(level);
    }
    KILN_HOST_DEVICE int64_t count() const
    {
        int64_t total = 0;
        for (int32_t level = 0; level < kLevels; ++level)
        {
            total += int64_t{rowsOf(level)} * columnsOf(level) * kRatios;
        }
        return total;
    }
    KILN_HOST_DEVICE YxBox anchor(int64_t index) const
    {
        int32_t level = 0;
        for (; level < kLevels - 1; ++level)
        {
            int64_t const onLevel = int64_t{rowsOf(level)} * columnsOf(level) * kRatios;
            if (index < onLevel)
            {
                break;
            }
            index -= onLevel;
        }
        auto const ratioIndex = static_cast<int32_t>(index % kRatios);
        int64_t const cell = index / kRatios;
        int32_t const stride = strideOf(level);
        auto const y = static_cast<float>((cell / columnsOf(level)) * stride);
        auto const x = static_cast<float>((cell % columnsOf(level)) * stride);
        float const ratio = ratioIndex == 0 ? 0.5F : (ratioIndex == 1 ? 1.F : 2.F);
        float const side = static_cast<float>(32 << level);
        float const h = side / sqrtf(ratio);
        float const w = side * sqrtf(ratio);
        float const cy = static_cast<float>(imageH - 1);
        float const cx = static_cast<float>(imageW - 1);
        return YxBox{(y - h / 2.F) / cy, (x - w / 2.F) / cx, (y + h / 2.F - 1.F) / cy, (x + w / 2.F - 1.F) / cx};
    }
};

//! MultilevelProposeROI's anchors (TLT/TAO Mask R-CNN), in pixels: levels P2-P6 of strides 4-64 and square sides
//! 8 * stride (32-512); cell centres at stride / 2 + k * stride along each axis, for the centres inside the image;
//! per cell three (width, height) factors of the side: (1, 1), (1.4, 0.7), (0.7, 1.4). The anchor is
//! [cy - h/2, cx - w/2, cy + h/2, cx + w/2] (no "-1", as TLT's). Index order within a level: row, column, factor.
struct TltPyramidAnchors
{
    static constexpr int32_t kLevels = 5;
    static constexpr int32_t kRatios = 3;
    int32_t imageH{832};
    int32_t imageW{1344};

    KILN_HOST_DEVICE static int32_t strideOf(int32_t level)
    {
        return 4 << level;
    }
    //! The centres stride / 2, stride / 2 + stride, ... below `extent`.
    KILN_HOST_DEVICE static int32_t centresAlong(int32_t extent, int32_t stride)
    {
        int32_t const first = stride / 2;
        return extent > first ? (extent - first + stride - 1) / stride : 0;
    }
    KILN_HOST_DEVICE int64_t countOf(int32_t level) const
    {
        int32_t const stride = strideOf(level);
        return int64_t{centresAlong(imageH, stride)} * centresAlong(imageW, stride) * kRatios;
    }
    KILN_HOST_DEVICE YxBox anchor(int32_t level, int64_t index) const
    {
        int32_t const stride = strideOf(level);
        int64_t const cell = index / kRatios;
        auto const factor = static_cast<int32_t>(index % kRatios);
        int64_t const columns = centresAlong(imageW, stride);
        auto const cy = static_cast<float>(stride / 2 + (cell / columns) * stride);
        auto const cx = static_cast<float>(stride / 2 + (cell % columns) * stride);
        auto const side = static_cast<float>(8 * stride);
        float const h = side * (factor == 0 ? 1.F : (factor == 1 ? 0.7F : 1.4F));
        float const w = side * (factor == 0 ? 1.F : (factor == 1 ? 1.4F : 0.7F));
        return YxBox{cy - h / 2.F, cx - w / 2.F, cy + h / 2.F, cx + w / 2.F};
    }
    //! The anchor refined by its RPN deltas: TLT's pixel decoding with unit weights, clipped to the image.
    KILN_HOST_DEVICE YxBox proposal(int32_t level, int64_t index, float const* delta) const
    {
        float const unitWeights[4] = {1.F, 1.F, 1.F, 1.F};
        return applyPixelDelta(
            anchor(level, index), delta, unitWeights, static_cast<float>(imageH), static_cast<float>(imageW));
    }
};

//! ProposalLayer, DetectionLayer and GenerateDetection write kept boxes of this score or less as padding, as
//! NVIDIA's do (MultilevelProposeROI does not).
constexpr float kMinOutputScore = 0.01F;

} // namespace kiln::plugins::mrcnn
