// The math PyramidROIAlign_TRT and MultilevelCropAndResize_TRT share, on the host and in CUDA kernels alike: which
// FPN level an ROI reads, where its samples lie on that level, and their bilinear average. Both plugins compute
// exactly these functions, so the CPU and CUDA results differ only by float rounding order.
#pragma once

#include "device_common/host_device.h"

#include <cmath>
#include <cstdint>

namespace kiln::plugins::fpn
{

//! The most FPN levels a plugin of this family reads (MultilevelCropAndResize: P2-P6; PyramidROIAlign: P2-P5).
constexpr int32_t kMaxLevels = 5;

//! How one plugin maps an ROI to a level and a sampling grid.
struct RoiAlignRule
{
    bool multilevel{false}; //!< MultilevelCropAndResize's rule, otherwise PyramidROIAlign's
    int32_t levels{4};      //!< feature maps, P2 first
    int32_t pooled{7};      //!< output height and width
    float imageH{1024.F};   //!< the network's input image, for absolute ROIs
    float imageW{1024.F};
    float firstThreshold{0.F}; //!< ROI area above which P3 (not P2) is read; each next level needs 4 times more
    // PyramidROIAlign only:
    int32_t transform{2};     //!< roi_coords_transform: -1 legacy corners, 0 none, 1 output half pixel, 2 half pixel
    bool absolute{true};      //!< ROIs in image pixels (else normalized to [0, 1])
    bool swap{false};         //!< ROIs as [y1, x1, y2, x2] (else [x1, y1, x2, y2])
    bool plusOne{false};      //!< the area adds one image pixel to each side
    int32_t samplingRatio{0}; //!< samples per bin and axis; 0: ceil(bin extent)
};

//! Where one ROI samples: on level `level`, bin (py, px)'s samples lie at start + delta * (p + (i + offset) / count).
struct RoiGrid
{
    bool valid{false}; //!< false: the ROI is skipped and its output is zero (MultilevelCropAndResize's invalid boxes)
    int32_t level{0};
    float yStart{0.F};
    float xStart{0.F};
    float yDelta{0.F};
    float xDelta{0.F};
    float offset{0.F};
    int32_t countY{1};
    int32_t countX{1};
};

KILN_HOST_DEVICE inline float clampTo(float v, float lo, float hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

//! The level of an ROI of area `area`: one more for each threshold (first, 4 first, 16 first...) it exceeds.
KILN_HOST_DEVICE inline int32_t levelOf(float area, float firstThreshold, int32_t levels)
{
    int32_t level = 0;
    float threshold = firstThreshold;
    for (int32_t next = 1; next < levels; ++next)
    {
        if (area > threshold)
        {
            level = next;
        }
        threshold *= 4.F;
    }
    return level;
}

//! PyramidROIAlign: the ROI clamped to the image and normalized, its level by normalized area, then the sampling grid
//! of roi_coords_transform on that level's map (`dims`: every level's height and width, P2 first).
KILN_HOST_DEVICE inline RoiGrid pyramidGrid(float const* roi, RoiAlignRule const& rule, int32_t const* dims)
{
    float const a = roi[rule.swap ? 1 : 0]; // x1 (the coordinates' min and max decide, not their order)
    float const b = roi[rule.swap ? 0 : 1]; // y1
    float const c = roi[rule.swap ? 3 : 2];
    float const d = roi[rule.swap ? 2 : 3];
    float x1 = fminf(a, c);
    float x2 = fmaxf(a, c);
    float y1 = fminf(b, d);
    float y2 = fmaxf(b, d);
    if (rule.absolute)
    {
        y1 = clampTo(y1, 0.F, rule.imageH) / rule.imageH;
        y2 = clampTo(y2, 0.F, rule.imageH) / rule.imageH;
        x1 = clampTo(x1, 0.F, rule.imageW) / rule.imageW;
        x2 = clampTo(x2, 0.F, rule.imageW) / rule.imageW;
    }
    else
    {
        y1 = clampTo(y1, 0.F, 1.F);
        y2 = clampTo(y2, 0.F, 1.F);
        x1 = clampTo(x1, 0.F, 1.F);
        x2 = clampTo(x2, 0.F, 1.F);
    }
    float const pad = rule.plusOne ? 1.F : 0.F;
    float const area = (y2 - y1 + pad / rule.imageH) * (x2 - x1 + pad / rule.imageW);
    RoiGrid grid;
    grid.valid = true;
    grid.level = levelOf(area, rule.firstThreshold, rule.levels);
    auto const h = static_cast<float>(dims[2 * grid.level]);
    auto const w = static_cast<float>(dims[2 * grid.level + 1]);
    auto const pooled = static_cast<float>(rule.pooled);
    float yEnd = 0.F;
    float xEnd = 0.F;
    if (rule.transform == -1)
    {
        // The original plugin: corners map to the first and last pixel centres (align_corners). One pooled cell has
        // no spacing and samples the ROI's first corner (NVIDIA's divides by zero there).
        grid.yStart = y1 * (h - 1.F);
        grid.xStart = x1 * (w - 1.F);
        yEnd = y2 * (h - 1.F);
        xEnd = x2 * (w - 1.F);
        grid.yDelta = rule.pooled > 1 ? (yEnd - grid.yStart) / (pooled - 1.F) : 0.F;
        grid.xDelta = rule.pooled > 1 ? (xEnd - grid.xStart) / (pooled - 1.F) : 0.F;
        grid.offset = 0.F;
    }
    else
    {
        float const inputOffset = rule.transform == 2 ? 0.5F : 0.F;
        grid.yStart = y1 * h - inputOffset;
        grid.xStart = x1 * w - inputOffset;
        yEnd = y2 * h - inputOffset;
        xEnd = x2 * w - inputOffset;
        grid.yDelta = (yEnd - grid.yStart) / pooled;
        grid.xDelta = (xEnd - grid.xStart) / pooled;
        grid.offset = rule.transform >= 1 ? 0.5F : 0.F;
    }
    // The adaptive count divides the ROI's extent on the level by the pooled size in every mode, as NVIDIA's does.
    grid.countY = rule.samplingRatio > 0 ? rule.samplingRatio
                                         : static_cast<int32_t>(fmaxf(1.F, ceilf((yEnd - grid.yStart) / pooled)));
    grid.countX = rule.samplingRatio > 0 ? rule.samplingRatio
                                         : static_cast<int32_t>(fmaxf(1.F, ceilf((xEnd - grid.xStart) / pooled)));
    return grid;
}

//! MultilevelCropAndResize: an absolute [y1, x1, y2, x2] ROI inside the image with positive extent reads the level
//! its pixel area selects, where level l (P2 = 0) has stride 2^(l + 2); one sample at each bin's centre.
KILN_HOST_DEVICE inline RoiGrid multilevelGrid(float const* roi, RoiAlignRule const& rule)
{
    float const y1 = roi[0];
    float const x1 = roi[1];
    float const y2 = roi[2];
    float const x2 = roi[3];
    RoiGrid grid;
    grid.valid = 0.F <= y1 && y1 <= rule.imageH && 0.F <= x1 && x1 <= rule.imageW && 0.F <= y2 && y2 <= rule.imageH
        && 0.F <= x2 && x2 <= rule.imageW && y1 < y2 && x1 < x2;
    if (!grid.valid)
    {
        return grid;
    }
    grid.level = levelOf((y2 - y1) * (x2 - x1), rule.firstThreshold, rule.levels);
    float const stride = static_cast<float>(4 << grid.level);
    auto const pooled = static_cast<float>(rule.pooled);
    grid.yStart = y1 / stride;
    grid.xStart = x1 / stride;
    grid.yDelta = (y2 / stride - grid.yStart) / pooled;
    grid.xDelta = (x2 / stride - grid.xStart) / pooled;
    grid.offset = 0.5F;
    return grid;
}

//! Bilinear interpolation on an h x w plane at (y, x), first clamped into [0, h - 1] x [0, w - 1].
template <typename T>
KILN_HOST_DEVICE inline float clampedBilinear(T const* plane, int32_t h, int32_t w, float y, float x)
{
    y = clampTo(y, 0.F, static_cast<float>(h - 1));
    x = clampTo(x, 0.F, static_cast<float>(w - 1));
    auto const y0 = static_cast<int32_t>(y);
    auto const x0 = static_cast<int32_t>(x);
    float const ly = y - static_cast<float>(y0);
    float const lx = x - static_cast<float>(x0);
    int32_t const y1 = ly > 0.F ? y0 + 1 : y0;
    int32_t const x1 = lx > 0.F ? x0 + 1 : x0;
    auto at = [&](int32_t yy, int32_t xx) { return static_cast<float>(plane[static_cast<int64_t>(yy) * w + xx]); };
    float const top = at(y0, x0) * (1.F - lx) + at(y0, x1) * lx;
    float const bottom = at(y1, x0) * (1.F - lx) + at(y1, x1) * lx;
    return top * (1.F - ly) + bottom * ly;
}

//! Output bin (py, px) of `grid` on one h x w plane: the mean of its countY x countX samples.
template <typename T>
KILN_HOST_DEVICE inline float binValue(
    T const* plane, int32_t h, int32_t w, RoiGrid const& grid, int32_t py, int32_t px)
{
    float sum = 0.F;
    for (int32_t iy = 0; iy < grid.countY; ++iy)
    {
        float const y = grid.yStart + grid.yDelta * static_cast<float>(py)
            + grid.yDelta * (static_cast<float>(iy) + grid.offset) / static_cast<float>(grid.countY);
        for (int32_t ix = 0; ix < grid.countX; ++ix)
        {
            float const x = grid.xStart + grid.xDelta * static_cast<float>(px)
                + grid.xDelta * (static_cast<float>(ix) + grid.offset) / static_cast<float>(grid.countX);
            sum += clampedBilinear(plane, h, w, y, x);
        }
    }
    return sum / static_cast<float>(grid.countY * grid.countX);
}

} // namespace kiln::plugins::fpn
