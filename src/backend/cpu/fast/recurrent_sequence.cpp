// A recurrent sequence (network/fused/recurrent_sequence.h) in FP32. The units are shared among the threads, each
// share a multiple of one AVX-512 vector; at every step each thread multiplies the whole hidden state by its units'
// recurrence weights of all the gates at once (one oneDNN matmul on that thread alone, its weights laid out once), then
// applies the cell to its units, which needs nothing of the other threads' units. The threads meet once a step, when
// the next hidden state is whole (in_parallel.h's inLockstep). The loop this replaces ran the gates' products and the
// cell's operations as a dozen layers a step, each waking and joining the threads.
//
// The hidden state a step reads is the stacked output's row the step before wrote (the initial state at first); an
// LSTM's cell state stays in a buffer of the kernel's. The activations are vector_functions.h's and the products sum
// in FP32, each over the whole of H on one thread: within those functions' and an FP32 sum's bounds of the reference,
// and the same at any thread count.
#include "backend/cpu/fast/in_parallel.h"
#include "backend/cpu/fast/kernels.h"
#include "backend/cpu/fast/recurrent_cells.h"
#include "backend/cpu/fast/vector_functions.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/shared/recurrent_sequence_geometry.h"
#include "network/fused/recurrent_sequence.h"
#include "plan/plan_graph.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <unordered_map>

namespace kiln::cpu::fast
{
namespace
{

using dnnl::memory;
using network::CellFunction;
using network::RecurrentSequenceParams;
using Tag = memory::format_tag;

//! Units per share are a multiple of this: one AVX-512 vector of floats.
constexpr int64_t kUnitsAlignment = 16;

network::PointwiseStep activationStep(CellFunction const& function)
{
    network::PointwiseStep step;
    step.kind = nvinfer1::LayerType::kACTIVATION;
    step.operation = static_cast<int32_t>(function.type);
    step.alpha = function.alpha;
    step.beta = function.beta;
    return step;
}

//! What a step reads and writes: the gates' input rows, the hidden state before it and the one it writes ([B, H]),
//! the cell state (LSTM) and GRU's recurrence bias (or null).
struct StepData
{
    std::array<float const*, RecurrentSequenceParams::kLstmGates> inputs{};
    float const* previous{nullptr};
    float* next{nullptr};
    float* cell{nullptr};
    float const* hiddenBias{nullptr};
};

//! One thread's units [first, first + count): its primitive, made for that thread alone, with the memory it runs on,
//! and the scratch its steps write.
struct Share
{
    int64_t first{0};
    int64_t count{0};
    dnnl::matmul primitive;
    dnnl::stream stream;
    memory weights;  //!< the units' rows of every gate's weights, in the primitive's layout
    memory previous; //!< the hidden state the step reads ([B, H]), its address set at each step
    std::unordered_map<int, memory> arguments;
    std::vector<float> products; //!< per batch row, each gate's `count` units
    std::vector<float> outputs;  //!< LSTM: the output function of the cell state
    std::vector<std::byte> scratch;
};

struct Prepared
{
    std::vector<Share> shares;
    std::vector<float> cell; //!< LSTM's cell state, [B, H]
};

class RecurrentSequenceKernel final : public Kernel
{
public:
    RecurrentSequenceKernel(State& state, plan::LayerRecord const& layer)
        : mState(state)
        , mOwner(layer.params)
        , mParams(*plan::paramsOf<RecurrentSequenceParams>(layer))
        , mGate(activationStep(mParams.gateFunction))
        , mCandidate(activationStep(mParams.candidateFunction))
        , mOutput(activationStep(mParams.outputFunction))
        , mConstantWeights(static_cast<size_t>(mParams.gates))
    {
    }

    void run(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        backend::RecurrentSequenceGeometry const g = geometryOf(inputs, outputs);
        if (g.steps == 0 || g.batch * g.hidden == 0)
        {
            // Last values: zeros where no step ran, as a loop's outputs are.
            for (size_t o = 1; o < outputs.size(); ++o)
            {
                std::memset(outputs[o].data, 0, static_cast<size_t>(outputs[o].count()) * sizeof(float));
            }
            return;
        }
        // Threads where a step's multiply-adds are many enough, each with whole vectors of units.
        int32_t const threads = static_cast<int32_t>(
            std::min<int64_t>(threadsFor(mState, g.batch * mParams.gates * g.hidden * g.hidden), vectorsOf(g.hidden)));
        Prepared& prepared = mCache.get(inputs, threads, [&] { return prepare(inputs, g, threads); });
        if (!weightsConstant())
        {
            for (Share& share : prepared.shares)
            {
                layOutWeights(share, inputs, g.hidden);
            }
        }
        startCellState(prepared, inputs);
        runSteps(prepared, inputs, static_cast<float*>(outputs[0].data), g);
        int64_t const states = g.batch * g.hidden;
        if (mParams.writesLastHidden)
        {
            float const* last
                = static_cast<float const*>(outputs[0].data) + g.stackedRow(mParams, g.steps - 1) * states;
            std::memcpy(outputs[mParams.lastHiddenSlot()].data, last, static_cast<size_t>(states) * sizeof(float));
        }
        if (mParams.writesLastCell)
        {
            std::memcpy(outputs[mParams.lastCellSlot()].data, prepared.cell.data(),
                static_cast<size_t>(states) * sizeof(float));
        }
    }

    //! The recurrence weights, constant in every export: laid out once per thread count where every gate's are.
    bool takeConstantInput(size_t input, ConstTensorView const& values) override
    {
        for (int32_t gate = 0; gate < mParams.gates; ++gate)
        {
            if (input == mParams.weightsSlot(gate))
            {
                mConstantWeights[static_cast<size_t>(gate)] = values;
                return true;
            }
        }
        return false;
    }

private:
    backend::RecurrentSequenceGeometry geometryOf(LayerInputs const& inputs, LayerOutputs const& outputs) const
    {
        LayerInputs read;
        for (size_t slot = 0; slot < inputs.size(); ++slot)
        {
            read.push_back(inputOf(inputs, slot));
        }
        return backend::recurrentSequenceGeometry(mParams, read, outputs);
    }

    bool weightsConstant() const
    {
        return std::all_of(mConstantWeights.begin(), mConstantWeights.end(),
            [](ConstTensorView const& weights) { return weights.data != nullptr; });
    }

    //! Input `slot`: the constant values taken for it, else what the run gives (a taken input's is never written).
    ConstTensorView const& inputOf(LayerInputs const& inputs, size_t slot) const
    {
        bool const weights = slot >= mParams.weightsSlot(0) && slot < mParams.initialHiddenSlot();
        if (weights && mConstantWeights[slot - mParams.weightsSlot(0)].data != nullptr)
        {
            return mConstantWeights[slot - mParams.weightsSlot(0)];
        }
        return inputs[slot];
    }

    //! The vectors of kUnitsAlignment units that `hidden` units take: the most shares there may be.
    static int64_t vectorsOf(int64_t hidden)
    {
        return (hidden + kUnitsAlignment - 1) / kUnitsAlignment;
    }

    Prepared prepare(LayerInputs const& inputs, backend::RecurrentSequenceGeometry const& g, int32_t threads)
    {
        Prepared prepared;
        if (mParams.gates == RecurrentSequenceParams::kLstmGates)
        {
            prepared.cell.resize(static_cast<size_t>(g.batch * g.hidden));
        }
        // Equal shares of whole vectors, the last one shorter where H is not a multiple of them.
        int64_t const vectors = vectorsOf(g.hidden);
        int64_t const perShare = (vectors + threads - 1) / threads * kUnitsAlignment;
        // Each share's primitive runs on its thread alone, so it is made for one (Session::run sets the count again
        // before the next layer).
        omp_set_num_threads(1);
        for (int64_t first = 0; first < g.hidden; first += perShare)
        {
            Share share;
            share.first = first;
            share.count = std::min(perShare, g.hidden - first);
            makePrimitive(share, g);
            share.outputs.resize(static_cast<size_t>(share.count));
            layOutWeights(share, inputs, g.hidden);
            prepared.shares.push_back(std::move(share));
        }
        return prepared;
    }

    //! LSTM: the cell state from its initial value, or zeros.
    void startCellState(Prepared& prepared, LayerInputs const& inputs) const
    {
        if (prepared.cell.empty())
        {
            return;
        }
        if (hasInput(inputs, mParams.initialCellSlot()))
        {
            auto const* initial = static_cast<float const*>(inputs[mParams.initialCellSlot()].data);
            std::copy_n(initial, prepared.cell.size(), prepared.cell.begin());
        }
        else
        {
            std::fill(prepared.cell.begin(), prepared.cell.end(), 0.0F);
        }
    }

    //! Every step, each share on a thread of its own, into the stacked output.
    void runSteps(Prepared& prepared, LayerInputs const& inputs, float* stacked,
        backend::RecurrentSequenceGeometry const& g) const
    {
        int64_t const states = g.batch * g.hidden;
        auto const* initialHidden = static_cast<float const*>(inputs[mParams.initialHiddenSlot()].data);
        float const* hiddenBias = hasInput(inputs, mParams.hiddenBiasSlot())
            ? static_cast<float const*>(inputs[mParams.hiddenBiasSlot()].data)
            : nullptr;
        auto const stepAt = [&](int64_t k) {
            StepData step;
            int64_t const row = g.inputRow(mParams, k);
            for (int32_t gate = 0; gate < mParams.gates; ++gate)
            {
                step.inputs[gate]
                    = static_cast<float const*>(inputs[mParams.inputSlot(gate)].data) + g.inputAt(row, 0, 0);
            }
            step.previous = k == 0 ? initialHidden : stacked + g.stackedRow(mParams, k - 1) * states;
            step.next = stacked + g.stackedRow(mParams, k) * states;
            step.cell = prepared.cell.data();
            step.hiddenBias = hiddenBias;
            return step;
        };
        if (prepared.shares.size() == 1)
        {
            for (int64_t k = 0; k < g.steps; ++k)
            {
                runStep(prepared.shares[0], stepAt(k), g);
            }
            return;
        }
        inLockstep(
            prepared.shares.size(), g.steps, [&](size_t s, int64_t k) { runStep(prepared.shares[s], stepAt(k), g); });
    }

    void makePrimitive(Share& share, backend::RecurrentSequenceGeometry const& g) const
    {
        int64_t const columns = mParams.gates * share.count;
        memory::desc const source({g.batch, g.hidden}, memory::data_type::f32, Tag::ab);
        memory::desc const destination({g.batch, columns}, memory::data_type::f32, Tag::ab);
        memory::desc const anyWeights({g.hidden, columns}, memory::data_type::f32, Tag::any);
        dnnl::primitive_attr attributes;
        // oneDNN's own scratchpad is one for the whole library: each thread gives its primitive its own.
        attributes.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        dnnl::matmul::primitive_desc const chosen(
            dnnl::matmul::desc(source, anyWeights, destination), attributes, mState.engine);
        share.primitive = dnnl::matmul(chosen);
        share.stream = dnnl::stream(mState.engine);
        share.weights = memory(chosen.weights_desc(), mState.engine);
        share.products.resize(static_cast<size_t>(g.batch * columns));
        share.scratch.resize(chosen.scratchpad_desc().get_size());
        share.previous = userMemory(source, mState.engine);
        share.arguments = {
            {DNNL_ARG_SRC, share.previous}, {DNNL_ARG_DST, memory(destination, mState.engine, share.products.data())}};
        if (!share.scratch.empty())
        {
            share.arguments.emplace(
                DNNL_ARG_SCRATCHPAD, memory(chosen.scratchpad_desc(), mState.engine, share.scratch.data()));
        }
    }

    //! Rows [first, first + count) of each gate's weights, one gate after another, in the primitive's layout.
    void layOutWeights(Share& share, LayerInputs const& inputs, int64_t hidden) const
    {
        int64_t const columns = mParams.gates * share.count;
        std::vector<float> rows(static_cast<size_t>(columns * hidden));
        for (int32_t gate = 0; gate < mParams.gates; ++gate)
        {
            auto const* weights = static_cast<float const*>(inputOf(inputs, mParams.weightsSlot(gate)).data);
            std::copy_n(weights + share.first * hidden, share.count * hidden,
                rows.begin() + static_cast<ptrdiff_t>(gate * share.count * hidden));
        }
        memory::desc const user({hidden, columns}, memory::data_type::f32, Tag::ba);
        share.weights = laidOutWeights(rows, user, share.weights.get_desc(), mState);
        share.arguments[DNNL_ARG_WEIGHTS] = share.weights;
    }

    //! One step of the share's units, on the calling thread.
    void runStep(Share& share, StepData const& step, backend::RecurrentSequenceGeometry const& g) const
    {
        // oneDNN's memory objects are not const-aware; the hidden state is only read.
        share.previous.set_data_handle(const_cast<float*>(step.previous));
        share.primitive.execute(share.stream, share.arguments);
        share.stream.wait();
        for (int64_t b = 0; b < g.batch; ++b)
        {
            applyCell(share, step, b, g.hidden);
        }
    }

    //! The cell on batch row `b` of the share's units, from the products in share.products.
    void applyCell(Share& share, StepData const& step, int64_t b, int64_t hidden) const
    {
        int64_t const n = share.count;
        int64_t const at = b * hidden + share.first; // the row's first unit in [B, H] and in the inputs' rows
        float* a = share.products.data() + b * mParams.gates * n;
        auto const gate = [&](int32_t g) { return a + g * n; };
        auto const input = [&](int32_t g) { return step.inputs[static_cast<size_t>(g)] + at; };
        auto const activate = [&](network::PointwiseStep const& function, int32_t g) {
            evaluateVectorized(function, gate(g), gate(g), n);
        };
        if (mParams.gates == RecurrentSequenceParams::kRnnGates)
        {
            addInput(gate(0), input(0), n);
            evaluateVectorized(mGate, gate(0), step.next + at, n);
        }
        else if (mParams.gates == RecurrentSequenceParams::kGruGates)
        {
            for (int32_t g : {0, 1})
            {
                addInput(gate(g), input(g), n);
                activate(mGate, g);
            }
            float const* bias = step.hiddenBias != nullptr ? step.hiddenBias + share.first : nullptr;
            addResetProduct(gate(2), input(2), gate(1), bias, n);
            activate(mCandidate, 2);
            interpolateState(step.next + at, gate(2), gate(0), step.previous + at, n);
        }
        else
        {
            // ONNX's order: input, output, forget, cell gates.
            for (int32_t g : {0, 1, 2, 3})
            {
                addInput(gate(g), input(g), n);
                activate(g == 3 ? mCandidate : mGate, g);
            }
            float* c = step.cell + at;
            updateCellState(c, gate(2), gate(0), gate(3), n);
            evaluateVectorized(mOutput, c, share.outputs.data(), n);
            multiply(step.next + at, gate(1), share.outputs.data(), n);
        }
    }

    State& mState;
    std::shared_ptr<network::LayerParams const> const mOwner; //!< keeps mParams
    RecurrentSequenceParams const& mParams;
    network::PointwiseStep const mGate;
    network::PointwiseStep const mCandidate;
    network::PointwiseStep const mOutput;
    std::vector<ConstTensorView> mConstantWeights; //!< by gate, where the plan's constants hold them
    PreparedCache<Prepared> mCache;
};

} // namespace

bool runsRecurrentCell(RecurrentSequenceParams const& cell)
{
    auto const vectorizes = [](CellFunction const& function) { return fast::vectorizes(activationStep(function)); };
    bool const candidate = cell.gates == RecurrentSequenceParams::kRnnGates || vectorizes(cell.candidateFunction);
    bool const output = cell.gates != RecurrentSequenceParams::kLstmGates || vectorizes(cell.outputFunction);
    return vectorizes(cell.gateFunction) && candidate && output;
}

bool supportsRecurrentSequence(plan::PlanModel const& /*model*/, plan::LayerRecord const& layer)
{
    auto const* params = plan::paramsOf<RecurrentSequenceParams>(layer);
    if (params == nullptr || !runsRecurrentCell(*params) || layer.epilogue.any()
        || layer.inputs.size() != params->inputCount() || layer.outputs.size() != params->outputCount())
    {
        return false;
    }
    for (size_t slot = 0; slot <= params->initialHiddenSlot(); ++slot)
    {
        if (layer.inputs[slot] < 0)
        {
            return false;
        }
    }
    return true;
}

std::unique_ptr<Kernel> makeRecurrentSequence(State& state, plan::LayerRecord const& layer)
{
    return std::make_unique<RecurrentSequenceKernel>(state, layer);
}

} // namespace kiln::cpu::fast
