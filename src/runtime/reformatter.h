// The conversions around one layer when the types it reads and writes differ from
// the types its tensors are stored in: an FP16 layer reading an FP32 network input,
// an FP32-only plugin between FP16 layers. TensorRT inserts reformatting layers for
// these; Kiln converts into scratch buffers that the reformatter keeps between runs,
// in host memory on the CPU backend and in device memory on the CUDA backend.
#pragma once

#include "backend/cpu/tensor_view.h"

#include <cstddef>
#include <memory>
#include <vector>

namespace kiln::runtime
{

class Reformatter
{
public:
    virtual ~Reformatter() = default;

    //! `stored` as the layer reads it: the tensor itself, or a copy converted to `wanted`.
    cpu::ConstTensorView read(
        size_t slot, cpu::ConstTensorView const& stored, nvinfer1::DataType wanted, cudaStream_t stream);

    //! Where the layer writes a tensor stored as `stored`: the tensor itself, or scratch of type `wanted`.
    cpu::TensorView write(size_t slot, cpu::TensorView const& stored, nvinfer1::DataType wanted, cudaStream_t stream);

    //! After the layer ran: converts what it wrote into the slot's scratch (where `wanted` differs) into `stored`.
    void commit(size_t slot, cpu::TensorView const& stored, nvinfer1::DataType wanted, cudaStream_t stream);

    //! Runs `layer(inputs, outputs)` on the tensors as `types` (inputs, then outputs) says, converting before
    //! and after where they are stored otherwise; empty `types` runs it on the tensors as they are.
    template <typename Layer>
    bool around(std::vector<nvinfer1::DataType> const& types, std::vector<cpu::ConstTensorView> const& inputs,
        std::vector<cpu::TensorView> const& outputs, cudaStream_t stream, Layer&& layer)
    {
        if (types.empty())
        {
            return layer(inputs, outputs);
        }
        std::vector<cpu::ConstTensorView> read;
        for (size_t i = 0; i < inputs.size(); ++i)
        {
            read.push_back(this->read(i, inputs[i], types[i], stream));
        }
        std::vector<cpu::TensorView> written;
        for (size_t o = 0; o < outputs.size(); ++o)
        {
            written.push_back(write(inputs.size() + o, outputs[o], types[inputs.size() + o], stream));
        }
        if (!layer(read, written))
        {
            return false;
        }
        for (size_t o = 0; o < outputs.size(); ++o)
        {
            commit(inputs.size() + o, outputs[o], types[inputs.size() + o], stream);
        }
        return true;
    }

protected:
    //! The slot's scratch, at least `bytes` long, in the backend's memory.
    virtual void* scratch(size_t slot, size_t bytes, cudaStream_t stream) = 0;
    //! The slot's scratch as last sized.
    virtual void* scratchOf(size_t slot) = 0;
    //! Converts `from` into `to` (same shape) in the backend's memory.
    virtual void convert(cpu::ConstTensorView const& from, cpu::TensorView const& to, cudaStream_t stream) = 0;
};

//! Converts in host memory with the CPU reference's cast (the stream is ignored).
class HostReformatter final : public Reformatter
{
protected:
    void* scratch(size_t slot, size_t bytes, cudaStream_t stream) override;
    void* scratchOf(size_t slot) override
    {
        return mSlots.at(slot).data();
    }
    void convert(cpu::ConstTensorView const& from, cpu::TensorView const& to, cudaStream_t stream) override;

private:
    std::vector<std::vector<std::byte>> mSlots; //!< by slot: a layer's inputs, then its outputs
};

} // namespace kiln::runtime
