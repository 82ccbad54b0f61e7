// The loop of one direction of an LSTM, GRU or RNN cell, built as the ONNX importer builds it (onnx/importers/rnn.cpp),
// with the inputs and cases the tests of the fused recurrent sequence (plan/passes/recurrence_fusion.h) run on each
// backend: the CUDA kernel and the CPU fast path's, each against the CPU reference kernels running the loop itself.
#pragma once

#include "host_tensor.h"
#include "varied_constants.h"

#include <NvInfer.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kiln::test
{

using namespace nvinfer1;

enum class Cell
{
    kRNN,
    kGRU,
    kLSTM
};

inline int32_t gatesOf(Cell cell)
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
    bool weightsGiven{false}; //!< the recurrence weights as inputs r0.. rather than constants
    std::string prefix{};     //!< before the name of every input and output: loops of one network apart
    //! Where not empty, the network's output of this name (another loop's stacked output) is every gate's input.
    std::string gateInputsFrom{};
    ActivationType rnnFunction{ActivationType::kTANH};
};

//! Gate g's recurrence weights: small, so that the activations stay away from saturation.
inline std::vector<float> recurrenceWeights(CellCase const& c, int32_t g)
{
    std::vector<float> weights = weightsOf(static_cast<size_t>(c.hidden * c.hidden), static_cast<float>(g));
    for (float& w : weights)
    {
        w *= 6.0F / static_cast<float>(c.hidden);
    }
    return weights;
}

inline std::vector<float> hiddenBiasOf(CellCase const& c)
{
    return weightsOf(static_cast<size_t>(c.hidden), 5.0F);
}

//! The network's output named `name`; null where it has none.
inline ITensor* outputNamed(INetworkDefinition& network, std::string const& name)
{
    for (int32_t i = 0; i < network.getNbOutputs(); ++i)
    {
        if (name == network.getOutput(i)->getName())
        {
            return network.getOutput(i);
        }
    }
    return nullptr;
}

//! The loop of one direction of `c`, as the importer builds it: gate inputs x0.. ([S, B, H]) and the initial states
//! h0 (and c0) are the network's inputs; outputs "y" (stacked), "h" and, for an LSTM, "c" (the last states).
inline std::function<void(INetworkDefinition&)> cellLoop(CellCase c)
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
        static std::deque<int32_t> stepCounts;
        stepCounts.push_back(static_cast<int32_t>(c.steps));
        ITensor* trips
            = network.addConstant(Dims{0, {}}, Weights{DataType::kINT32, &stepCounts.back(), 1})->getOutput(0);
        ILoop* loop = network.addLoop();
        loop->addTripLimit(*trips, TripLimit::kCOUNT);
        std::vector<ITensor*> xs;
        std::vector<ITensor*> weights;
        for (int32_t g = 0; g < gates; ++g)
        {
            std::string const name = c.prefix + "x" + std::to_string(g);
            ITensor* x = c.gateInputsFrom.empty() ? network.addInput(name.c_str(), DataType::kFLOAT, sequence)
                                                  : outputNamed(network, c.gateInputsFrom);
            xs.push_back(loop->addIterator(*x, 0, c.backwards)->getOutput(0));
            Dims const square{2, {c.hidden, c.hidden}};
            std::string const given = c.prefix + "r" + std::to_string(g);
            weights.push_back(c.weightsGiven ? network.addInput(given.c_str(), DataType::kFLOAT, square)
                                             : constantOf(network, square, recurrenceWeights(c, g)));
        }
        IRecurrenceLayer* h
            = loop->addRecurrence(*network.addInput((c.prefix + "h0").c_str(), DataType::kFLOAT, state));
        IRecurrenceLayer* cell = c.cell == Cell::kLSTM
            ? loop->addRecurrence(*network.addInput((c.prefix + "c0").c_str(), DataType::kFLOAT, state))
            : nullptr;
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
            output->getOutput(0)->setName((c.prefix + name).c_str());
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

//! The network inputs of `c`, values that vary by position (the recurrence weights too, where they are inputs);
//! another set of them where `another`.
inline std::map<std::string, HostTensor> cellInputs(CellCase const& c, bool another = false)
{
    std::map<std::string, HostTensor> inputs;
    float const shift = another ? 2.5F : 0.0F;
    auto const varied = [shift](size_t count, float phase) {
        std::vector<float> values = weightsOf(count, phase);
        for (size_t i = 0; i < count; ++i)
        {
            values[i] = values[i] * 6.0F + 0.3F * std::sin(0.37F * static_cast<float>(i) + phase + shift);
        }
        return values;
    };
    size_t const sequence = static_cast<size_t>(c.steps * c.batch * c.hidden);
    size_t const state = static_cast<size_t>(c.batch * c.hidden);
    for (int32_t g = 0; g < gatesOf(c.cell); ++g)
    {
        if (c.gateInputsFrom.empty())
        {
            inputs[c.prefix + "x" + std::to_string(g)]
                = fromFloats({c.steps, c.batch, c.hidden}, varied(sequence, static_cast<float>(g)));
        }
        if (c.weightsGiven)
        {
            std::vector<float> weights = recurrenceWeights(c, g);
            if (another)
            {
                std::reverse(weights.begin(), weights.end());
            }
            inputs[c.prefix + "r" + std::to_string(g)] = fromFloats({c.hidden, c.hidden}, weights);
        }
    }
    inputs[c.prefix + "h0"] = fromFloats({c.batch, c.hidden}, varied(state, 7.0F));
    if (c.cell == Cell::kLSTM)
    {
        inputs[c.prefix + "c0"] = fromFloats({c.batch, c.hidden}, varied(state, 8.0F));
    }
    return inputs;
}

//! The loops of `cases` in one network, each case with its own prefix; and their inputs.
inline std::function<void(INetworkDefinition&)> cellLoops(std::vector<CellCase> const& cases)
{
    return [cases](INetworkDefinition& network) {
        for (CellCase const& c : cases)
        {
            cellLoop(c)(network);
        }
    };
}
inline std::map<std::string, HostTensor> cellLoopsInputs(std::vector<CellCase> const& cases)
{
    std::map<std::string, HostTensor> inputs;
    for (CellCase const& c : cases)
    {
        inputs.merge(cellInputs(c));
    }
    return inputs;
}

inline std::vector<CellCase> fusedCases()
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

inline std::string describe(CellCase const& c)
{
    char const* const names[] = {"RNN", "GRU", "LSTM"};
    return c.prefix + std::string(names[static_cast<int>(c.cell)]) + (c.backwards ? " backwards" : "")
        + (c.swapped ? " with operands swapped" : "") + " S=" + std::to_string(c.steps)
        + " B=" + std::to_string(c.batch) + " H=" + std::to_string(c.hidden);
}

} // namespace kiln::test
