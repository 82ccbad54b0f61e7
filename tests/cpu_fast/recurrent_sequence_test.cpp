// Recurrent sequences on the fast path (fast/recurrent_sequence.cpp): the loops of LSTM, GRU and RNN cells, built as
// the ONNX importer builds them, become one layer in fast CPU plans (plan/passes/recurrence_fusion.h), which the fast
// path runs, against the reference kernels running the loop itself. Forwards and backwards, operands swapped, GRU's
// recurrence bias, ReLU's RNN; units that fill no whole vector, and enough work for the units to be shared among
// threads, which give the same results at every count; a second run on other inputs (the cell state starts anew),
// recurrence weights given as inputs (laid out at every run); cells whose functions the kernel lacks stay loops.
#include "fast_path_comparison.h"
#include "network/fused/recurrent_sequence.h"
#include "recurrent_cells.h"

namespace kiln::test
{
namespace
{

//! The fast plan's recurrent sequence layers, and how many of them the fast path runs.
struct FusedLayers
{
    size_t fused{0};
    size_t marked{0};
};

FusedLayers fusedLayersOf(std::vector<uint8_t> const& blob)
{
    plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(plan::readPlan(blob.data(), blob.size(), model, error)) << error;
    FusedLayers layers;
    for (plan::LayerRecord const& layer : model.layers)
    {
        if (layer.type == network::kRecurrentSequenceLayerType)
        {
            ++layers.fused;
            layers.marked += cpu::fast::isMarked(layer) ? 1 : 0;
        }
    }
    return layers;
}

//! Cases whose units the threads share (more multiply-adds a step than kParallelElements), in parts of whole
//! vectors and a shorter last one.
std::vector<CellCase> sharedCases()
{
    CellCase lstm{Cell::kLSTM, 4, 4, 72};
    CellCase gru{Cell::kGRU, 3, 2, 130, true, false, true};
    CellCase rnn{Cell::kRNN, 5, 8, 96, false, true};
    rnn.rnnFunction = ActivationType::kRELU;
    return {lstm, gru, rnn};
}

//! The products sum over H in FP32 where the reference sums in double; the activations are vector_functions.h's.
Tolerance cellTolerance(CellCase const& c)
{
    return reductionTolerance(c.hidden);
}

TEST(FastRecurrentSequence, LoopsOfTheCellsRunAsOneLayer)
{
    std::vector<CellCase> cases = fusedCases();
    for (CellCase const& c : sharedCases())
    {
        cases.push_back(c);
    }
    for (CellCase const& c : cases)
    {
        SCOPED_TRACE(describe(c));
        expectFastMatchesReference(cellLoop(c), {cellInputs(c), cellInputs(c, true)}, cellTolerance(c));
        FusedLayers const layers = fusedLayersOf(buildCpuPlan(cellLoop(c), CpuKernels::kFAST));
        EXPECT_EQ(layers.fused, 1U);
        EXPECT_EQ(layers.marked, 1U);
    }
}

TEST(FastRecurrentSequence, ResultsAreTheSameAtEveryThreadCount)
{
    for (CellCase const& c : sharedCases())
    {
        SCOPED_TRACE(describe(c));
        std::vector<uint8_t> const plan = buildCpuPlan(cellLoop(c), CpuKernels::kFAST);
        std::vector<Tensors> const one = runCpuPlan(plan, {cellInputs(c)}, 1);
        for (int32_t threads : {2, 3})
        {
            std::vector<Tensors> const more = runCpuPlan(plan, {cellInputs(c)}, threads);
            ASSERT_EQ(more.size(), 1U);
            for (auto const& [name, expected] : one.at(0))
            {
                EXPECT_EQ(more[0].at(name).bytes, expected.bytes) << name << " on " << threads << " threads";
            }
        }
    }
}

TEST(FastRecurrentSequence, WeightsGivenAsInputsAreReadAtEveryRun)
{
    CellCase lstm{Cell::kLSTM, 4, 4, 72};
    CellCase gru{Cell::kGRU, 3, 2, 20, true, false, true};
    for (CellCase c : {lstm, gru})
    {
        c.weightsGiven = true;
        SCOPED_TRACE(describe(c));
        expectFastMatchesReference(cellLoop(c), {cellInputs(c), cellInputs(c, true)}, cellTolerance(c));
        EXPECT_EQ(fusedLayersOf(buildCpuPlan(cellLoop(c), CpuKernels::kFAST)).marked, 1U);
    }
}

TEST(FastRecurrentSequence, CellsWhoseFunctionsTheKernelLacksStayLoops)
{
    // Softplus is no function vector_functions.h computes: the fast path would run the fused layer on the reference.
    CellCase rnn{Cell::kRNN, 4, 2, 24};
    rnn.rnnFunction = ActivationType::kSOFTPLUS;
    expectFastMatchesReference(cellLoop(rnn), {cellInputs(rnn)}, cellTolerance(rnn));
    EXPECT_EQ(fusedLayersOf(buildCpuPlan(cellLoop(rnn), CpuKernels::kFAST)).fused, 0U);
}

} // namespace
} // namespace kiln::test
