// The CPU backend's reformatter: type and format conversions in host memory, with the CPU reference's reformat,
// into scratch buffers kept between runs. The builder's constant folding converts through it too.
#pragma once

#include "backend/reformatter.h"

#include <cstddef>
#include <vector>

namespace kiln::cpu
{

//! Converts in host memory with the CPU reference's reformat (the stream is ignored).
class HostReformatter final : public backend::Reformatter
{
protected:
    void* scratch(size_t slot, size_t bytes, cudaStream_t stream) override;
    void* scratchOf(size_t slot) override
    {
        return mSlots.at(slot).data();
    }
    void convert(ConstTensorView const& from, TensorView const& to, cudaStream_t stream) override;

private:
    std::vector<std::vector<std::byte>> mSlots; //!< by slot: a layer's inputs, then its outputs
};

} // namespace kiln::cpu
