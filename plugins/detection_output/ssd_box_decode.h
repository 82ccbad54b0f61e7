// SSD's box decoding (NVIDIA's decodeBBoxes), written once for the host kernel and the CUDA kernel. Everything is
// computed in float, whatever the tensors' type.
#pragma once

#include "device_common/host_device.h"
#include "detection_output_params.h"

#include <cmath>
#include <cstdint>

namespace kiln::plugins
{

//! The box [xmin, ymin, xmax, ymax] that `loc` encodes relative to `prior` [xmin, ymin, xmax, ymax] with
//! `variance` [4], by `code` (README.md lists the formulas). An unknown code decodes to the prior itself (check
//! refuses such fields before a run).
inline KILN_HOST_DEVICE void decodeSsdBox(
    SsdCode code, bool varianceEncodedInTarget, float const* prior, float const* variance, float const* loc, float* box)
{
    float const priorWidth = prior[2] - prior[0];
    float const priorHeight = prior[3] - prior[1];
    float const priorCenterX = (prior[0] + prior[2]) / 2.F;
    float const priorCenterY = (prior[1] + prior[3]) / 2.F;
    // Scale of each coordinate's offset: 1 when the variance is already in the regression target.
    float scale[4];
    for (int32_t i = 0; i < 4; ++i)
    {
        scale[i] = varianceEncodedInTarget ? 1.F : variance[i];
    }
    switch (code)
    {
    case SsdCode::kCORNER:
        for (int32_t i = 0; i < 4; ++i)
        {
            box[i] = prior[i] + loc[i] * scale[i];
        }
        return;
    case SsdCode::kCORNER_SIZE:
        for (int32_t i = 0; i < 4; ++i)
        {
            box[i] = prior[i] + loc[i] * scale[i] * (i % 2 == 0 ? priorWidth : priorHeight);
        }
        return;
    case SsdCode::kCENTER_SIZE:
    case SsdCode::kTF_CENTER:
    {
        // TF_CENTER's targets are ordered [y, x, h, w] and always carry the variances; NVIDIA's kernel applies
        // variance[0] and [2] to x and w, variance[1] and [3] to y and h, for both orders.
        bool const tf = code == SsdCode::kTF_CENTER;
        float const dx = tf ? loc[1] * variance[0] : loc[0] * scale[0];
        float const dy = tf ? loc[0] * variance[1] : loc[1] * scale[1];
        float const dw = tf ? loc[3] * variance[2] : loc[2] * scale[2];
        float const dh = tf ? loc[2] * variance[3] : loc[3] * scale[3];
        float const centerX = dx * priorWidth + priorCenterX;
        float const centerY = dy * priorHeight + priorCenterY;
        float const halfWidth = expf(dw) * priorWidth / 2.F;
        float const halfHeight = expf(dh) * priorHeight / 2.F;
        box[0] = centerX - halfWidth;
        box[1] = centerY - halfHeight;
        box[2] = centerX + halfWidth;
        box[3] = centerY + halfHeight;
        return;
    }
    }
    for (int32_t i = 0; i < 4; ++i)
    {
        box[i] = prior[i];
    }
}

//! Where an SSD run's tensors are: shapes without types.
struct SsdShape
{
    int32_t batch{0};
    int32_t priors{0}; //!< per image
    int32_t classes{0};
    int32_t locClasses{1};      //!< 1 with shareLocation, else classes
    bool priorsPerImage{false}; //!< prior data [B, 2, P * 4] rather than the first image's for all
};

//! Offset of image `image`'s prior data (the priors, then the variances at + priors * 4).
inline KILN_HOST_DEVICE int64_t ssdPriorOffset(SsdShape const& shape, int64_t image)
{
    return shape.priorsPerImage ? image * 2 * shape.priors * 4 : 0;
}

} // namespace kiln::plugins
