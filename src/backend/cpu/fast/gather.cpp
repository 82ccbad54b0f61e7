// Gathers of the channels of 4-D tensors by a vector of indices, FP32 or INT8: the layers that
// plan/passes/channel_permutation.h makes of ShuffleNet's channel shuffles and the slices that split them. The data is
// read as it is stored and the output written in its own format (kLINEAR or kHWC), so that a gather continues a
// channels-last region: there each position's channels are picked from the same position of the input, where the
// shuffles' transpose and the slices would each copy the tensor out of the region and back.
#include "backend/cpu/fast/kernels.h"

#include "backend/cpu/fast/image_layout.h"

#include "backend/cpu/fast/interleave.h"

#include "network/layers/gather.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::cpu::fast
{
namespace
{

constexpr size_t kDataInput = 0;
constexpr size_t kIndicesInput = 1;

//! Whether the gathered channels are two runs of consecutive channels interleaved, as each half of a shuffle of two
//! groups is when the halves hold an even count (ShuffleNetV2's: a, b, a + 1, b + 1, ...).
bool twoRunsInterleaved(std::vector<int64_t> const& sources)
{
    if (sources.size() < 2 || sources.size() % 2 != 0)
    {
        return false;
    }
    for (size_t c = 2; c < sources.size(); ++c)
    {
        if (sources[c] != sources[c - 2] + 1)
        {
            return false;
        }
    }
    return true;
}

//! One position's `count` channels, channels-last to channels-last.
template <typename T>
void gatherPosition(T const* source, std::vector<int64_t> const& sources, bool interleaved, T* target, int64_t count)
{
    if (interleaved)
    {
        interleavePairs(source + sources[0], source + sources[1], target, count / 2);
        return;
    }
    for (int64_t c = 0; c < count; ++c)
    {
        target[c] = source[sources[static_cast<size_t>(c)]];
    }
}

//! Output channel c of every image and position from input channel `sources[c]`, elements of T: each position's
//! channels picked where both are channels-last (two runs interleaved by vectors), whole planes copied where both are
//! row-major, else element by element a run of positions at a time, so that one side's reads or writes stay within a
//! few cache lines.
template <typename T>
void gatherChannels(T const* input, ImageLayout const& in, std::vector<int64_t> const& sources, T* output,
    ImageLayout const& out, int threads)
{
    if (in.channelsLast && out.channelsLast)
    {
        bool const interleaved = twoRunsInterleaved(sources);
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int64_t row = 0; row < out.images * out.positions; ++row)
        {
            gatherPosition(input + row * in.channels, sources, interleaved, output + row * out.channels, out.channels);
        }
        return;
    }
    if (!in.channelsLast && !out.channelsLast)
    {
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int64_t plane = 0; plane < out.images * out.channels; ++plane)
        {
            int64_t const image = plane / out.channels;
            int64_t const channel = plane % out.channels;
            std::memcpy(output + out.offset(image, channel, 0),
                input + in.offset(image, sources[static_cast<size_t>(channel)], 0),
                static_cast<size_t>(out.positions) * sizeof(T));
        }
        return;
    }
    constexpr int64_t kRun = 64;
    int64_t const runs = (out.positions + kRun - 1) / kRun;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t t = 0; t < out.images * runs; ++t)
    {
        int64_t const image = t / runs;
        int64_t const first = (t % runs) * kRun;
        int64_t const last = std::min(first + kRun, out.positions);
        for (int64_t c = 0; c < out.channels; ++c)
        {
            for (int64_t position = first; position < last; ++position)
            {
                output[out.offset(image, c, position)]
                    = input[in.offset(image, sources[static_cast<size_t>(c)], position)];
            }
        }
    }
}

class GatherKernel final : public Kernel
{
public:
    explicit GatherKernel(State& state)
        : mState(state)
    {
    }

    void run(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        ConstTensorView const& data = inputs.at(kDataInput);
        ConstTensorView const& indices = inputs.at(kIndicesInput);
        TensorView const& output = outputs.at(0);
        ImageLayout const in = ImageLayout::of(data.shape, data.format);
        ImageLayout const out = ImageLayout::of(output.shape, output.format);
        if (indices.count() != out.channels)
        {
            throw std::invalid_argument("gather: " + std::to_string(indices.count()) + " indices for an output of "
                + std::to_string(out.channels) + " channels");
        }
        // Indices as IGatherLayer takes them: from -channels to channels - 1, negatives counting from the end.
        mSources.resize(static_cast<size_t>(indices.count()));
        auto const* values = static_cast<int32_t const*>(indices.data);
        for (size_t c = 0; c < mSources.size(); ++c)
        {
            int64_t const index = values[c];
            if (index < -in.channels || index >= in.channels)
            {
                throw std::out_of_range("gather: index " + std::to_string(index) + " is outside the "
                    + std::to_string(in.channels) + " channels of the data");
            }
            mSources[c] = index < 0 ? index + in.channels : index;
        }
        int const threads = threadsFor(mState, output.count());
        if (output.type == nvinfer1::DataType::kINT8)
        {
            gatherChannels(
                static_cast<int8_t const*>(data.data), in, mSources, static_cast<int8_t*>(output.data), out, threads);
        }
        else
        {
            gatherChannels(
                static_cast<float const*>(data.data), in, mSources, static_cast<float*>(output.data), out, threads);
        }
    }

private:
    State& mState;
    std::vector<int64_t> mSources; //!< the input channel of each output channel, kept between runs
};

} // namespace

bool supportsGather(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    auto const* params = plan::paramsOf<network::GatherParams>(layer);
    if (params == nullptr || params->mode != nvinfer1::GatherMode::kDEFAULT || params->gatherAxis != 1
        || params->numElementWiseDims != 0 || layer.inputs.size() != 2 || layer.outputs.size() != 1
        || layer.inputs[kDataInput] < 0 || layer.inputs[kIndicesInput] < 0 || layer.outputs[0] < 0)
    {
        return false;
    }
    // A vector of INT32 indices, row-major; the data and the output of one type, FP32 or INT8, each in either format
    // (copiesFourAxesOf).
    plan::TensorRecord const& indices = model.tensors[layer.inputs[kIndicesInput]];
    if (indices.dims.size() != 1 || indices.format != TensorFormat::kLINEAR
        || plan::slotFormat(model, layer, kIndicesInput) != TensorFormat::kLINEAR
        || indices.type != nvinfer1::DataType::kINT32
        || plan::slotType(model, layer, kIndicesInput) != nvinfer1::DataType::kINT32)
    {
        return false;
    }
    nvinfer1::DataType const type = model.tensors[layer.outputs[0]].type;
    return (type == nvinfer1::DataType::kFLOAT || type == nvinfer1::DataType::kINT8)
        && copiesFourAxesOf(model, layer, kDataInput, type) && copiesFourAxesOf(model, layer, 2, type);
}

std::unique_ptr<Kernel> makeGather(State& state, plan::LayerRecord const& /*layer*/)
{
    return std::make_unique<GatherKernel>(state);
}

} // namespace kiln::cpu::fast
