#include "runtime/reformatter.h"

#include "backend/cpu/kernels/tensor/cast.h"


namespace kiln::runtime
{

void* HostReformatter::scratch(size_t slot, nvinfer1::DataType type, int64_t count)
{
    if (slot >= mSlots.size())
    {
        mSlots.resize(slot + 1);
    }
    mSlots[slot].resize(static_cast<size_t>(count) * cpu::elementSize(type));
    return mSlots[slot].data();
}

cpu::ConstTensorView HostReformatter::read(
    size_t slot, cpu::ConstTensorView const& stored, nvinfer1::DataType wanted, cudaStream_t)
{
    if (stored.data == nullptr || stored.type == wanted)
    {
        return stored;
    }
    cpu::TensorView converted{wanted, stored.shape, scratch(slot, wanted, stored.count())};
    cpu::cast(stored, converted);
    return converted;
}

cpu::TensorView HostReformatter::write(size_t slot, cpu::TensorView const& stored, nvinfer1::DataType wanted, cudaStream_t)
{
    if (stored.type == wanted)
    {
        return stored;
    }
    return cpu::TensorView{wanted, stored.shape, scratch(slot, wanted, stored.count())};
}

void HostReformatter::commit(size_t slot, cpu::TensorView const& stored, nvinfer1::DataType wanted, cudaStream_t)
{
    if (stored.type == wanted)
    {
        return;
    }
    cpu::cast(cpu::ConstTensorView(wanted, stored.shape, mSlots.at(slot).data()), stored);
}

} // namespace kiln::runtime
