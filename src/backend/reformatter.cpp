#include "backend/reformatter.h"

#include "backend/cpu/kernels/tensor/reformat.h"

namespace kiln::backend
{

namespace
{

//! Whether a tensor stored in `type` and `format` is already as `wanted`.
bool matches(nvinfer1::DataType type, TensorFormat format, SlotLayout wanted)
{
    return type == wanted.type && format == wanted.format;
}

} // namespace

ConstTensorView Reformatter::read(size_t slot, ConstTensorView const& stored, SlotLayout wanted, cudaStream_t stream)
{
    if (stored.data == nullptr || matches(stored.type, stored.format, wanted))
    {
        return stored;
    }
    size_t const bytes = static_cast<size_t>(storedCount(stored.shape, wanted.format)) * elementSize(wanted.type);
    TensorView converted{wanted.type, stored.shape, scratch(slot, bytes, stream), wanted.format};
    convert(stored, converted, stream);
    return converted;
}

TensorView Reformatter::write(size_t slot, TensorView const& stored, SlotLayout wanted, cudaStream_t stream)
{
    if (matches(stored.type, stored.format, wanted))
    {
        return stored;
    }
    size_t const bytes = static_cast<size_t>(storedCount(stored.shape, wanted.format)) * elementSize(wanted.type);
    return TensorView{wanted.type, stored.shape, scratch(slot, bytes, stream), wanted.format};
}

void Reformatter::commit(size_t slot, TensorView const& stored, SlotLayout wanted, cudaStream_t stream)
{
    if (!matches(stored.type, stored.format, wanted))
    {
        convert(ConstTensorView(wanted.type, stored.shape, scratchOf(slot), wanted.format), stored, stream);
    }
}

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
    cpu::reformat(from, to);
}

} // namespace kiln::backend
