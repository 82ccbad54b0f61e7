// addPluginV2 / addPluginV3. The network builds from its own clone of the plugin, so
// the build never reaches into the application's object. getPlugin() returns the
// application's object, as TensorRT's does: it must outlive any call to getPlugin().
#include "core/logging.h"
#include "network/add_layer.h"
#include "network/plugin_layer.h"

namespace kiln::network
{
namespace
{

std::vector<nvinfer1::ITensor*> tensorList(nvinfer1::ITensor* const* tensors, int32_t count)
{
    return count > 0 && tensors != nullptr ? std::vector<nvinfer1::ITensor*>(tensors, tensors + count)
                                           : std::vector<nvinfer1::ITensor*>{};
}

} // namespace

nvinfer1::IPluginV2Layer* Network::addPluginV2(
    nvinfer1::ITensor* const* inputs, int32_t nbInputs, nvinfer1::IPluginV2& plugin) noexcept
{
    if (nbInputs < 0 || (nbInputs > 0 && inputs == nullptr))
    {
        logError("INetworkDefinition::addPluginV2: invalid inputs (" + std::to_string(nbInputs) + ")");
        return nullptr;
    }
    std::string error;
    nvinfer1::IPluginV2* copy = nullptr;
    try
    {
        logVerbose("[plugin] network: clone");
        copy = plugin.clone();
    }
    catch (...)
    {
        copy = nullptr;
    }
    std::unique_ptr<plugin::PluginAdapter> adapter = plugin::adaptPluginV2(copy, error);
    if (adapter == nullptr)
    {
        logError(
            "INetworkDefinition::addPluginV2: " + std::string(copy ? error : "the plugin's clone() returned null"));
        return nullptr;
    }
    PluginParams params;
    params.family = adapter->family();
    params.outputCount = adapter->nbOutputs();
    if (params.outputCount < 0)
    {
        logError("INetworkDefinition::addPluginV2: plugin " + adapter->description() + ": getNbOutputs returned "
            + std::to_string(params.outputCount));
        return nullptr;
    }
    params.adapter = std::move(adapter);
    auto list = tensorList(inputs, nbInputs);
    if (!checkInputs("addPluginV2", list))
    {
        return nullptr;
    }
    return addLayer<PluginV2Layer>("PluginV2", list, std::move(params), nbInputs, nbInputs, plugin);
}

nvinfer1::IPluginV3Layer* Network::addPluginV3(nvinfer1::ITensor* const* inputs, int32_t nbInputs,
    nvinfer1::ITensor* const* shapeInputs, int32_t nbShapeInputs, nvinfer1::IPluginV3& plugin) noexcept
{
    if (nbInputs < 0 || (nbInputs > 0 && inputs == nullptr) || nbShapeInputs < 0
        || (nbShapeInputs > 0 && shapeInputs == nullptr))
    {
        logError("INetworkDefinition::addPluginV3: invalid inputs or shape inputs");
        return nullptr;
    }
    std::string error;
    nvinfer1::IPluginV3* copy = nullptr;
    try
    {
        logVerbose("[plugin] network: clone");
        copy = plugin.clone();
    }
    catch (...)
    {
        copy = nullptr;
    }
    std::unique_ptr<plugin::PluginAdapter> adapter = plugin::adaptPluginV3(copy, error);
    if (adapter == nullptr)
    {
        logError(
            "INetworkDefinition::addPluginV3: " + std::string(copy ? error : "the plugin's clone() returned null"));
        return nullptr;
    }
    PluginParams params;
    params.family = plugin::PluginFamily::kV3;
    params.nbShapeInputs = nbShapeInputs;
    params.outputCount = adapter->nbOutputs();
    if (params.outputCount < 0)
    {
        logError("INetworkDefinition::addPluginV3: plugin " + adapter->description() + " reports no outputs");
        return nullptr;
    }
    params.adapter = std::move(adapter);
    auto list = tensorList(inputs, nbInputs);
    auto shapes = tensorList(shapeInputs, nbShapeInputs);
    list.insert(list.end(), shapes.begin(), shapes.end());
    if (!checkInputs("addPluginV3", list))
    {
        return nullptr;
    }
    int32_t const total = nbInputs + nbShapeInputs;
    return addLayer<PluginV3Layer>("PluginV3", list, std::move(params), total, total, plugin);
}

} // namespace kiln::network
