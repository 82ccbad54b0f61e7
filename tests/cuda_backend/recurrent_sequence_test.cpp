// Loops over an LSTM, GRU or RNN cell, built as the ONNX importer builds them (onnx/importers/rnn.cpp), become one
// recurrent sequence layer in CUDA plans (plan/passes/recurrence_fusion.h); loops with anything more stay loops.
// Without a GPU: the plans' layers, and the CPU reference of the fused layer (run directly on the plan's parameters)
// against the CPU backend's run of the loop itself. With one: the persistent kernel against the CPU backend's loop,
// in FP32 and FP16, forwards and backwards, with more states than the grid has warps. Two loops that read nothing of
// each other (a bidirectional layer's directions) become one pair of sequences, which runs as one kernel; loops that
// read each other, or of different cells, stay apart.
#include "backend/cpu/layer_kernels.h"
#include "backend_comparison.h"
#include "network/fused/recurrent_sequence.h"
#include "plan/plan_graph.h"
#include "recurrent_cells.h"

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using kiln::network::RecurrentSequenceParams;

std::vector<kiln::plan::LayerRecord const*> fusedLayers(kiln::plan::PlanModel const& model)
{
    return layersOfType(model, kiln::network::kRecurrentSequenceLayerType);
}

int64_t loopLayers(kiln::plan::PlanModel const& model)
{
    return layersOfKind(model, LayerType::kTRIP_LIMIT) + layersOfKind(model, LayerType::kRECURRENCE)
        + layersOfKind(model, LayerType::kITERATOR) + layersOfKind(model, LayerType::kLOOP_OUTPUT);
}

TEST(RecurrentSequence, LoopsOfTheCellsBecomeOneLayer)
{
    for (CellCase const& c : fusedCases())
    {
        for (bool fp16 : {false, true})
        {
            kiln::plan::PlanModel const model = cudaPlanOf(cellLoop(c), fp16);
            std::vector<kiln::plan::LayerRecord const*> const fused = fusedLayers(model);
            ASSERT_EQ(fused.size(), 1U) << describe(c);
            EXPECT_EQ(loopLayers(model), 0) << describe(c);
            EXPECT_EQ(fused[0]->precision, fp16 ? DataType::kHALF : DataType::kFLOAT) << describe(c);
            auto const* params = kiln::plan::paramsOf<RecurrentSequenceParams>(*fused[0]);
            ASSERT_NE(params, nullptr);
            EXPECT_EQ(params->gates, gatesOf(c.cell)) << describe(c);
            EXPECT_EQ(params->iteratesBackwards, c.backwards) << describe(c);
            EXPECT_EQ(params->stacksBackwards, c.backwards) << describe(c);
            EXPECT_TRUE(params->writesLastHidden) << describe(c);
            EXPECT_EQ(params->writesLastCell, c.cell == Cell::kLSTM) << describe(c);
            EXPECT_EQ(params->gateFunction.type, c.cell == Cell::kRNN ? c.rnnFunction : ActivationType::kSIGMOID)
                << describe(c);
            // Each gate's input in ONNX's order of the weights: i, o, f, c for an LSTM.
            for (int32_t g = 0; g < params->gates; ++g)
            {
                int32_t const x = fused[0]->inputs[params->inputSlot(g)];
                EXPECT_EQ(model.tensors[static_cast<size_t>(x)].name, "x" + std::to_string(g)) << describe(c);
            }
            EXPECT_EQ(fused[0]->inputs[params->hiddenBiasSlot()] >= 0, c.hiddenBias) << describe(c);
        }
    }
}

TEST(RecurrentSequence, LoopsWithMoreThanTheCellStayLoops)
{
    CellCase clipped;
    clipped.extra = Extra::kCLIP;
    CellCase resetFirst{Cell::kGRU};
    resetFirst.extra = Extra::kRESET_FIRST;
    CellCase lastOnly{Cell::kRNN};
    lastOnly.extra = Extra::kNO_STACKED_OUTPUT;
    for (CellCase const& c : {clipped, resetFirst, lastOnly})
    {
        kiln::plan::PlanModel const model = cudaPlanOf(cellLoop(c));
        EXPECT_TRUE(fusedLayers(model).empty()) << describe(c);
        EXPECT_GT(loopLayers(model), 0) << describe(c);
    }
}

//! What the CPU reference of one fused sequence of case `c` reads and writes: the case's inputs and weights, and
//! zeros for the stacked output and the last states.
struct ReferenceRun
{
    std::map<std::string, HostTensor> inputs;
    std::vector<HostTensor> weights;
    HostTensor bias;
    std::vector<HostTensor> results;
    kiln::cpu::LayerInputs views;
    kiln::cpu::LayerOutputs outputs;

    ReferenceRun(RecurrentSequenceParams const& params, CellCase const& c)
        : inputs(cellInputs(c))
        , bias(fromFloats({1, c.hidden}, hiddenBiasOf(c)))
        , views(params.inputCount())
    {
        for (int32_t g = 0; g < params.gates; ++g)
        {
            weights.push_back(fromFloats({c.hidden, c.hidden}, recurrenceWeights(c, g)));
        }
        for (int32_t g = 0; g < params.gates; ++g)
        {
            views[params.inputSlot(g)] = inputs.at(c.prefix + "x" + std::to_string(g)).constView();
            views[params.weightsSlot(g)] = weights[static_cast<size_t>(g)].constView();
        }
        views[params.initialHiddenSlot()] = inputs.at(c.prefix + "h0").constView();
        if (c.cell == Cell::kLSTM)
        {
            views[params.initialCellSlot()] = inputs.at(c.prefix + "c0").constView();
        }
        if (c.hiddenBias)
        {
            views[params.hiddenBiasSlot()] = bias.constView();
        }
        results = {zeros({c.steps, c.batch, c.hidden}), zeros({c.batch, c.hidden})};
        if (c.cell == Cell::kLSTM)
        {
            results.push_back(zeros({c.batch, c.hidden}));
        }
        for (HostTensor& result : results)
        {
            outputs.push_back(result.view());
        }
    }

    //! The results against the CPU backend's run of the loop (`loop`: its outputs by name).
    void expectSameAs(std::map<std::string, HostTensor> const& loop, CellCase const& c) const
    {
        std::vector<std::string> const names{"y", "h", "c"};
        for (size_t o = 0; o < results.size(); ++o)
        {
            expectSameOutput(
                results[o], loop.at(c.prefix + names[o]), Tolerance{1e-6, 1e-5}, describe(c) + " " + names[o]);
        }
    }
};

//! The CPU reference of the fused layer, run on the CUDA plan's parameters, against the CPU backend running the loop.
TEST(RecurrentSequence, TheFusedLayersReferenceComputesTheLoop)
{
    for (CellCase const& c : fusedCases())
    {
        kiln::plan::PlanModel const model = cudaPlanOf(cellLoop(c));
        std::vector<kiln::plan::LayerRecord const*> const fused = fusedLayers(model);
        ASSERT_EQ(fused.size(), 1U) << describe(c);
        auto const& params = *kiln::plan::paramsOf<RecurrentSequenceParams>(*fused[0]);
        ReferenceRun run(params, c);
        kiln::cpu::run(params, run.views, run.outputs);
        run.expectSameAs(runOn(kiln::Backend::kCPU, cellLoop(c), run.inputs), c);
    }
}

//! A bidirectional layer's two directions, each over inputs of its own: cells alike, of the sizes given.
std::vector<std::vector<CellCase>> pairCases()
{
    CellCase lstmForwards{Cell::kLSTM, 5, 3, 40};
    CellCase lstmBackwards{Cell::kLSTM, 6, 2, 33, true, true};
    CellCase gruForwards{Cell::kGRU, 5, 3, 40, false, false, true};
    CellCase gruBackwards{Cell::kGRU, 5, 3, 40, true, false, true};
    CellCase rnnForwards{Cell::kRNN, 7, 4, 32};
    CellCase rnnBackwards{Cell::kRNN, 7, 4, 32, true};
    rnnForwards.rnnFunction = ActivationType::kRELU;
    rnnBackwards.rnnFunction = ActivationType::kRELU;
    std::vector<std::vector<CellCase>> pairs{
        {lstmForwards, lstmBackwards}, {gruForwards, gruBackwards}, {rnnForwards, rnnBackwards}};
    for (std::vector<CellCase>& pair : pairs)
    {
        pair[0].prefix = "f";
        pair[1].prefix = "b";
    }
    return pairs;
}

std::string describe(std::vector<CellCase> const& cases)
{
    return describe(cases[0]) + " beside " + describe(cases[1]);
}

TEST(RecurrentSequence, IndependentSequencesRunAsOnePair)
{
    for (std::vector<CellCase> const& cases : pairCases())
    {
        for (bool fp16 : {false, true})
        {
            kiln::plan::PlanModel const model = cudaPlanOf(cellLoops(cases), fp16);
            std::vector<kiln::plan::LayerRecord const*> const pairs
                = layersOfType(model, kiln::network::kRecurrentSequencePairLayerType);
            ASSERT_EQ(pairs.size(), 1U) << describe(cases);
            EXPECT_TRUE(fusedLayers(model).empty()) << describe(cases);
            EXPECT_EQ(pairs[0]->precision, fp16 ? DataType::kHALF : DataType::kFLOAT) << describe(cases);
            auto const* pair = kiln::plan::paramsOf<kiln::network::RecurrentSequencePairParams>(*pairs[0]);
            ASSERT_NE(pair, nullptr);
            EXPECT_EQ(pair->first.iteratesBackwards, cases[0].backwards) << describe(cases);
            EXPECT_EQ(pair->second.iteratesBackwards, cases[1].backwards) << describe(cases);
            auto const nameOf = [&](int32_t t) { return model.tensors[static_cast<size_t>(t)].name; };
            EXPECT_EQ(nameOf(pairs[0]->inputs[pair->first.inputSlot(0)]), "fx0") << describe(cases);
            EXPECT_EQ(nameOf(pairs[0]->inputs[pair->secondInput() + pair->second.inputSlot(0)]), "bx0")
                << describe(cases);
            EXPECT_EQ(nameOf(pairs[0]->outputs[0]), "fy") << describe(cases);
            EXPECT_EQ(nameOf(pairs[0]->outputs[pair->secondOutput()]), "by") << describe(cases);
        }
    }
}

TEST(RecurrentSequence, SequencesThatReadEachOtherOrDifferStayApart)
{
    CellCase first{Cell::kLSTM, 5, 3, 40};
    first.prefix = "a";
    CellCase second = first;
    second.prefix = "b";
    second.gateInputsFrom = "ay"; // the first's stacked output
    CellCase rnn{Cell::kRNN, 5, 3, 40};
    rnn.prefix = "r";
    for (std::vector<CellCase> const& cases : {std::vector<CellCase>{first, second}, std::vector<CellCase>{first, rnn}})
    {
        kiln::plan::PlanModel const model = cudaPlanOf(cellLoops(cases));
        EXPECT_TRUE(layersOfType(model, kiln::network::kRecurrentSequencePairLayerType).empty()) << describe(cases);
        EXPECT_EQ(fusedLayers(model).size(), 2U) << describe(cases);
    }
}

//! The CPU reference of a pair, run on the CUDA plan's parameters, against the CPU backend running both loops.
TEST(RecurrentSequence, ThePairsReferenceComputesBothLoops)
{
    for (std::vector<CellCase> const& cases : pairCases())
    {
        kiln::plan::PlanModel const model = cudaPlanOf(cellLoops(cases));
        std::vector<kiln::plan::LayerRecord const*> const pairs
            = layersOfType(model, kiln::network::kRecurrentSequencePairLayerType);
        ASSERT_EQ(pairs.size(), 1U) << describe(cases);
        auto const& pair = *kiln::plan::paramsOf<kiln::network::RecurrentSequencePairParams>(*pairs[0]);
        ReferenceRun first(pair.first, cases[0]);
        ReferenceRun second(pair.second, cases[1]);
        kiln::cpu::LayerInputs views = first.views;
        views.insert(views.end(), second.views.begin(), second.views.end());
        kiln::cpu::LayerOutputs outputs = first.outputs;
        outputs.insert(outputs.end(), second.outputs.begin(), second.outputs.end());
        kiln::cpu::run(pair, views, outputs);
        std::map<std::string, HostTensor> const loops
            = runOn(kiln::Backend::kCPU, cellLoops(cases), cellLoopsInputs(cases));
        first.expectSameAs(loops, cases[0]);
        second.expectSameAs(loops, cases[1]);
    }
}

TEST(RecurrentSequence, TheKernelMatchesTheLoopOnTheReference)
{
    if (!gpuPresent())
    {
        GTEST_SKIP() << "no GPU";
    }
    std::vector<CellCase> cases = fusedCases();
    // More states than the grid has warps (a block of 16 warps a multiprocessor): warps take several each step.
    cases.push_back(CellCase{Cell::kLSTM, 3, 40, 96});
    cases.push_back(CellCase{Cell::kGRU, 2, 64, 72, true, false, true});
    for (CellCase const& c : cases)
    {
        for (bool fp16 : {false, true})
        {
            expectBackendsAgree(cellLoop(c), cellInputs(c), fp16, describe(c) + (fp16 ? " fp16" : " fp32"));
        }
    }
}

TEST(RecurrentSequence, ThePairMatchesTheLoopsOnTheReference)
{
    if (!gpuPresent())
    {
        GTEST_SKIP() << "no GPU";
    }
    std::vector<std::vector<CellCase>> cases = pairCases();
    // More states than the grid has warps, one sequence longer than the other.
    CellCase longer{Cell::kLSTM, 4, 40, 96};
    longer.prefix = "f";
    CellCase shorter{Cell::kLSTM, 2, 24, 80, true};
    shorter.prefix = "b";
    cases.push_back({longer, shorter});
    for (std::vector<CellCase> const& pair : cases)
    {
        for (bool fp16 : {false, true})
        {
            expectBackendsAgree(
                cellLoops(pair), cellLoopsInputs(pair), fp16, describe(pair) + (fp16 ? " fp16" : " fp32"));
        }
    }
}

} // namespace
