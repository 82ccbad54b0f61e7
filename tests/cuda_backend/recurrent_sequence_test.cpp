// Loops over an LSTM, GRU or RNN cell, built as the ONNX importer builds them (onnx/importers/rnn.cpp), become one
// recurrent sequence layer in CUDA plans (plan/passes/recurrence_fusion.h); loops with anything more stay loops.
// Without a GPU: the plans' layers, and the CPU reference of the fused layer (run directly on the plan's parameters)
// against the CPU backend's run of the loop itself. With one: the persistent kernel against the CPU backend's loop,
// in FP32 and FP16, forwards and backwards, with more states than the grid has warps.
#include "backend/cpu/layer_kernels.h"
#include "backend_comparison.h"
#include "network/fused/recurrent_sequence.h"
#include "plan/plan_graph.h"

#include <cmath>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using kiln::network::RecurrentSequenceParams;

enum class Cell
{
    kRNN,
    kGRU,
    kLSTM
};

int32_t gatesOf(Cell cell)
{
    return cell == Cell::kLSTM ? 4 : cell == Cell::kGRU ? 3 : 1;
}

//! What a loop holds beyond the cell, which must keep it a loop.
enum class Extra
{
    kNONE,
    kCLIP,             //!< ONNX's clip on the first gate
    kRESET_FIRST,      //!< GRU's default form: the reset gate multiplies the state before the product
    kNO_STACKED_OUTPUT //!< only the last hidden state leaves the loop
};

struct CellCase
{
    Cell cell{Cell::kLSTM};
    int64_t steps{5};
    int64_t batch{3};
    int64_t hidden{40};
    bool backwards{false};
    bool swapped{false};    //!< every commutative operation's operands in the other order
    bool hiddenBias{false}; //!< GRU: the recurrence bias of its h gate
    Extra extra{Extra::kNONE};
    ActivationType rnnFunction{ActivationType::kTANH};
};

//! Gate g's recurrence weights: small, so that the activations stay away from saturation.
std::vector<float> recurrenceWeights(CellCase const& c, int32_t g)
{
    std::vector<float> weights = weightsOf(static_cast<size_t>(c.hidden * c.hidden), static_cast<float>(g));
    for (float& w : weights)
    {
        w *= 6.0F / static_cast<float>(c.hidden);
    }
    return weights;
}

std::vector<float> hiddenBiasOf(CellCase const& c)
{
    return weightsOf(static_cast<size_t>(c.hidden), 5.0F);
}

//! The loop of one direction of `c`, as the importer builds it: gate inputs x0.. ([S, B, H]) and the initial states
//! h0 (and c0) are the network's inputs; outputs "y" (stacked), "h" and, for an LSTM, "c" (the last states).
NetworkMaker cellLoop(CellCase c)
{
    return [c](INetworkDefinition& network) {
        auto const op = [&](ITensor& a, ITensor& b, ElementWiseOperation operation) -> ITensor& {
            bool const commutes = operation != ElementWiseOperation::kSUB;
            ITensor& first = c.swapped && commutes ? b : a;
            ITensor& second = c.swapped && commutes ? a : b;
            return *network.addElementWise(first, second, operation)->getOutput(0);
        };
        auto const act = [&](ITensor& x, ActivationType type) -> ITensor& {
            return *network.addActivation(x, type)->getOutput(0);
        };
        Dims const sequence{3, {c.steps, c.batch, c.hidden}};
        Dims const state{2, {c.batch, c.hidden}};
        int32_t const gates = gatesOf(c.cell);
        static std::vector<int32_t> stepCounts;
        stepCounts.push_back(static_cast<int32_t>(c.steps));
        ITensor* trips
            = network.addConstant(Dims{0, {}}, Weights{DataType::kINT32, &stepCounts.back(), 1})->getOutput(0);
        ILoop* loop = network.addLoop();
        loop->addTripLimit(*trips, TripLimit::kCOUNT);
        std::vector<ITensor*> xs;
        std::vector<ITensor*> weights;
        for (int32_t g = 0; g < gates; ++g)
        {
            std::string const name = "x" + std::to_string(g);
            ITensor* x = network.addInput(name.c_str(), DataType::kFLOAT, sequence);
            xs.push_back(loop->addIterator(*x, 0, c.backwards)->getOutput(0));
            weights.push_back(constantOf(network, Dims{2, {c.hidden, c.hidden}}, recurrenceWeights(c, g)));
        }
        IRecurrenceLayer* h = loop->addRecurrence(*network.addInput("h0", DataType::kFLOAT, state));
        IRecurrenceLayer* cell
            = c.cell == Cell::kLSTM ? loop->addRecurrence(*network.addInput("c0", DataType::kFLOAT, state)) : nullptr;
        ITensor& hidden = *h->getOutput(0);
        auto const product = [&](ITensor& left, int32_t g) -> ITensor& {
            return *network.addMatrixMultiply(left, MatrixOperation::kNONE, *weights[g], MatrixOperation::kTRANSPOSE)
                        ->getOutput(0);
        };
        auto const gate
            = [&](int32_t g) -> ITensor& { return op(*xs[g], product(hidden, g), ElementWiseOperation::kSUM); };
        ITensor* next = nullptr;
        ITensor* nextCell = nullptr;
        if (c.cell == Cell::kRNN)
        {
            next = &act(gate(0), c.rnnFunction);
        }
        else if (c.cell == Cell::kGRU)
        {
            ITensor& update = act(gate(0), ActivationType::kSIGMOID);
            ITensor& reset = act(gate(1), ActivationType::kSIGMOID);
            ITensor* recurrent = nullptr;
            if (c.extra == Extra::kRESET_FIRST)
            {
                recurrent = &product(op(reset, hidden, ElementWiseOperation::kPROD), 2);
            }
            else
            {
                ITensor* p = &product(hidden, 2);
                if (c.hiddenBias)
                {
                    p = &op(
                        *p, *constantOf(network, Dims{2, {1, c.hidden}}, hiddenBiasOf(c)), ElementWiseOperation::kSUM);
                }
                recurrent = &op(reset, *p, ElementWiseOperation::kPROD);
            }
            ITensor& candidate = act(op(*xs[2], *recurrent, ElementWiseOperation::kSUM), ActivationType::kTANH);
            ITensor& difference = op(hidden, candidate, ElementWiseOperation::kSUB);
            next = &op(candidate, op(update, difference, ElementWiseOperation::kPROD), ElementWiseOperation::kSUM);
        }
        else
        {
            ITensor* first = &gate(0);
            if (c.extra == Extra::kCLIP)
            {
                IActivationLayer* clip = network.addActivation(*first, ActivationType::kCLIP);
                clip->setAlpha(-3.0F);
                clip->setBeta(3.0F);
                first = clip->getOutput(0);
            }
            ITensor& in = act(*first, ActivationType::kSIGMOID);
            ITensor& forget = act(gate(2), ActivationType::kSIGMOID);
            ITensor& candidate = act(gate(3), ActivationType::kTANH);
            nextCell = &op(op(forget, *cell->getOutput(0), ElementWiseOperation::kPROD),
                op(in, candidate, ElementWiseOperation::kPROD), ElementWiseOperation::kSUM);
            ITensor& out = act(gate(1), ActivationType::kSIGMOID);
            next = &op(out, act(*nextCell, ActivationType::kTANH), ElementWiseOperation::kPROD);
            cell->setInput(1, *nextCell);
        }
        h->setInput(1, *next);
        auto const mark = [&](ILoopOutputLayer* output, char const* name) {
            output->getOutput(0)->setName(name);
            network.markOutput(*output->getOutput(0));
        };
        if (c.extra != Extra::kNO_STACKED_OUTPUT)
        {
            ILoopOutputLayer* stacked
                = loop->addLoopOutput(*next, c.backwards ? LoopOutput::kREVERSE : LoopOutput::kCONCATENATE, 0);
            stacked->setInput(1, *trips);
            mark(stacked, "y");
        }
        mark(loop->addLoopOutput(*next, LoopOutput::kLAST_VALUE), "h");
        if (nextCell != nullptr)
        {
            mark(loop->addLoopOutput(*nextCell, LoopOutput::kLAST_VALUE), "c");
        }
    };
}

//! The network inputs of `c`, values that vary by position.
std::map<std::string, HostTensor> cellInputs(CellCase const& c)
{
    std::map<std::string, HostTensor> inputs;
    auto const varied = [](size_t count, float phase) {
        std::vector<float> values = weightsOf(count, phase);
        for (size_t i = 0; i < count; ++i)
        {
            values[i] = values[i] * 6.0F + 0.3F * std::sin(0.37F * static_cast<float>(i) + phase);
        }
        return values;
    };
    size_t const sequence = static_cast<size_t>(c.steps * c.batch * c.hidden);
    size_t const state = static_cast<size_t>(c.batch * c.hidden);
    for (int32_t g = 0; g < gatesOf(c.cell); ++g)
    {
        inputs["x" + std::to_string(g)]
            = fromFloats({c.steps, c.batch, c.hidden}, varied(sequence, static_cast<float>(g)));
    }
    inputs["h0"] = fromFloats({c.batch, c.hidden}, varied(state, 7.0F));
    if (c.cell == Cell::kLSTM)
    {
        inputs["c0"] = fromFloats({c.batch, c.hidden}, varied(state, 8.0F));
    }
    return inputs;
}

std::vector<CellCase> fusedCases()
{
    CellCase lstm;
    CellCase lstmBackwardsSwapped{Cell::kLSTM, 6, 2, 33, true, true};
    CellCase gru{Cell::kGRU, 5, 3, 40, false, false, true};
    CellCase gruBackwards{Cell::kGRU, 4, 2, 24, true, true, false};
    CellCase rnn{Cell::kRNN, 7, 4, 32};
    CellCase rnnRelu{Cell::kRNN, 3, 1, 50, true, true};
    rnnRelu.rnnFunction = ActivationType::kRELU;
    return {lstm, lstmBackwardsSwapped, gru, gruBackwards, rnn, rnnRelu};
}

std::string describe(CellCase const& c)
{
    char const* const names[] = {"RNN", "GRU", "LSTM"};
    return std::string(names[static_cast<int>(c.cell)]) + (c.backwards ? " backwards" : "")
        + (c.swapped ? " with operands swapped" : "") + " S=" + std::to_string(c.steps)
        + " B=" + std::to_string(c.batch) + " H=" + std::to_string(c.hidden);
}

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
