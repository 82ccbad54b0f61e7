// Where the elements of a 4-D tensor [N, C, H, W] lie in either format that the fast path's copying kernels take
// (concatenation.cpp, gather.cpp): kLINEAR, each channel's positions together, or kHWC, each position's channels.
#pragma once

#include "core/tensor_view.h"

#include <cstdint>

namespace kiln::cpu::fast
{

//! [images, channels, positions] in a tensor's format.
struct ImageLayout
{
    int64_t images{0};
    int64_t channels{0};
    int64_t positions{0}; //!< H * W
    bool channelsLast{false};

    //! The layout of a tensor of `shape` ([N, C, H, W]) stored in `format` (kLINEAR or kHWC).
    static ImageLayout of(Shape const& shape, TensorFormat format)
    {
        return ImageLayout{shape[0], shape[1], shape[2] * shape[3], format == TensorFormat::kHWC};
    }

    int64_t offset(int64_t image, int64_t channel, int64_t position) const
    {
        return channelsLast ? (image * positions + position) * channels + channel
                            : (image * channels + channel) * positions + position;
    }
};

} // namespace kiln::cpu::fast
