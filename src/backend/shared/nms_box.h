// When one box suppresses another in INMSLayer, shared by the CPU reference and the CUDA kernel so that both select
// the same boxes. The arithmetic is ONNX's reference implementation's, in float, each operation rounded once: the
// device path uses the _rn intrinsics, which the compiler never contracts into fused multiply-adds, and the host
// path plain operators (x86-64's default code generation has no FMA either).
#pragma once

#include "core/data_type.h"

namespace kiln::nms_detail
{

//! A box as its extent along two axes. Corner pairs are ordered per axis; a centre and sizes give centre -/+ half the
//! size, so a negative size gives an empty box, as in ONNX's reference.
struct Box
{
    float lowX;
    float lowY;
    float highX;
    float highY;
};

KILN_HOST_DEVICE inline float multiply(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}

KILN_HOST_DEVICE inline float add(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}

KILN_HOST_DEVICE inline float subtract(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fsub_rn(a, b);
#else
    return a - b;
#endif
}

KILN_HOST_DEVICE inline float divide(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fdiv_rn(a, b);
#else
    return a / b;
#endif
}

//! Python's max and min, which ONNX's reference calls: the first argument unless the second is strictly beyond it.
KILN_HOST_DEVICE inline float larger(float a, float b)
{
    return b > a ? b : a;
}
KILN_HOST_DEVICE inline float smaller(float a, float b)
{
    return b < a ? b : a;
}

//! The box of coordinates (c0, c1, c2, c3): corner pairs (x1, y1, x2, y2) (or (y1, x1, y2, x2), ONNX's order: the
//! overlap is the same with the axes swapped), or centre and sizes (x, y, width, height).
KILN_HOST_DEVICE inline Box makeBox(float c0, float c1, float c2, float c3, bool centerSizes)
{
    if (centerSizes)
    {
        float const halfWidth = multiply(c2, 0.5F);
        float const halfHeight = multiply(c3, 0.5F);
        return Box{subtract(c0, halfWidth), subtract(c1, halfHeight), add(c0, halfWidth), add(c1, halfHeight)};
    }
    // ONNX's max_min: the pair as is unless the first is at least the second.
    bool const swapX = c0 >= c2;
    bool const swapY = c1 >= c3;
    return Box{swapX ? c2 : c0, swapY ? c3 : c1, swapX ? c0 : c2, swapY ? c1 : c3};
}

//! Whether `selected` suppresses `candidate`: they overlap, both have a positive area, and their intersection over
//! union exceeds `iouThreshold`. Boxes that do not overlap never suppress each other, whatever the threshold.
KILN_HOST_DEVICE inline bool suppresses(Box const& selected, Box const& candidate, float iouThreshold)
{
    float const lowX = larger(candidate.lowX, selected.lowX);
    float const highX = smaller(candidate.highX, selected.highX);
    if (highX <= lowX)
    {
        return false;
    }
    float const lowY = larger(candidate.lowY, selected.lowY);
    float const highY = smaller(candidate.highY, selected.highY);
    if (highY <= lowY)
    {
        return false;
    }
    float const intersection = multiply(subtract(highX, lowX), subtract(highY, lowY));
    float const candidateArea
        = multiply(subtract(candidate.highX, candidate.lowX), subtract(candidate.highY, candidate.lowY));
    float const selectedArea
        = multiply(subtract(selected.highX, selected.lowX), subtract(selected.highY, selected.lowY));
    float const unionArea = subtract(add(candidateArea, selectedArea), intersection);
    if (intersection <= 0.0F || candidateArea <= 0.0F || selectedArea <= 0.0F || unionArea <= 0.0F)
    {
        return false;
    }
    return divide(intersection, unionArea) > iouThreshold;
}

} // namespace kiln::nms_detail
