#include "runtime/reformatter.h"

#include "backend/cpu/kernels/tensor/cast.h"

namespace kiln::runtime
{

cpu::ConstTensorView Reformatter::read(
    size_t slot, cpu::ConstTensorView const& stored, nvinfer1::DataType wanted, cudaStream_t stream)
{
    if (stored.data == nullptr || stored.type == wanted)
    {
        return stored;
    }
    size_t const bytes = static_cast<size_t>(stored.count()) * cpu::elementSize(wanted);
    cpu::TensorView converted{wanted, stored.shape, scratch(slot, bytes, stream)};
    convert(stored, converted, stream);
    return converted;
}

cpu::TensorView Reformatter::write(
    size_t slot, cpu::TensorView const& stored, nvinfer1::DataType wanted, cudaStream_t stream)
{
    if (stored.type == wanted)
    {
        return stored;
    }
    size_t const bytes = static_cast<size_t>(stored.count()) * cpu::elementSize(wanted);
    return cpu::TensorView{wanted, stored.shape, scratch(slot, bytes, stream)};
}

void Reformatter::commit(size_t slot, cpu::TensorView const& stored, nvinfer1::DataType wanted, cudaStream_t stream)
{
    if (stored.type != wanted)
    {
        convert(cpu::ConstTensorView(wanted, stored.shape, scratchOf(slot)), stored, stream);
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

void HostReformatter::convert(cpu::ConstTensorView const& from, cpu::TensorView const& to, cudaStream_t)
{
    cpu::cast(from, to);
}

} // namespace kiln::runtime
