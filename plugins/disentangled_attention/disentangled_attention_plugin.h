// DisentangledAttention_TRT 1 (IPluginV2DynamicExt) and 2 (IPluginV3): DeBERTa's disentangled attention scores, the
// content-to-content scores plus the content-to-position and position-to-content scores gathered at each pair's
// relative position, scaled.
#pragma once

#include "common/twin_plugin.h"

namespace kiln::plugins
{

struct DisentangledAttentionParams
{
    int32_t span{0};   //!< the relative distance span k; the relative inputs are 2k wide
    float factor{0.F}; //!< the scale applied to the sum, 1 / sqrt(3 d) for head size d

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("span", span, Need::kREQUIRED);
        field("factor", factor, Need::kREQUIRED);
    }
};

struct DisentangledAttentionCore : TwinCoreDefaults
{
    using Params = DisentangledAttentionParams;
    static constexpr char const* kName = "DisentangledAttention_TRT";
    static constexpr char const* kV2Version = "1";
    static constexpr char const* kV3Version = "2";
    static constexpr int32_t kNbOutputs = 1;

    static void check(Params const& params);
    static nvinfer1::DimsExprs outputShape(Params const& params, int32_t index, nvinfer1::DimsExprs const* inputs,
        int32_t nbInputs, nvinfer1::IExprBuilder& builder);
    static bool supports(Params const& params, int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs);

    void runHost(Params const& params, PluginTensors const& io) const;
    void runDevice(Params const& params, PluginTensors const& io, cudaStream_t stream) const;
};

} // namespace kiln::plugins
