// ROIAlign's arithmetic for one output element, shared by the host kernel and the CUDA kernel (so the two backends
// cannot drift apart), as ONNX RoiAlign defines it and ONNX Runtime and NVIDIA's ROIAlign_TRT compute it.
#pragma once

#include "device_common/host_device.h"

#include <cmath>
#include <cstdint>

namespace kiln::plugins::roi_align
{

//! The fields the arithmetic needs, and the sizes of one run.
struct Geometry
{
    int32_t channels;
    int32_t height;
    int32_t width;
    int32_t outputHeight;
    int32_t outputWidth;
    int32_t samplingRatio; //!< 0: adaptive, ceil(roi size / output size) samples per bin and axis
    float spatialScale;
    bool halfPixel; //!< coordinate_transformation_mode 1: shift the box by -0.5 pixel
    bool average;   //!< mode 1: average the samples of a bin; 0: their maximum
};

//! The four weighted corners of the bilinear sample at (y, x) on one H x W plane. A sample more than one pixel
//! outside the plane contributes nothing; one within a pixel of the edge is clamped onto it (ONNX's rule).
struct Corners
{
    float values[4];
};

template <typename Load>
KILN_HOST_DEVICE Corners weightedCorners(Load const& load, int32_t height, int32_t width, float y, float x)
{
    Corners corners{{0.F, 0.F, 0.F, 0.F}};
    if (y < -1.F || y > static_cast<float>(height) || x < -1.F || x > static_cast<float>(width))
    {
        return corners;
    }
    y = y <= 0.F ? 0.F : y;
    x = x <= 0.F ? 0.F : x;
    auto yLow = static_cast<int32_t>(y);
    auto xLow = static_cast<int32_t>(x);
    int32_t yHigh = yLow + 1;
    int32_t xHigh = xLow + 1;
    if (yLow >= height - 1)
    {
        yLow = yHigh = height - 1;
        y = static_cast<float>(yLow);
    }
    if (xLow >= width - 1)
    {
        xLow = xHigh = width - 1;
        x = static_cast<float>(xLow);
    }
    float const ly = y - static_cast<float>(yLow);
    float const lx = x - static_cast<float>(xLow);
    float const hy = 1.F - ly;
    float const hx = 1.F - lx;
    corners.values[0] = hy * hx * load(yLow * width + xLow);
    corners.values[1] = hy * lx * load(yLow * width + xHigh);
    corners.values[2] = ly * hx * load(yHigh * width + xLow);
    corners.values[3] = ly * lx * load(yHigh * width + xHigh);
    return corners;
}

//! Output element (ph, pw) of the ROI `box` (x1, y1, x2, y2 in input coordinates) on the plane `load` reads.
//! Max mode keeps the largest weighted corner over all samples: ONNX Runtime's and NVIDIA's reading of the spec.
template <typename Load>
KILN_HOST_DEVICE float pooledValue(Geometry const& g, float const box[4], Load const& load, int32_t ph, int32_t pw)
{
    float const offset = g.halfPixel ? 0.5F : 0.F;
    float const startX = box[0] * g.spatialScale - offset;
    float const startY = box[1] * g.spatialScale - offset;
    float roiWidth = box[2] * g.spatialScale - offset - startX;
    float roiHeight = box[3] * g.spatialScale - offset - startY;
    if (!g.halfPixel)
    {
        // output_half_pixel forces malformed boxes to at least one pixel
        roiWidth = roiWidth > 1.F ? roiWidth : 1.F;
        roiHeight = roiHeight > 1.F ? roiHeight : 1.F;
    }
    float const binHeight = roiHeight / static_cast<float>(g.outputHeight);
    float const binWidth = roiWidth / static_cast<float>(g.outputWidth);
    int32_t const gridH = g.samplingRatio > 0 ? g.samplingRatio : static_cast<int32_t>(ceilf(binHeight));
    int32_t const gridW = g.samplingRatio > 0 ? g.samplingRatio : static_cast<int32_t>(ceilf(binWidth));

    double sum = 0.0; // many samples per bin when boxes are large and sampling is adaptive
    float best = 0.F;
    bool anySample = false;
    for (int32_t iy = 0; iy < gridH; ++iy)
    {
        float const y = startY + static_cast<float>(ph) * binHeight
            + (static_cast<float>(iy) + 0.5F) * binHeight / static_cast<float>(gridH);
        for (int32_t ix = 0; ix < gridW; ++ix)
        {
            float const x = startX + static_cast<float>(pw) * binWidth
                + (static_cast<float>(ix) + 0.5F) * binWidth / static_cast<float>(gridW);
            Corners const c = weightedCorners(load, g.height, g.width, y, x);
            if (g.average)
            {
                sum += static_cast<double>(c.values[0] + c.values[1] + c.values[2] + c.values[3]);
                continue;
            }
            for (float const value : c.values)
            {
                best = !anySample || value > best ? value : best;
                anySample = true;
            }
        }
    }
    if (!g.average)
    {
        return best;
    }
    int32_t const count = gridH * gridW > 1 ? gridH * gridW : 1;
    return static_cast<float>(sum / static_cast<double>(count));
}

} // namespace kiln::plugins::roi_align
