// CustomQKVToContextPluginDynamic 1 (IPluginV2DynamicExt) and 4 (IPluginV3): BERT's multi-head self-attention on a
// fused QKV tensor, softmax(Q K^T / sqrt(H)) V per head, with an optional mask giving each sequence's valid length.
#pragma once

#include "cublas_slot.h"

#include "common/twin_plugin.h"

namespace kiln::plugins
{

struct QkvToContextParams
{
    int32_t typeId{-1};         //!< 0: FP32, 1: FP16 (2, INT8, is not supported)
    int32_t hiddenSize{0};      //!< E
    int32_t numHeads{0};        //!< N; the head size is H = E / N
    bool hasMask{false};        //!< a second input holds each sequence's number of valid tokens
    float dqProbs{1.F / 127.F}; //!< INT8 only: accepted and unused

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("type_id", typeId, Need::kREQUIRED);
        field("hidden_size", hiddenSize, Need::kREQUIRED);
        field("num_heads", numHeads, Need::kREQUIRED);
        field("has_mask", hasMask, Need::kREQUIRED);
        field("dq_probs", dqProbs, Need::kOPTIONAL);
    }
};

struct QkvToContextCore : TwinCoreDefaults
{
    using Params = QkvToContextParams;
    static constexpr char const* kName = "CustomQKVToContextPluginDynamic";
    static constexpr char const* kV2Version = "1";
    static constexpr char const* kV3Version = "4";
    static constexpr int32_t kNbOutputs = 1;

    static void check(Params const& params);
    static nvinfer1::DimsExprs outputShape(Params const& params, int32_t index, nvinfer1::DimsExprs const* inputs,
        int32_t nbInputs, nvinfer1::IExprBuilder& builder);
    static bool supports(Params const& params, int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs);
    static size_t workspaceSize(Params const& params, nvinfer1::PluginTensorDesc const* inputs, int32_t nbInputs);

    void runHost(Params const& params, PluginTensors const& io) const;
    void runDevice(Params const& params, PluginTensors const& io, cudaStream_t stream) const;

    mutable CublasSlot cublas;
};

} // namespace kiln::plugins
