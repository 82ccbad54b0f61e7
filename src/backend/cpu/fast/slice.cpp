// Slices of 4-D tensors with a stride of 1 on every axis (a window), FP32 or INT8, the input read as it is stored and
// the output written in its own format (kLINEAR or kHWC), so that a slice continues a channels-last region. The
// reference kernel takes row-major tensors only: the YOLO-style detector's CSP blocks split each channels-last
// convolution output in two along the channels, and its 22 slices took about 28 ms at batch 1 in FP32 on two threads
// with the conversions of their inputs.
#include "backend/cpu/fast/kernels.h"

#include "backend/shared/channel_order.h"

#include "network/layers/slice.h"
#include "plan/plan_graph.h"

#include <array>
#include <cstring>
#include <stdexcept>
#include <string>

namespace kiln::cpu::fast
{
namespace
{

//! The inputs of ISliceLayer after the data: start, size, stride (shape tensors) and the kFILL value.
constexpr size_t kStartInput = 1;
constexpr size_t kStrideInput = 3;
constexpr size_t kFillInput = 4;

//! Where a 4-D tensor's elements lie: (image, channel, row, column) in its format.
struct Layout
{
    std::array<int64_t, 4> dims{};
    bool channelsLast{false};

    int64_t offset(int64_t image, int64_t channel, int64_t row, int64_t column) const
    {
        return channelsLast ? ((image * dims[2] + row) * dims[3] + column) * dims[1] + channel
                            : ((image * dims[1] + channel) * dims[2] + row) * dims[3] + column;
    }
};

Layout layoutOf(Shape const& shape, TensorFormat format)
{
    return Layout{{shape[0], shape[1], shape[2], shape[3]}, format == TensorFormat::kHWC};
}

//! Row `row` of image `image` of `out` (its columns' channels) from the window of `in` at `start`, elements of
//! kBytes: whole runs where both formats keep them together (a position's channels, or a channel's columns), else
//! transposed.
template <size_t kBytes>
void copyRow(std::byte const* input, Layout const& in, std::array<int64_t, 4> const& start, std::byte* output,
    Layout const& out, int64_t image, int64_t row)
{
    int64_t const channels = out.dims[1];
    int64_t const columns = out.dims[3];
    auto const source = [&](int64_t channel, int64_t column) {
        return input + in.offset(image + start[0], channel + start[1], row + start[2], column + start[3]) * kBytes;
    };
    auto const target
        = [&](int64_t channel, int64_t column) { return output + out.offset(image, channel, row, column) * kBytes; };
    if (in.channelsLast && out.channelsLast)
    {
        for (int64_t column = 0; column < columns; ++column)
        {
            std::memcpy(target(0, column), source(0, column), static_cast<size_t>(channels) * kBytes);
        }
    }
    else if (!in.channelsLast && !out.channelsLast)
    {
        for (int64_t channel = 0; channel < channels; ++channel)
        {
            std::memcpy(target(channel, 0), source(channel, 0), static_cast<size_t>(columns) * kBytes);
        }
    }
    else if (in.channelsLast)
    {
        // The row's columns by channels (a column's channels together) into channels by columns (a plane apart).
        backend::transposeStrided(
            source(0, 0), in.dims[1], target(0, 0), out.dims[2] * out.dims[3], columns, channels, kBytes);
    }
    else
    {
        backend::transposeStrided(
            source(0, 0), in.dims[2] * in.dims[3], target(0, 0), out.dims[1], channels, columns, kBytes);
    }
}

//! Throws where the window of `output`'s shape at `start` does not lie inside `input`, naming the first coordinate
//! outside as the reference kernel does in kSTRICT_BOUNDS mode.
void checkInside(Shape const& input, std::array<int64_t, 4> const& start, Shape const& output)
{
    for (size_t axis = 0; axis < 4; ++axis)
    {
        if (output[axis] == 0)
        {
            return; // an empty window reads nothing
        }
    }
    for (size_t axis = 0; axis < 4; ++axis)
    {
        for (int64_t const coordinate : {start[axis], start[axis] + output[axis] - 1})
        {
            if (coordinate < 0 || coordinate >= input[axis])
            {
                throw std::invalid_argument("slice: coordinate " + std::to_string(coordinate)
                    + " is outside an axis of extent " + std::to_string(input[axis]) + " in kSTRICT_BOUNDS mode");
            }
        }
    }
}

class SliceKernel final : public Kernel
{
public:
    SliceKernel(State& state, nvinfer1::Dims const& start)
        : mState(state)
        , mStart{start.d[0], start.d[1], start.d[2], start.d[3]}
    {
    }

    void run(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        ConstTensorView const& input = inputs.at(0);
        TensorView const& output = outputs.at(0);
        checkInside(input.shape, mStart, output.shape);
        if (output.count() == 0)
        {
            return;
        }
        Layout const in = layoutOf(input.shape, input.format);
        Layout const out = layoutOf(output.shape, output.format);
        int const threads = threadsFor(mState, output.count());
        auto const* source = static_cast<std::byte const*>(input.data);
        auto* const target = static_cast<std::byte*>(output.data);
        bool const int8 = output.type == nvinfer1::DataType::kINT8;
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int64_t imageRow = 0; imageRow < out.dims[0] * out.dims[2]; ++imageRow)
        {
            int64_t const image = imageRow / out.dims[2];
            int64_t const row = imageRow % out.dims[2];
            if (int8)
            {
                copyRow<1>(source, in, mStart, target, out, image, row);
            }
            else
            {
                copyRow<4>(source, in, mStart, target, out, image, row);
            }
        }
    }

private:
    State& mState;
    std::array<int64_t, 4> mStart;
};

//! Whether the layer's slot `index` has no tensor: a shape tensor or a fill value the layer does not read.
bool absent(plan::LayerRecord const& layer, size_t index)
{
    return index >= layer.inputs.size() || layer.inputs[index] < 0;
}

} // namespace

bool supportsSlice(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    // A window: every stride 1 and the start fixed (fixSliceParameters folds constant shape tensors into them), in
    // bounds (kSTRICT_BOUNDS, checked as the reference checks it); the size may come from a shape tensor, as it is the
    // output's shape.
    auto const* params = plan::paramsOf<network::SliceParams>(layer);
    if (params == nullptr || params->mode != nvinfer1::SampleMode::kSTRICT_BOUNDS || params->start.nbDims != 4
        || params->stride.nbDims != 4 || !absent(layer, kStartInput) || !absent(layer, kStrideInput)
        || !absent(layer, kFillInput) || layer.inputs.empty() || layer.inputs[0] < 0 || layer.outputs.size() != 1
        || layer.outputs[0] < 0)
    {
        return false;
    }
    for (int32_t axis = 0; axis < 4; ++axis)
    {
        if (params->stride.d[axis] != 1)
        {
            return false;
        }
    }
    // One type, FP32 or INT8, for the data and the output, each in either format (copiesFourAxesOf).
    nvinfer1::DataType const type = model.tensors[layer.outputs[0]].type;
    if (type != nvinfer1::DataType::kFLOAT && type != nvinfer1::DataType::kINT8)
    {
        return false;
    }
    return copiesFourAxesOf(model, layer, 0, type) && copiesFourAxesOf(model, layer, layer.inputs.size(), type);
}

std::unique_ptr<Kernel> makeSlice(State& state, plan::LayerRecord const& layer)
{
    return std::make_unique<SliceKernel>(state, plan::paramsOf<network::SliceParams>(layer)->start);
}

} // namespace kiln::cpu::fast
