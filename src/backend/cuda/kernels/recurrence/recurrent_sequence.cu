// The recurrent sequence (network/fused/recurrent_sequence.h) as one persistent kernel: every step of the loop runs
// inside it, so that a sequence of S steps costs one launch instead of S times the body's kernels. Each warp computes
// the states of (batch row, unit) pairs: its lanes sum the products of the hidden state with the unit's row of each
// gate's weights, lane 0 applies the cell. The whole grid then waits for every state of the step (a cooperative
// launch's grid barrier) before the next step reads them. The states live in scratch memory in float, rounded into
// the layer's type as the loop stored them; they are read and written through L2 alone (__ldcg, __stcg), since other
// multiprocessors wrote them (a cell state's first value too). Consecutive warps take the same unit for consecutive
// batch rows, so its weights are read from L1; a lane issues the loads of 8 elements of the state and the weights at
// once, so that a step waits on few latencies. A pair of sequences (network::RecurrentSequencePairParams, a
// bidirectional layer's two directions) runs in one launch, the warps taking the states of both and the grid waiting
// once a step for both.
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/float_or_half.cuh"
#include "backend/cuda/kernels/pointwise/pointwise_math.cuh"
#include "backend/cuda/kernels/warp_sum.cuh"
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/memory/device_buffer.h"
#include "backend/shared/recurrent_sequence_geometry.h"

#include <cooperative_groups.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kiln::cuda
{
namespace
{

namespace cg = cooperative_groups;
using device::fromFloat;
using device::storedAs;
using device::toFloat;
using device::warpSum;
using network::CellFunction;
using network::RecurrentSequenceParams;

constexpr int kThreads = 512;
constexpr int kWarpsPerBlock = kThreads / 32;
//! The elements of the hidden state (and of each gate's weights) a lane loads at once.
constexpr int kLoadsInFlight = 8;

//! Whether an optional input is given: it has data, or no elements (which need none).
bool given(ConstTensorView const& view)
{
    return view.data != nullptr || view.count() == 0;
}

__device__ inline float applied(CellFunction const& f, float x)
{
    return device::activate(f.type, f.alpha, f.beta, x);
}

//! What the kernel reads and writes; absent tensors are null.
template <typename T>
struct Sequence
{
    T const* inputs[RecurrentSequenceParams::kLstmGates]{};
    T const* weights[RecurrentSequenceParams::kLstmGates]{};
    T const* hiddenBias{nullptr};
    T const* initialHidden{nullptr};
    T const* initialCell{nullptr};
    T* stacked{nullptr};
    T* lastHidden{nullptr};
    T* lastCell{nullptr};
    float* hidden[2]{}; //!< the hidden states, read and written in turns
    float* cell{nullptr};
    backend::RecurrentSequenceGeometry geometry;
    bool iteratesBackwards{false};
    bool stacksBackwards{false};
    CellFunction gate;
    CellFunction candidate;
    CellFunction output;
};

//! Step `k` of state `task` of `s` (its unit task / batch, its batch row task % batch), on the calling warp: the lanes
//! sum the products, lane 0 applies the cell and writes the state.
template <typename T, int Gates>
__device__ void stepState(Sequence<T> const& s, int64_t k, int64_t task, int lane)
{
    int64_t const batch = s.geometry.batch;
    int64_t const size = s.geometry.hidden;
    int64_t const states = batch * size;
    float const* hidden = s.hidden[k & 1];
    float* next = s.hidden[(k + 1) & 1];
    int64_t const row = s.iteratesBackwards ? s.geometry.inputSteps - 1 - k : k;
    int64_t const stackedRow = s.stacksBackwards ? s.geometry.steps - 1 - k : k;
    bool const last = k == s.geometry.steps - 1;
    int64_t const j = task / batch;
    int64_t const b = task - j * batch;
    int64_t const at = b * size + j;
    int64_t const x = (row * batch + b) * size + j;
    // Lane 0's operands of the cell, loaded before the products so that their latency overlaps them.
    float inputs[Gates]{};
    float previous = 0.0F; // the GRU's: its next state interpolates from it
    if (lane == 0)
    {
        for (int g = 0; g < Gates; ++g)
        {
            inputs[g] = toFloat(s.inputs[g][x]);
        }
        if constexpr (Gates == RecurrentSequenceParams::kGruGates)
        {
            previous = __ldcg(hidden + at);
        }
    }
    float sums[Gates];
    for (int g = 0; g < Gates; ++g)
    {
        sums[g] = 0.0F;
    }
    float const* hiddenRow = hidden + b * size;
    T const* weightRows[Gates];
    for (int g = 0; g < Gates; ++g)
    {
        weightRows[g] = s.weights[g] + j * size;
    }
    for (int64_t first = lane; first < size; first += 32 * kLoadsInFlight)
    {
        // Every load of the chunk issued before any product: one latency a chunk, not one an element.
        float h[kLoadsInFlight];
        float w[Gates][kLoadsInFlight];
#pragma unroll
        for (int u = 0; u < kLoadsInFlight; ++u)
        {
            int64_t const i = first + 32 * u;
            bool const inside = i < size;
            h[u] = inside ? __ldcg(hiddenRow + i) : 0.0F;
            for (int g = 0; g < Gates; ++g)
            {
                w[g][u] = inside ? toFloat(weightRows[g][i]) : 0.0F;
            }
        }
#pragma unroll
        for (int u = 0; u < kLoadsInFlight; ++u)
        {
            for (int g = 0; g < Gates; ++g)
            {
                sums[g] = fmaf(h[u], w[g][u], sums[g]);
            }
        }
    }
    for (int g = 0; g < Gates; ++g)
    {
        sums[g] = warpSum(sums[g]);
    }
    if (lane != 0)
    {
        return;
    }
    auto const a = [&](int g) { return inputs[g] + sums[g]; };
    float h = 0.0F;
    if constexpr (Gates == RecurrentSequenceParams::kRnnGates)
    {
        h = applied(s.gate, a(0));
    }
    else if constexpr (Gates == RecurrentSequenceParams::kGruGates)
    {
        float const z = applied(s.gate, a(0));
        float const r = applied(s.gate, a(1));
        float const recurrent = sums[2] + (s.hiddenBias != nullptr ? toFloat(s.hiddenBias[j]) : 0.0F);
        float const n = applied(s.candidate, inputs[2] + r * recurrent);
        h = n + z * (previous - n);
    }
    else
    {
        float const c = storedAs<T>(
            applied(s.gate, a(2)) * __ldcg(s.cell + at) + applied(s.gate, a(0)) * applied(s.candidate, a(3)));
        __stcg(s.cell + at, c);
        h = applied(s.gate, a(1)) * applied(s.output, c);
        if (last && s.lastCell != nullptr)
        {
            s.lastCell[at] = fromFloat<T>(c);
        }
    }
    __stcg(next + at, storedAs<T>(h));
    s.stacked[stackedRow * states + at] = fromFloat<T>(h);
    if (last && s.lastHidden != nullptr)
    {
        s.lastHidden[at] = fromFloat<T>(h);
    }
}

//! The sequences of one launch: one, or the two of a pair.
template <typename T, int Count>
struct Sequences
{
    Sequence<T> sequence[Count];

    __device__ int64_t states(int q) const
    {
        return sequence[q].geometry.batch * sequence[q].geometry.hidden;
    }
};

template <typename T, int Gates, int Count>
__global__ void __launch_bounds__(kThreads) recurrentSequenceKernel(__grid_constant__ Sequences<T, Count> const all)
{
    cg::grid_group grid = cg::this_grid();
    int64_t steps = 0;
    int64_t tasks = 0;
#pragma unroll
    for (int q = 0; q < Count; ++q)
    {
        Sequence<T> const& s = all.sequence[q];
        int64_t const states = all.states(q);
        for (int64_t i = blockIdx.x * int64_t{kThreads} + threadIdx.x; i < states; i += gridDim.x * int64_t{kThreads})
        {
            __stcg(s.hidden[0] + i, storedAs<T>(toFloat(s.initialHidden[i])));
            if constexpr (Gates == RecurrentSequenceParams::kLstmGates)
            {
                __stcg(s.cell + i, storedAs<T>(toFloat(s.initialCell[i])));
            }
        }
        steps = s.geometry.steps > steps ? s.geometry.steps : steps;
        tasks += states;
    }
    grid.sync();
    int const lane = static_cast<int>(threadIdx.x % 32);
    int64_t const warp = blockIdx.x * int64_t{kWarpsPerBlock} + threadIdx.x / 32;
    int64_t const warps = gridDim.x * int64_t{kWarpsPerBlock};
    int64_t const firstStates = all.states(0);
    for (int64_t k = 0; k < steps; ++k)
    {
        for (int64_t task = warp; task < tasks; task += warps)
        {
            if constexpr (Count == 1)
            {
                stepState<T, Gates>(all.sequence[0], k, task, lane);
            }
            else
            {
                // The states of the first sequence, then the second's; one that has run all its steps waits.
                int const q = task < firstStates ? 0 : 1;
                Sequence<T> const& s = all.sequence[q];
                if (k < s.geometry.steps)
                {
                    stepState<T, Gates>(s, k, q == 0 ? task : task - firstStates, lane);
                }
            }
        }
        grid.sync();
    }
}

//! The kernel of `count` sequences (1 or 2) of cells of `gates`, storing T.
template <typename T>
void const* kernelFor(int32_t gates, size_t count)
{
    auto const of = [count](auto one, auto two) {
        return count == 1 ? reinterpret_cast<void const*>(one) : reinterpret_cast<void const*>(two);
    };
    switch (gates)
    {
    case RecurrentSequenceParams::kRnnGates:
        return of(&recurrentSequenceKernel<T, RecurrentSequenceParams::kRnnGates, 1>,
            &recurrentSequenceKernel<T, RecurrentSequenceParams::kRnnGates, 2>);
    case RecurrentSequenceParams::kGruGates:
        return of(&recurrentSequenceKernel<T, RecurrentSequenceParams::kGruGates, 1>,
            &recurrentSequenceKernel<T, RecurrentSequenceParams::kGruGates, 2>);
    case RecurrentSequenceParams::kLstmGates:
        return of(&recurrentSequenceKernel<T, RecurrentSequenceParams::kLstmGates, 1>,
            &recurrentSequenceKernel<T, RecurrentSequenceParams::kLstmGates, 2>);
    default: break;
    }
    throw std::invalid_argument("recurrent sequence: " + std::to_string(gates) + " gates, where a cell has 1, 3 or 4");
}

//! One sequence of a layer: its parameters, and where its inputs and outputs start among the layer's.
struct Part
{
    RecurrentSequenceParams const* params;
    size_t firstInput;
    size_t firstOutput;
};

class RecurrentSequenceLayer final : public DeviceLayer
{
public:
    RecurrentSequenceLayer(std::vector<Part> parts, nvinfer1::DataType type)
        : mParts(std::move(parts))
        , mType(type)
    {
        if (type != nvinfer1::DataType::kFLOAT && type != nvinfer1::DataType::kHALF)
        {
            throw std::invalid_argument(
                "recurrent sequence: computes in FP32 or FP16, not type " + std::to_string(static_cast<int32_t>(type)));
        }
        int32_t const gates = mParts.front().params->gates;
        for (Part const& part : mParts)
        {
            if (part.params->gates != gates)
            {
                throw std::invalid_argument("recurrent sequence: a pair's cells have different gates");
            }
        }
        for (size_t count = 1; count <= mParts.size(); ++count)
        {
            mKernels.push_back(
                type == nvinfer1::DataType::kHALF ? kernelFor<__half>(gates, count) : kernelFor<float>(gates, count));
        }
        int gpu = 0;
        int cooperative = 0;
        int multiprocessors = 0;
        int blocksPerMultiprocessor = 0;
        check(cudaGetDevice(&gpu), "recurrent sequence: the current GPU");
        check(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, gpu),
            "recurrent sequence: whether the GPU launches cooperative kernels");
        check(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, gpu),
            "recurrent sequence: the GPU's multiprocessors");
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerMultiprocessor, mKernels.back(), kThreads, 0),
            "recurrent sequence: the kernel's occupancy");
        if (cooperative == 0 || blocksPerMultiprocessor == 0)
        {
            throw std::runtime_error("recurrent sequence: the GPU cannot launch the kernel cooperatively");
        }
        // One block of 16 warps a multiprocessor for each sequence, as the occupancy allows: a warp for each state of
        // 8 x 256 on an H200. More blocks would make each step's grid barrier, which every step pays, slower.
        mMaxBlocks = int64_t{multiprocessors} * std::min<int64_t>(blocksPerMultiprocessor, mParts.size());
    }

    void run(std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs,
        cudaStream_t stream) override
    {
        for (size_t slot = 0; slot < inputs.size() + outputs.size(); ++slot)
        {
            bool const present = slot >= inputs.size() || given(inputs[slot]);
            nvinfer1::DataType const type = slot < inputs.size() ? inputs[slot].type
                                                                 : outputs[slot - inputs.size()].type;
            if (present && type != mType)
            {
                throw std::invalid_argument("recurrent sequence: tensor " + std::to_string(slot) + " is of type "
                    + std::to_string(static_cast<int32_t>(type)) + ", not the layer's "
                    + std::to_string(static_cast<int32_t>(mType)));
            }
        }
        // The sequences with steps to run; the others' last values are zeros, as a loop's outputs are.
        std::vector<Running> running;
        for (Part const& part : mParts)
        {
            Running sequence{part, slice(inputs, part.firstInput, part.params->inputCount()),
                slice(outputs, part.firstOutput, part.params->outputCount()), {}};
            std::vector<Shape const*> inputShapes;
            for (ConstTensorView const& input : sequence.inputs)
            {
                inputShapes.push_back(given(input) ? &input.shape : nullptr);
            }
            std::vector<Shape const*> outputShapes;
            for (TensorView const& output : sequence.outputs)
            {
                outputShapes.push_back(&output.shape);
            }
            sequence.geometry = backend::recurrentSequenceGeometry(*part.params, inputShapes, outputShapes);
            if (sequence.geometry.steps > 0 && sequence.geometry.batch * sequence.geometry.hidden > 0)
            {
                running.push_back(std::move(sequence));
                continue;
            }
            for (size_t o = 1; o < sequence.outputs.size(); ++o)
            {
                size_t const bytes
                    = static_cast<size_t>(sequence.outputs[o].count()) * (mType == nvinfer1::DataType::kHALF ? 2 : 4);
                check(cudaMemsetAsync(sequence.outputs[o].data, 0, bytes, stream),
                    "recurrent sequence: zeroing a last-value output");
            }
        }
        if (running.empty())
        {
            return;
        }
        bool const half = mType == nvinfer1::DataType::kHALF;
        if (running.size() == 1)
        {
            half ? launch<__half, 1>(running, stream) : launch<float, 1>(running, stream);
        }
        else
        {
            half ? launch<__half, 2>(running, stream) : launch<float, 2>(running, stream);
        }
    }

private:
    //! A sequence about to run: its part, its own inputs and outputs, and its extents.
    struct Running
    {
        Part part;
        std::vector<ConstTensorView> inputs;
        std::vector<TensorView> outputs;
        backend::RecurrentSequenceGeometry geometry;
    };

    template <typename View>
    static std::vector<View> slice(std::vector<View> const& all, size_t first, size_t count)
    {
        return std::vector<View>(all.begin() + static_cast<ptrdiff_t>(first),
            all.begin() + static_cast<ptrdiff_t>(std::min(first + count, all.size())));
    }

    template <typename T, int Count>
    void launch(std::vector<Running> const& running, cudaStream_t stream)
    {
        int64_t tasks = 0;
        for (Running const& sequence : running)
        {
            tasks += sequence.geometry.batch * sequence.geometry.hidden;
        }
        mScratch.reserve(3 * static_cast<size_t>(tasks) * sizeof(float), stream, "recurrent sequence states");
        auto* scratch = reinterpret_cast<float*>(mScratch.data());
        Sequences<T, Count> all;
        for (size_t q = 0; q < running.size(); ++q)
        {
            Running const& sequence = running[q];
            RecurrentSequenceParams const& params = *sequence.part.params;
            int64_t const states = sequence.geometry.batch * sequence.geometry.hidden;
            auto const data = [&](size_t slot) { return static_cast<T const*>(sequence.inputs[slot].data); };
            auto const written = [&](bool writes, size_t slot) {
                return writes ? static_cast<T*>(sequence.outputs[slot].data) : nullptr;
            };
            Sequence<T>& s = all.sequence[q];
            for (int32_t gate = 0; gate < params.gates; ++gate)
            {
                s.inputs[gate] = data(params.inputSlot(gate));
                s.weights[gate] = data(params.weightsSlot(gate));
            }
            s.hiddenBias = data(params.hiddenBiasSlot());
            s.initialHidden = data(params.initialHiddenSlot());
            s.initialCell = data(params.initialCellSlot());
            s.stacked = static_cast<T*>(sequence.outputs[0].data);
            s.lastHidden = written(params.writesLastHidden, params.lastHiddenSlot());
            s.lastCell = written(params.writesLastCell, params.lastCellSlot());
            s.hidden[0] = scratch;
            s.hidden[1] = scratch + states;
            s.cell = scratch + 2 * states;
            scratch += 3 * states;
            s.geometry = sequence.geometry;
            s.iteratesBackwards = params.iteratesBackwards;
            s.stacksBackwards = params.stacksBackwards;
            s.gate = params.gateFunction;
            s.candidate = params.candidateFunction;
            s.output = params.outputFunction;
        }
        int64_t const wanted = (tasks + kWarpsPerBlock - 1) / kWarpsPerBlock;
        unsigned const blocks = static_cast<unsigned>(std::min<int64_t>(wanted, mMaxBlocks));
        void* arguments[] = {&all};
        check(cudaLaunchCooperativeKernel(mKernels[Count - 1], dim3(blocks), dim3(kThreads), arguments, 0, stream),
            "recurrent sequence: launching the kernel");
    }

    std::vector<Part> mParts;
    nvinfer1::DataType mType;
    std::vector<void const*> mKernels; //!< by the count of sequences that run, 1 and (for a pair) 2
    int64_t mMaxBlocks{1};
    DeviceBuffer mScratch; //!< each sequence's hidden states (two) and cell state, in float; grown as batches grow
};

} // namespace

std::unique_ptr<DeviceLayer> lower(RecurrentSequenceParams const& params, LayerContext const& context)
{
    return std::make_unique<RecurrentSequenceLayer>(
        std::vector<Part>{{&params, 0, 0}}, context.record.precision.value_or(context.dataType));
}

std::unique_ptr<DeviceLayer> lower(network::RecurrentSequencePairParams const& params, LayerContext const& context)
{
    std::vector<Part> parts{{&params.first, 0, 0}, {&params.second, params.secondInput(), params.secondOutput()}};
    return std::make_unique<RecurrentSequenceLayer>(
        std::move(parts), context.record.precision.value_or(context.dataType));
}

} // namespace kiln::cuda
