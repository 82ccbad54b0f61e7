// The conversions around one layer when the types or formats it reads and writes differ
// from those its tensors are stored in: an FP16 layer reading an FP32 network input, an
// FP32-only plugin between FP16 layers, a linear-only layer reading a channels-last
// tensor. TensorRT inserts reformatting layers for these; Kiln converts into scratch
// buffers that the reformatter keeps between runs, in host memory on the CPU backend
// (cpu/host_reformatter.h) and in device memory on the CUDA backend.
#pragma once

#include "core/tensor_view.h"

#include <cstddef>
#include <memory>
#include <vector>

namespace kiln::backend
{

//! How a layer reads or writes one tensor.
struct SlotLayout
{
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    TensorFormat format{TensorFormat::kLINEAR};
};

class Reformatter
{
public:
    virtual ~Reformatter() = default;

    //! Sets `into` to `stored` as the layer reads it: the tensor itself, or a copy converted to `wanted`.
    void read(
        size_t slot, ConstTensorView const& stored, SlotLayout wanted, ConstTensorView& into, cudaStream_t stream);

    //! Sets `into` to where the layer writes a tensor stored as `stored`: the tensor itself, or scratch laid out as
    //! `wanted`.
    void write(size_t slot, TensorView const& stored, SlotLayout wanted, TensorView& into, cudaStream_t stream);

    //! After the layer ran: converts what it wrote into the slot's scratch (where `wanted` differs) into `stored`.
    void commit(size_t slot, TensorView const& stored, SlotLayout wanted, cudaStream_t stream);

    //! Copies `from` into `to`, of the same shape, type and format, in the backend's memory.
    void copy(ConstTensorView const& from, TensorView const& to, cudaStream_t stream)
    {
        convert(from, to, stream);
    }

    //! Runs `layer(inputs, outputs)` on the tensors in the `types` and `formats` the builder chose (inputs, then
    //! outputs; either empty for the tensors' own), converting before and after where they are stored otherwise.
    //! The views handed to the layer are kept between runs and rewritten in place, so that a layer whose tensors are
    //! converted allocates nothing on the host once it ran at these ranks.
    template <typename Layer>
    bool around(std::vector<nvinfer1::DataType> const& types, std::vector<TensorFormat> const& formats,
        std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs, cudaStream_t stream,
        Layer&& layer)
    {
        // Where the builder chose nothing, a slot is read or written as its tensor is stored.
        auto wanted = [&](size_t slot, nvinfer1::DataType type, TensorFormat format) {
            return SlotLayout{types.empty() ? type : types[slot], formats.empty() ? format : formats[slot]};
        };
        auto stays = [&](size_t slot, auto const& view) {
            SlotLayout const layout = wanted(slot, view.type, view.format);
            return layout.type == view.type && layout.format == view.format;
        };
        bool converts = false;
        for (size_t i = 0; i < inputs.size() && !converts; ++i)
        {
            converts = inputs[i].data != nullptr && !stays(i, inputs[i]); // read() passes an absent input as it is
        }
        for (size_t o = 0; o < outputs.size() && !converts; ++o)
        {
            converts = !stays(inputs.size() + o, outputs[o]);
        }
        if (!converts)
        {
            // Every slot as its tensor is stored (a CUDA plan records the formats of every layer): nothing to
            // convert, and nothing to allocate on the way.
            return layer(inputs, outputs);
        }
        mRead.resize(inputs.size());
        for (size_t i = 0; i < inputs.size(); ++i)
        {
            read(i, inputs[i], wanted(i, inputs[i].type, inputs[i].format), mRead[i], stream);
        }
        mWritten.resize(outputs.size());
        for (size_t o = 0; o < outputs.size(); ++o)
        {
            size_t const slot = inputs.size() + o;
            write(slot, outputs[o], wanted(slot, outputs[o].type, outputs[o].format), mWritten[o], stream);
        }
        if (!layer(static_cast<std::vector<ConstTensorView> const&>(mRead),
                static_cast<std::vector<TensorView> const&>(mWritten)))
        {
            return false;
        }
        for (size_t o = 0; o < outputs.size(); ++o)
        {
            size_t const slot = inputs.size() + o;
            commit(slot, outputs[o], wanted(slot, outputs[o].type, outputs[o].format), stream);
        }
        return true;
    }

protected:
    //! The slot's scratch, at least `bytes` long, in the backend's memory.
    virtual void* scratch(size_t slot, size_t bytes, cudaStream_t stream) = 0;
    //! The slot's scratch as last sized.
    virtual void* scratchOf(size_t slot) = 0;
    //! Converts `from` into `to` (same shape; the type and the format as they are or converted) in the backend's
    //! memory.
    virtual void convert(ConstTensorView const& from, TensorView const& to, cudaStream_t stream) = 0;

private:
    // Views kept between runs: the layer's converted inputs and outputs, and the two ends of a conversion.
    std::vector<ConstTensorView> mRead;
    std::vector<TensorView> mWritten;
    TensorView mConverted;
    ConstTensorView mScratchRead;
};

} // namespace kiln::backend
