// A whole recurrent sequence as one layer: the loop that ONNX's LSTM, GRU (linear_before_reset) and RNN import as
// (onnx/importers/rnn.cpp), one direction of it, with its trip limit, iterators, recurrences, body and outputs. No
// network has one: the fusion pass (plan/passes/recurrence_fusion.h) makes it from the loop it replaces, and only
// plans hold it. Like PointwiseParams, its layer type lies beyond nvinfer1::LayerType's range.
//
// With G the cell's gates (RNN 1, GRU 3, LSTM 4, in ONNX's order of the weights), step k of `steps` reads row
// t = k (from the end where `iteratesBackwards`) of each gate's input x_g, the input's products with the gate's
// weights and biases computed before the loop, and the states h (and LSTM's c) the step before left:
//
//   a_g = x_g[t] + h . R_g^T                       (GRU's h gate: x_h[t] + r * (h . R_h^T + Rb_h))
//   RNN   h' = f(a_i)
//   GRU   z = f(a_z), r = f(a_r), n = g(a_h),    h' = n + z * (h - n)
//   LSTM  i = f(a_i), o = f(a_o), f_ = f(a_f), n = g(a_c),   c' = f_ * c + i * n,   h' = o * h_(c')
//
// f, g and h_ are the cell's activations (gateFunction, candidateFunction, outputFunction). The states are kept in the
// layer's type between steps, as the loop stored them. h' is written to row k of the stacked output (from the end
// where `stacksBackwards`); the last step's h' and c' to the last-value outputs, which hold zeros when no step runs,
// as a loop's outputs do.
#pragma once

#include "network/layer.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace kiln::network
{

//! The layer types of RecurrentSequenceParams and RecurrentSequencePairParams: past every nvinfer1::LayerType and
//! next to kPointwiseLayerType.
inline constexpr nvinfer1::LayerType kRecurrentSequenceLayerType = static_cast<nvinfer1::LayerType>(0x4B05);
inline constexpr nvinfer1::LayerType kRecurrentSequencePairLayerType = static_cast<nvinfer1::LayerType>(0x4B06);

//! An activation of the cell, as an IActivationLayer of this type, alpha and beta computes it.
struct CellFunction
{
    nvinfer1::ActivationType type{nvinfer1::ActivationType::kSIGMOID};
    float alpha{0.0F};
    float beta{0.0F};

    bool operator==(CellFunction const& other) const
    {
        return type == other.type && alpha == other.alpha && beta == other.beta;
    }
};

//! Inputs: x_g for each of the G gates ([S, B, H], S at least `steps`); R_g for each gate ([H, H]); the initial
//! hidden state ([B, H]); the initial cell state ([B, H], LSTM's; absent otherwise); GRU's recurrence bias of its h
//! gate ([1, H], absent where the loop adds none). Outputs: the stacked hidden states ([steps, B, H]), then the last
//! hidden state and the last cell state ([B, H]) where `writesLastHidden` and `writesLastCell` say they are written.
struct RecurrentSequenceParams final : LayerParamsOf<RecurrentSequenceParams, kRecurrentSequenceLayerType, PlanOnly>
{
    int32_t gates{1}; //!< 1: RNN; 3: GRU with linear_before_reset; 4: LSTM
    CellFunction gateFunction;
    CellFunction candidateFunction{nvinfer1::ActivationType::kTANH};
    CellFunction outputFunction{nvinfer1::ActivationType::kTANH};
    bool iteratesBackwards{false};
    bool stacksBackwards{false};
    bool writesLastHidden{false};
    bool writesLastCell{false};

    static constexpr int32_t kRnnGates = 1;
    static constexpr int32_t kGruGates = 3;
    static constexpr int32_t kLstmGates = 4;

    //! The inputs' slots.
    size_t inputSlot(int32_t gate) const
    {
        return static_cast<size_t>(gate);
    }
    size_t weightsSlot(int32_t gate) const
    {
        return static_cast<size_t>(gates + gate);
    }
    size_t initialHiddenSlot() const
    {
        return static_cast<size_t>(2 * gates);
    }
    size_t initialCellSlot() const
    {
        return initialHiddenSlot() + 1;
    }
    size_t hiddenBiasSlot() const
    {
        return initialHiddenSlot() + 2;
    }
    size_t inputCount() const
    {
        return initialHiddenSlot() + 3;
    }
    //! The outputs' count, and the slots of those written.
    size_t outputCount() const
    {
        return 1 + (writesLastHidden ? 1 : 0) + (writesLastCell ? 1 : 0);
    }
    size_t lastHiddenSlot() const
    {
        return 1;
    }
    size_t lastCellSlot() const
    {
        return writesLastHidden ? 2 : 1;
    }

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.gates, "recurrence gates");
        functionFields(self.gateFunction, "recurrence gate function", field);
        functionFields(self.candidateFunction, "recurrence candidate function", field);
        functionFields(self.outputFunction, "recurrence output function", field);
        field(self.iteratesBackwards, "recurrence iterates backwards");
        field(self.stacksBackwards, "recurrence stacks backwards");
        field(self.writesLastHidden, "recurrence writes the last hidden state");
        field(self.writesLastCell, "recurrence writes the last cell state");
    }

    template <typename Function, typename Field>
    static void functionFields(Function& function, char const* what, Field&& field)
    {
        field(function.type, what);
        field(function.alpha, what);
        field(function.beta, what);
    }

    //! A network never holds one (the builder makes it after inference): fails saying so.
    bool infer(InferenceContext& ctx) const override;
};

//! Two recurrent sequences that read nothing of each other, as the two directions of a bidirectional layer are, run as
//! one layer so that their steps run side by side (plan/passes/recurrence_pairing.h): `first`'s inputs then
//! `second`'s, and `first`'s outputs then `second`'s, each in the slots its own parameters give. Both have the same
//! gates.
struct RecurrentSequencePairParams final
    : LayerParamsOf<RecurrentSequencePairParams, kRecurrentSequencePairLayerType, PlanOnly>
{
    RecurrentSequenceParams first;
    RecurrentSequenceParams second;

    //! Where `second`'s inputs and outputs start among the layer's.
    size_t secondInput() const
    {
        return first.inputCount();
    }
    size_t secondOutput() const
    {
        return first.outputCount();
    }
    //! `slots` (a value per input of the layer, or per output where `outputs`) cut into first's and second's.
    template <typename Slots>
    std::pair<Slots, Slots> split(Slots const& slots, bool outputs) const
    {
        auto const at
            = slots.begin() + static_cast<ptrdiff_t>(std::min(outputs ? secondOutput() : secondInput(), slots.size()));
        return {Slots(slots.begin(), at), Slots(at, slots.end())};
    }

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        RecurrentSequenceParams::fields(self.first, field);
        RecurrentSequenceParams::fields(self.second, field);
    }

    //! A network never holds one (the builder makes it after inference): fails saying so.
    bool infer(InferenceContext& ctx) const override;
};

} // namespace kiln::network
