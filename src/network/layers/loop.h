// ILoop (TensorRT's loops) and its boundary layers. A loop is not a layer: the network holds its boundary layers, each
// naming its loop by a number (`loop`, unique in the network), and the layers between them form its body. Which layers
// belong to the body is not declared: every layer that depends on the loop's recurrences or iterators runs once per
// iteration (plan/plan_loops.h finds them); a layer that depends on neither is loop-invariant and runs once, before.
// - IRecurrenceLayer: output 0 is input 0 (the initial value) in the first iteration and, in each later one, what
//   input 1 (the next value, set with setInput(1), computed in the body) held at the end of the one before. The next
//   value is the loop's one back edge, so the network keeps it out of the layer's inputs (which define the order of
//   inference); the plan records it as input 1. Output 1 (internal) holds the next values between the end of an
//   iteration and the start of the next, so that recurrences reading one another's outputs update together.
// - ITripLimitLayer: a 0-D INT32/INT64 trip count (kCOUNT, known before the loop starts) or a 0-D BOOL condition
//   (kWHILE, computed in the body from the recurrences, checked before each iteration's other work). At most one of
//   each; at least one.
// - IIteratorLayer: its input's slice along `axis` at the iteration's index (from the end where `reverse`: index
//   trip count - 1 - i, which needs a kCOUNT limit).
// - ILoopOutputLayer: kLAST_VALUE gives input 0 as the last iteration computed it; kCONCATENATE (kREVERSE) stacks
//   every iteration's input 0 along a new axis `axis` in iteration order (reversed), the axis's length given by input
//   1, a 0-D INT32/INT64 shape tensor set with setInput(1). Kiln zero-fills what no iteration wrote (a loop that ran
//   fewer iterations than the length, or none at all).
// The execution context runs the boundary layers itself (runtime/loop_runner.h); no backend has a kernel for them.
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

class Loop;

//! What every boundary layer's parameters hold: the loop it bounds.
struct LoopBoundary
{
    int32_t loop{-1}; //!< the loop's number in its network
};

struct RecurrenceParams final
    : LayerParamsOf<RecurrenceParams, nvinfer1::LayerType::kRECURRENCE, nvinfer1::IRecurrenceLayer>,
      LoopBoundary
{
    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.loop, "loop");
    }
    //! The value, then the staged next value (internal).
    int32_t nbOutputs() const override
    {
        return 2;
    }
    bool infer(InferenceContext& ctx) const override;
    bool keepsItsTypes() const override
    {
        return true;
    }
};

struct TripLimitParams final
    : LayerParamsOf<TripLimitParams, nvinfer1::LayerType::kTRIP_LIMIT, nvinfer1::ITripLimitLayer>,
      LoopBoundary
{
    nvinfer1::TripLimit kind{nvinfer1::TripLimit::kCOUNT};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.loop, "loop");
        field(self.kind, "trip limit");
    }
    int32_t nbOutputs() const override
    {
        return 0;
    }
    bool infer(InferenceContext& ctx) const override;
    bool keepsItsTypes() const override
    {
        return true;
    }
};

struct IteratorParams final : LayerParamsOf<IteratorParams, nvinfer1::LayerType::kITERATOR, nvinfer1::IIteratorLayer>,
                              LoopBoundary
{
    int32_t axis{0};
    bool reverse{false};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.loop, "loop");
        field(self.axis, "iterator axis");
        field(self.reverse, "iterator reverse");
    }
    bool infer(InferenceContext& ctx) const override;
    bool keepsItsTypes() const override
    {
        return true;
    }
};

struct LoopOutputParams final
    : LayerParamsOf<LoopOutputParams, nvinfer1::LayerType::kLOOP_OUTPUT, nvinfer1::ILoopOutputLayer>,
      LoopBoundary
{
    nvinfer1::LoopOutput kind{nvinfer1::LoopOutput::kLAST_VALUE};
    int32_t axis{0};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.loop, "loop");
        field(self.kind, "loop output kind");
        field(self.axis, "loop output axis");
    }
    bool infer(InferenceContext& ctx) const override;
    bool keepsItsTypes() const override
    {
        return true;
    }
    //! The length of a concatenation is a shape tensor.
    bool isParameterInput(size_t index) const override
    {
        return index == 1;
    }
    bool stacks() const
    {
        return kind != nvinfer1::LoopOutput::kLAST_VALUE;
    }
};

//! What the boundary layers share: the loop they belong to.
template <typename Api, typename Params>
class LoopBoundaryLayer : public LayerBase<Api, Params>
{
public:
    LoopBoundaryLayer(Network& network, std::string name, std::vector<Tensor*> inputs, Params params, int32_t minInputs,
        int32_t maxInputs, Loop& loop)
        : LayerBase<Api, Params>(network, std::move(name), std::move(inputs), std::move(params), minInputs, maxInputs)
        , mLoop(loop)
    {
    }
    nvinfer1::ILoop* getLoop() const noexcept override;

protected:
    Loop& loop() const
    {
        return mLoop;
    }

private:
    Loop& mLoop;
};

class RecurrenceLayer final : public LoopBoundaryLayer<nvinfer1::IRecurrenceLayer, RecurrenceParams>
{
public:
    using LoopBoundaryLayer::LoopBoundaryLayer;
    //! The initial value, and the next value once set.
    int32_t getNbInputs() const noexcept override
    {
        return mNext != nullptr ? 2 : 1;
    }
    nvinfer1::ITensor* getInput(int32_t index) const noexcept override;
    void setInput(int32_t index, nvinfer1::ITensor& tensor) noexcept override;
    //! The API shows one output; the staged next value stays internal.
    int32_t getNbOutputs() const noexcept override
    {
        return 1;
    }
    nvinfer1::ITensor* getOutput(int32_t index) const noexcept override
    {
        return index == 0 ? outputs()[0] : nullptr;
    }
    Tensor* nextValue() const
    {
        return mNext;
    }

private:
    Tensor* mNext{nullptr};
};

class TripLimitLayer final : public LoopBoundaryLayer<nvinfer1::ITripLimitLayer, TripLimitParams>
{
public:
    using LoopBoundaryLayer::LoopBoundaryLayer;
    nvinfer1::TripLimit getTripLimit() const noexcept override
    {
        return static_cast<TripLimitParams const&>(params()).kind;
    }
};

class IteratorLayer final : public LoopBoundaryLayer<nvinfer1::IIteratorLayer, IteratorParams>
{
public:
    using LoopBoundaryLayer::LoopBoundaryLayer;
    void setAxis(int32_t axis) noexcept override
    {
        network().invalidate();
        mutableParams().axis = axis;
    }
    int32_t getAxis() const noexcept override
    {
        return static_cast<IteratorParams const&>(params()).axis;
    }
    void setReverse(bool reverse) noexcept override
    {
        network().invalidate();
        mutableParams().reverse = reverse;
    }
    bool getReverse() const noexcept override
    {
        return static_cast<IteratorParams const&>(params()).reverse;
    }
};

class LoopOutputLayer final : public LoopBoundaryLayer<nvinfer1::ILoopOutputLayer, LoopOutputParams>
{
public:
    using LoopBoundaryLayer::LoopBoundaryLayer;
    nvinfer1::LoopOutput getLoopOutput() const noexcept override
    {
        return static_cast<LoopOutputParams const&>(params()).kind;
    }
    void setAxis(int32_t axis) noexcept override
    {
        network().invalidate();
        mutableParams().axis = axis;
    }
    int32_t getAxis() const noexcept override
    {
        return static_cast<LoopOutputParams const&>(params()).axis;
    }
};

class Loop final : public nvinfer1::ILoop
{
public:
    Loop(Network& network, int32_t number)
        : mNetwork(network)
        , mNumber(number)
    {
    }
    nvinfer1::IRecurrenceLayer* addRecurrence(nvinfer1::ITensor& initialValue) noexcept override;
    nvinfer1::ITripLimitLayer* addTripLimit(nvinfer1::ITensor& tensor, nvinfer1::TripLimit limit) noexcept override;
    nvinfer1::IIteratorLayer* addIterator(nvinfer1::ITensor& tensor, int32_t axis, bool reverse) noexcept override;
    nvinfer1::ILoopOutputLayer* addLoopOutput(
        nvinfer1::ITensor& tensor, nvinfer1::LoopOutput outputKind, int32_t axis) noexcept override;
    void setName(char const* name) noexcept override
    {
        mName = name != nullptr ? name : "";
    }
    char const* getName() const noexcept override
    {
        return mName.c_str();
    }
    Network& network() const
    {
        return mNetwork;
    }

private:
    Network& mNetwork;
    int32_t mNumber;
    std::string mName;
    bool mHasCount{false};
    bool mHasWhile{false};
};

} // namespace kiln::network
