// Concatenation along the channels of 4-D tensors, FP32 or INT8 (one type throughout), each input read as it is
// stored and the output written in its own format (kLINEAR or kHWC), so that a concatenation continues a channels-last
// region. The reference kernel takes row-major tensors only: the YOLO-style detector's CSP blocks concatenate
// channels-last convolution outputs with row-major slices, and the conversions around its concatenations took 14 ms at
// batch 1 in FP32 on two threads.
#include "backend/cpu/fast/kernels.h"

#include "backend/cpu/fast/image_layout.h"

#include "backend/shared/channel_order.h"

#include "network/layers/concatenation.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <cstring>

namespace kiln::cpu::fast
{
namespace
{

//! Input `in` (all its channels) into channels first .. first + in.channels - 1 of `out`, elements of kBytes: whole
//! runs where both formats keep them together (a position's channels, or a channel's positions), else transposed.
template <size_t kBytes>
void copyInto(std::byte const* input, ImageLayout const& in, std::byte* output, ImageLayout const& out, int64_t first,
    int threads)
{
    if (in.channelsLast && out.channelsLast)
    {
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int64_t row = 0; row < in.images * in.positions; ++row)
        {
            std::memcpy(output + (row * out.channels + first) * kBytes, input + row * in.channels * kBytes,
                static_cast<size_t>(in.channels) * kBytes);
        }
        return;
    }
    if (!in.channelsLast && !out.channelsLast)
    {
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int64_t plane = 0; plane < in.images * in.channels; ++plane)
        {
            int64_t const image = plane / in.channels;
            int64_t const channel = plane % in.channels;
            std::memcpy(output + out.offset(image, first + channel, 0) * kBytes, input + plane * in.positions * kBytes,
                static_cast<size_t>(in.positions) * kBytes);
        }
        return;
    }
    // The formats differ: each image's block transposed, a run of positions at a time on each thread.
    constexpr int64_t kRun = 256;
    int64_t const runs = (in.positions + kRun - 1) / kRun;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t t = 0; t < in.images * runs; ++t)
    {
        int64_t const image = t / runs;
        int64_t const position = (t % runs) * kRun;
        int64_t const count = std::min(kRun, in.positions - position);
        std::byte* const target = output + out.offset(image, first, position) * kBytes;
        std::byte const* const source = input + in.offset(image, 0, position) * kBytes;
        if (in.channelsLast)
        {
            backend::transposeStrided(source, in.channels, target, out.positions, count, in.channels, kBytes);
        }
        else
        {
            backend::transposeStrided(source, in.positions, target, out.channels, in.channels, count, kBytes);
        }
    }
}

class ConcatenationKernel final : public Kernel
{
public:
    explicit ConcatenationKernel(State& state)
        : mState(state)
    {
    }

    void run(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        TensorView const& output = outputs.at(0);
        ImageLayout const out = ImageLayout::of(output.shape, output.format);
        int const threads = threadsFor(mState, output.count());
        auto* const target = static_cast<std::byte*>(output.data);
        int64_t first = 0;
        for (ConstTensorView const& input : inputs)
        {
            ImageLayout const in = ImageLayout::of(input.shape, input.format);
            auto const* source = static_cast<std::byte const*>(input.data);
            if (output.type == nvinfer1::DataType::kINT8)
            {
                copyInto<1>(source, in, target, out, first, threads);
            }
            else
            {
                copyInto<4>(source, in, target, out, first, threads);
            }
            first += in.channels;
        }
    }

private:
    State& mState;
};

} // namespace

bool supportsConcatenation(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    auto const* params = plan::paramsOf<network::ConcatenationParams>(layer);
    if (params == nullptr || params->axis != 1 || layer.outputs.size() != 1 || layer.outputs[0] < 0
        || layer.inputs.empty())
    {
        return false;
    }
    // One type, FP32 or INT8, for every input and the output, each in either format (copiesFourAxesOf).
    nvinfer1::DataType const type = model.tensors[layer.outputs[0]].type;
    if (type != nvinfer1::DataType::kFLOAT && type != nvinfer1::DataType::kINT8)
    {
        return false;
    }
    for (size_t slot = 0; slot < layer.inputs.size() + 1; ++slot)
    {
        if (!copiesFourAxesOf(model, layer, slot, type))
        {
            return false;
        }
    }
    return true;
}

std::unique_ptr<Kernel> makeConcatenation(State& state, plan::LayerRecord const& /*layer*/)
{
    return std::make_unique<ConcatenationKernel>(state);
}

} // namespace kiln::cpu::fast
