// Normalize_TRT 1: SSD's (and ParseNet's) L2 normalization with learned scales, an IPluginV2Ext plugin.
#pragma once

#include "common/device_weights.h"
#include "common/legacy_plugin.h"

#include <vector>

namespace kiln::plugins
{

struct NormalizeParams
{
    std::vector<float> weights; //!< the scales: one (channelShared) or one per channel
    bool acrossSpatial{false};  //!< one norm per sample (over C, H, W) rather than one per position (over C)
    bool channelShared{false};  //!< one scale for every channel
    int32_t nbWeights{1};       //!< how many Weights objects NVIDIA's creator received; always 1
    float eps{0.F};             //!< added to the sum of squares under the square root

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("weights", weights, Need::kREQUIRED);
        field("acrossSpatial", acrossSpatial, Need::kREQUIRED);
        field("channelShared", channelShared, Need::kREQUIRED);
        field("nbWeights", nbWeights, Need::kOPTIONAL);
        field("eps", eps, Need::kREQUIRED);
    }
};

class NormalizePlugin : public LegacyPlugin<NormalizePlugin, NormalizeParams>
{
public:
    static constexpr char const* kName = "Normalize_TRT";
    static constexpr char const* kVersion = "1";
    using LegacyPlugin::LegacyPlugin;

    static void check(NormalizeParams const& params);

    int32_t getNbOutputs() const noexcept override;
    nvinfer1::Dims getOutputDimensions(int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;

private:
    DeviceWeights mDeviceWeights;
};

} // namespace kiln::plugins
