// CustomSkipLayerNormPluginDynamic 1 (IPluginV2DynamicExt) and 5 (IPluginV3): y = LayerNorm(input + skip + bias)
// over the hidden dimension E of [S, B, E, 1, 1] tensors, with gamma and beta. In INT8 (type_id 2) the tensors are
// dequantized and the result quantized with their scales (PluginTensorDesc::scale), in TensorRT's vector-major INT8
// layout, E padded to a multiple of 32 (kCHW32) or, where E < 32, of 4 (kCHW4).
#pragma once

#include "common/device_weights.h"
#include "common/twin_plugin.h"

#include <vector>

namespace kiln::plugins
{

struct SkipLayerNormParams
{
    int32_t typeId{-1};       //!< 0: FP32, 1: FP16, 2: INT8 (kCHW32, or kCHW4 where ld < 32)
    int32_t ld{0};            //!< the hidden size E
    std::vector<float> beta;  //!< E values added after normalizing
    std::vector<float> gamma; //!< E values scaling the normalized row
    std::vector<float> bias;  //!< E values added to input + skip before normalizing, or none

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("type_id", typeId, Need::kREQUIRED);
        field("ld", ld, Need::kREQUIRED);
        field("beta", beta, Need::kREQUIRED);
        field("gamma", gamma, Need::kREQUIRED);
        field("bias", bias, Need::kOPTIONAL);
    }
};

struct SkipLayerNormCore : TwinCoreDefaults
{
    using Params = SkipLayerNormParams;
    static constexpr char const* kName = "CustomSkipLayerNormPluginDynamic";
    static constexpr char const* kV2Version = "1";
    static constexpr char const* kV3Version = "5";
    static constexpr int32_t kNbOutputs = 1;

    static void check(Params const& params);
    static nvinfer1::DimsExprs outputShape(Params const& params, int32_t index, nvinfer1::DimsExprs const* inputs,
        int32_t nbInputs, nvinfer1::IExprBuilder& builder);
    static bool supports(Params const& params, int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs);

    void runHost(Params const& params, PluginTensors const& io) const;
    void runDevice(Params const& params, PluginTensors const& io, cudaStream_t stream) const;

    DeviceWeights deviceGamma;
    DeviceWeights deviceBeta;
    DeviceWeights deviceBias;
};

} // namespace kiln::plugins
