// Feature maps for the FPN ROI align tests: values ((7y + 3x + 5c + 11 level) mod 17) / 4, exact in FP32 and FP16,
// the formula the pasted torchvision references were computed from.
#pragma once

#include "host_tensor.h"

#include <vector>

namespace kiln::test::fpn_maps
{

inline HostTensor featureMap(
    int32_t level, int32_t channels, int32_t h, int32_t w, nvinfer1::DataType type = nvinfer1::DataType::kFLOAT)
{
    std::vector<float> values;
    for (int32_t c = 0; c < channels; ++c)
    {
        for (int32_t y = 0; y < h; ++y)
        {
            for (int32_t x = 0; x < w; ++x)
            {
                values.push_back(static_cast<float>((y * 7 + x * 3 + c * 5 + level * 11) % 17) / 4.F);
            }
        }
    }
    return fromFloats({1, channels, h, w}, values, type);
}

} // namespace kiln::test::fpn_maps
