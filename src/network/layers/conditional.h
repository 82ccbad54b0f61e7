// IIfConditional (TensorRT's if-then-else) and its boundary layers. The network holds them as layers:
// - IConditionLayer: its input is the 0-D BOOL condition; no output. The builder leaves it out of the plan: the
//   outputs carry the condition.
// - IIfConditionalInputLayer: its output is its input (an identity in the plan).
// - IIfConditionalOutputLayer: the true branch's tensor (input 0) if the condition (input 2, attached by
//   setCondition, before or after addOutput) holds, else the false branch's (input 1). Both have one type and rank.
//   Where their extents differ, the output's extent is data-dependent: a size tensor (an internal 0-D INT64 output
//   per axis, after the API's one output) bounded by the larger branch extent, bound by the execution context once
//   the conditional has run. The context runs this layer itself (no backend kernel): it knows which branch ran.
// Which layers belong to a branch is not declared: the builder guards every layer that only one side of the
// conditional's outputs needs (builder/conditional_guards.h), and such a layer runs only when that side is taken.
#pragma once

#include "network/layer.h"
#include "network/layers/unary.h"
#include "network/network.h"

namespace kiln::network
{

class IfConditional;

struct ConditionParams final
    : LayerParamsOf<ConditionParams, nvinfer1::LayerType::kCONDITION, nvinfer1::IConditionLayer>
{
    int32_t nbOutputs() const override
    {
        return 0;
    }
    bool infer(InferenceContext& ctx) const override;
};

struct ConditionalOutputParams final : LayerParamsOf<ConditionalOutputParams, nvinfer1::LayerType::kCONDITIONAL_OUTPUT,
                                           nvinfer1::IIfConditionalOutputLayer>
{
    int32_t rank{0}; //!< the branches' rank: the output's, and the count of its internal size outputs

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.rank, "conditional output rank");
    }

    //! The output, then one internal 0-D INT64 extent per axis.
    int32_t nbOutputs() const override
    {
        return 1 + rank;
    }
    bool infer(InferenceContext& ctx) const override;
    //! A selection: the output has the branches' type whatever the builder's precision.
    bool keepsItsTypes() const override
    {
        return true;
    }
};

//! What the boundary layers share: the conditional they belong to.
template <typename Api, typename Params>
class ConditionalBoundary : public LayerBase<Api, Params>
{
public:
    ConditionalBoundary(Network& network, std::string name, std::vector<Tensor*> inputs, Params params,
        int32_t minInputs, int32_t maxInputs, IfConditional& conditional)
        : LayerBase<Api, Params>(network, std::move(name), std::move(inputs), std::move(params), minInputs, maxInputs)
        , mConditional(conditional)
    {
    }
    nvinfer1::IIfConditional* getConditional() const noexcept override;

private:
    IfConditional& mConditional;
};

class ConditionLayer final : public ConditionalBoundary<nvinfer1::IConditionLayer, ConditionParams>
{
public:
    using ConditionalBoundary::ConditionalBoundary;
};

//! In the plan, an identity: it only marks where a branch's input comes from.
class ConditionalInputLayer final : public ConditionalBoundary<nvinfer1::IIfConditionalInputLayer, IdentityParams>
{
public:
    using ConditionalBoundary::ConditionalBoundary;
    nvinfer1::LayerType getType() const noexcept override
    {
        return nvinfer1::LayerType::kCONDITIONAL_INPUT;
    }
};

class ConditionalOutputLayer final
    : public ConditionalBoundary<nvinfer1::IIfConditionalOutputLayer, ConditionalOutputParams>
{
public:
    using ConditionalBoundary::ConditionalBoundary;
    //! The API shows the two branch tensors; the condition is attached internally.
    int32_t getNbInputs() const noexcept override
    {
        return 2;
    }
    //! The API shows one output; the extents stay internal.
    int32_t getNbOutputs() const noexcept override
    {
        return 1;
    }
    nvinfer1::ITensor* getOutput(int32_t index) const noexcept override
    {
        return index == 0 ? outputs()[0] : nullptr;
    }
    void attachCondition(Tensor& condition)
    {
        setLayerInput(2, condition);
    }
};

class IfConditional final : public nvinfer1::IIfConditional
{
public:
    explicit IfConditional(Network& network)
        : mNetwork(network)
    {
    }
    nvinfer1::IConditionLayer* setCondition(nvinfer1::ITensor& condition) noexcept override;
    nvinfer1::IIfConditionalOutputLayer* addOutput(
        nvinfer1::ITensor& trueSubgraphOutput, nvinfer1::ITensor& falseSubgraphOutput) noexcept override;
    nvinfer1::IIfConditionalInputLayer* addInput(nvinfer1::ITensor& input) noexcept override;
    void setName(char const* name) noexcept override
    {
        mName = name != nullptr ? name : "";
    }
    char const* getName() const noexcept override
    {
        return mName.c_str();
    }

private:
    Network& mNetwork;
    std::string mName;
    Tensor* mCondition{nullptr};
    std::vector<ConditionalOutputLayer*> mOutputs;
};

} // namespace kiln::network
