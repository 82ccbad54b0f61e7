#include "backend/reformatter.h"

#include "backend/shared/channel_order.h"

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

void Reformatter::read(
    size_t slot, ConstTensorView const& stored, SlotLayout wanted, ConstTensorView& into, cudaStream_t stream)
{
    if (stored.data == nullptr || matches(stored.type, stored.format, wanted))
    {
        into = stored;
        return;
    }
    size_t const bytes
        = static_cast<size_t>(backend::reformattedCount(stored.shape, wanted.format)) * elementSize(wanted.type);
    // Field by field, into views kept between runs: the shapes are copied into the memory they already hold.
    mConverted.type = wanted.type;
    mConverted.shape = stored.shape;
    mConverted.data = scratch(slot, bytes, stream);
    mConverted.format = wanted.format;
    convert(stored, mConverted, stream);
    into.type = mConverted.type;
    into.shape = mConverted.shape;
    into.data = mConverted.data;
    into.format = mConverted.format;
}

void Reformatter::write(size_t slot, TensorView const& stored, SlotLayout wanted, TensorView& into, cudaStream_t stream)
{
    if (matches(stored.type, stored.format, wanted))
    {
        into = stored;
        return;
    }
    size_t const bytes
        = static_cast<size_t>(backend::reformattedCount(stored.shape, wanted.format)) * elementSize(wanted.type);
    into.type = wanted.type;
    into.shape = stored.shape;
    into.data = scratch(slot, bytes, stream);
    into.format = wanted.format;
}

void Reformatter::commit(size_t slot, TensorView const& stored, SlotLayout wanted, cudaStream_t stream)
{
    if (!matches(stored.type, stored.format, wanted))
    {
        mScratchRead.type = wanted.type;
        mScratchRead.shape = stored.shape;
        mScratchRead.data = scratchOf(slot);
        mScratchRead.format = wanted.format;
        convert(mScratchRead, stored, stream);
    }
}

} // namespace kiln::backend
