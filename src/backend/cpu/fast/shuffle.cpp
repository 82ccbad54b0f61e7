// Shuffle (transpose, reshape, transpose; ONNX's Transpose, and the reshapes and transposes that split a transformer's
// hidden axis into heads and merge them back) as one oneDNN reorder: the input is read through strides that apply the
// transpose, and written out row-major. A reshape moves no element, so the reorder sees the shapes on either side of
// it, which inference gave: the input's, transposed, or the output's, transposed back. FP32 data, or INT8 where the
// Q/DQ propagation moved the shuffle onto quantized data (fast_path.cpp's int8Shuffle): the same reorder of bytes.
#include "backend/cpu/fast/kernels.h"

#include "network/layers/shuffle.h"
#include "plan/plan_graph.h"

#include <cstring>

namespace kiln::cpu::fast
{
namespace
{

using nvinfer1::Permutation;

bool isIdentity(Permutation const& permutation, size_t rank)
{
    for (size_t axis = 0; axis < rank; ++axis)
    {
        if (permutation.order[axis] != static_cast<int32_t>(axis))
        {
            return false;
        }
    }
    return true;
}

//! `values` in the order `permutation` gives: element i is values[permutation[i]].
Shape permuted(Shape const& values, Permutation const& permutation)
{
    Shape result(values.size());
    for (size_t axis = 0; axis < values.size(); ++axis)
    {
        result[axis] = values[static_cast<size_t>(permutation.order[axis])];
    }
    return result;
}

class ShuffleKernel final : public Kernel
{
public:
    ShuffleKernel(State& state, plan::LayerRecord const& layer)
        : mState(state)
        , mOwner(layer.params)
        , mParams(*plan::paramsOf<network::ShuffleParams>(layer))
    {
    }

    void run(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        TensorView const& output = outputs.at(0);
        if (output.count() == 0)
        {
            return;
        }
        if (inputs[0].format == TensorFormat::kHWC || output.format == TensorFormat::kHWC)
        {
            // A permute that moves the channels last out of a channels-last tensor, or back into one (channelsLastUse):
            // the output's bytes as stored are the input's. The builder makes most such layers views; this copies
            // where it could not.
            std::memcpy(output.data, inputs[0].data, static_cast<size_t>(output.count()) * elementSize(output.type));
            return;
        }
        int32_t const threads = primitiveThreads(mState, output.count());
        Prepared& prepared = mCache.get(inputs, threads, [&] { return prepare(inputs[0], output.shape); });
        // oneDNN's memory objects are not const-aware; the source is only read.
        prepared.source.set_data_handle(const_cast<void*>(inputs[0].data));
        prepared.destination.set_data_handle(output.data);
        prepared.reorder.execute(mState.stream, prepared.source, prepared.destination);
        mState.stream.wait();
    }

private:
    struct Prepared
    {
        dnnl::reorder reorder;
        dnnl::memory source;
        dnnl::memory destination;
    };

    //! The input as the transposed tensor that the output's bytes hold: its dimensions, and its strides in the input.
    std::pair<Shape, Shape> transposedView(Shape const& input, Shape const& output) const
    {
        if (isIdentity(mParams.secondTranspose, output.size()))
        {
            // The first transpose, then a reshape that moves nothing.
            Permutation const& first = mParams.firstTranspose;
            return {permuted(input, first), permuted(contiguousStrides(input), first)};
        }
        // A reshape of the input as it lies (supportsShuffle: no first transpose), then the second transpose: the
        // reshaped dimensions are the output's, transposed back.
        Shape reshaped(output.size());
        for (size_t axis = 0; axis < output.size(); ++axis)
        {
            reshaped[static_cast<size_t>(mParams.secondTranspose.order[axis])] = output[axis];
        }
        return {output, permuted(contiguousStrides(reshaped), mParams.secondTranspose)};
    }

    Prepared prepare(ConstTensorView const& input, Shape const& output) const
    {
        auto const [dims, strides] = transposedView(input.shape, output);
        dnnl::memory::data_type const type = input.type == nvinfer1::DataType::kINT8 ? dnnl::memory::data_type::s8
                                                                                     : dnnl::memory::data_type::f32;
        dnnl::memory::desc const source(dimsOf(dims), type, dimsOf(strides));
        dnnl::memory::desc const destination = linearDesc(dims, type);
        dnnl::reorder::primitive_desc const chosen(mState.engine, source, mState.engine, destination);
        return Prepared{
            dnnl::reorder(chosen), userMemory(source, mState.engine), userMemory(destination, mState.engine)};
    }

    State& mState;
    std::shared_ptr<network::LayerParams const> const mOwner; //!< keeps mParams
    network::ShuffleParams const& mParams;
    PreparedCache<Prepared> mCache;
};

} // namespace

bool supportsShuffle(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    auto const* params = plan::paramsOf<network::ShuffleParams>(layer);
    // Reshape dimensions from a shape tensor make an INT64 input, which the fast path's common checks refuse.
    if (params == nullptr || layer.inputs.size() != 1 || layer.inputs[0] < 0 || layer.epilogue.any())
    {
        return false;
    }
    size_t const inputRank = model.tensors[layer.inputs[0]].dims.size();
    size_t const outputRank = model.tensors[layer.outputs[0]].dims.size();
    // Two transposes would need the tensor in between.
    bool const oneTranspose = isIdentity(params->firstTranspose, inputRank)
        || isIdentity(params->secondTranspose, outputRank);
    return oneTranspose && inputRank > 0 && outputRank > 0;
}

std::unique_ptr<Kernel> makeShuffle(State& state, plan::LayerRecord const& layer)
{
    return std::make_unique<ShuffleKernel>(state, layer);
}

} // namespace kiln::cpu::fast
