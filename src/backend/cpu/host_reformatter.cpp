#include "backend/cpu/host_reformatter.h"

#include "backend/cpu/kernels/tensor/reformat.h"

namespace kiln::cpu
{

void* HostReformatter::scratch(size_t slot, size_t bytes, cudaStream_t)
{
    if (slot >= mSlots.size())
    {
        mSlots.resize(slot + 1);
    }
    mSlots[slot].resize(bytes);
    return mSlots[slot].data();
}

void HostReformatter::convert(ConstTensorView const& from, TensorView const& to, cudaStream_t)
{
    reformat(from, to);
}

} // namespace kiln::cpu
