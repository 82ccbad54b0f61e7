// addPluginV2 / addPluginV3: plugin layers.
#include "core/logging.h"
#include "network/network.h"

namespace kiln::network
{

nvinfer1::IPluginV2Layer* Network::addPluginV2(nvinfer1::ITensor* const*, int32_t, nvinfer1::IPluginV2&) noexcept
{
    logError("INetworkDefinition::addPluginV2 is not supported by Kiln yet");
    return nullptr;
}

nvinfer1::IPluginV3Layer* Network::addPluginV3(
    nvinfer1::ITensor* const*, int32_t, nvinfer1::ITensor* const*, int32_t, nvinfer1::IPluginV3&) noexcept
{
    logError("INetworkDefinition::addPluginV3 is not supported by Kiln yet");
    return nullptr;
}

} // namespace kiln::network
