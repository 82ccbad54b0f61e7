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
    virtual cpu::ConstTensorView read(
        size_t slot, cpu::ConstTensorView const& stored, nvinfer1::DataType wanted, cudaStream_t stream)
        = 0;

    //! Where the layer writes a tensor stored as `stored`: the tensor itself, or scratch of type `wanted`.
    virtual cpu::TensorView write(size_t slot, cpu::TensorView const& stored, nvinfer1::DataType wanted,
        cudaStream_t stream)
        = 0;

    //! After the layer ran: converts what it wrote into the slot's scratch (where `wanted` differs) into `stored`.
    virtual void commit(size_t slot, cpu::TensorView const& stored, nvinfer1::DataType wanted, cudaStream_t stream)
        = 0;
};

//! Converts in host memory with the CPU reference's cast (the stream is ignored).
class HostReformatter final : public Reformatter
{
public:
    cpu::ConstTensorView read(
        size_t slot, cpu::ConstTensorView const& stored, nvinfer1::DataType wanted, cudaStream_t stream) override;
    cpu::TensorView write(
        size_t slot, cpu::TensorView const& stored, nvinfer1::DataType wanted, cudaStream_t stream) override;
    void commit(
        size_t slot, cpu::TensorView const& stored, nvinfer1::DataType wanted, cudaStream_t stream) override;

private:
    //! The slot's scratch, sized for `count` elements of `type`.
    void* scratch(size_t slot, nvinfer1::DataType type, int64_t count);

    std::vector<std::vector<std::byte>> mSlots; //!< by slot: a layer's inputs, then its outputs
};

} // namespace kiln::runtime
