// Loops over an LSTM, GRU or RNN cell, built as the ONNX importer builds them (onnx/importers/rnn.cpp), become one
// recurrent sequence layer in CUDA plans (plan/passes/recurrence_fusion.h); loops with anything more stay loops.
// Without a GPU: the plans' layers, and the CPU reference of the fused layer (run directly on the plan's parameters)
// against the CPU backend's run of the loop itself. With one: the persistent kernel against the CPU backend's loop,
// in FP32 and FP16, forwards and backwards, with more states than the grid has warps.
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

//! The CPU reference of the fused layer, run on the CUDA plan's parameters, against the CPU backend running the loop.
TEST(RecurrentSequence, TheFusedLayersReferenceComputesTheLoop)
{
    for (CellCase const& c : fusedCases())
    {
        kiln::plan::PlanModel const model = cudaPlanOf(cellLoop(c));
        std::vector<kiln::plan::LayerRecord const*> const fused = fusedLayers(model);
        ASSERT_EQ(fused.size(), 1U) << describe(c);
        auto const& params = *kiln::plan::paramsOf<RecurrentSequenceParams>(*fused[0]);
        std::map<std::string, HostTensor> inputs = cellInputs(c);
        std::vector<HostTensor> weights;
        for (int32_t g = 0; g < params.gates; ++g)
        {
            weights.push_back(fromFloats({c.hidden, c.hidden}, recurrenceWeights(c, g)));
        }
        HostTensor const bias = fromFloats({1, c.hidden}, hiddenBiasOf(c));
        kiln::cpu::LayerInputs views(params.inputCount());
        for (int32_t g = 0; g < params.gates; ++g)
        {
            views[params.inputSlot(g)] = inputs.at("x" + std::to_string(g)).constView();
            views[params.weightsSlot(g)] = weights[static_cast<size_t>(g)].constView();
        }
        views[params.initialHiddenSlot()] = inputs.at("h0").constView();
        if (c.cell == Cell::kLSTM)
        {
            views[params.initialCellSlot()] = inputs.at("c0").constView();
        }
        if (c.hiddenBias)
        {
            views[params.hiddenBiasSlot()] = bias.constView();
        }
        std::vector<HostTensor> results{zeros({c.steps, c.batch, c.hidden}), zeros({c.batch, c.hidden})};
        if (c.cell == Cell::kLSTM)
        {
            results.push_back(zeros({c.batch, c.hidden}));
        }
        kiln::cpu::LayerOutputs outputs;
        for (HostTensor& result : results)
        {
            outputs.push_back(result.view());
        }
        kiln::cpu::run(params, views, outputs);
        std::map<std::string, HostTensor> const loop = runOn(kiln::Backend::kCPU, cellLoop(c), inputs);
        std::vector<std::string> const names{"y", "h", "c"};
        for (size_t o = 0; o < results.size(); ++o)
        {
            expectSameOutput(results[o], loop.at(names[o]), Tolerance{1e-6, 1e-5}, describe(c) + " " + names[o]);
        }
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

} // namespace
