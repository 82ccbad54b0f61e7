// Keeps the plugins the parser created alive until the parser is destroyed. Kiln's network keeps its
// own clone, but IPluginV2Layer::getPlugin() / IPluginV3Layer::getPlugin() return the object that was
// added, and applications inspect it after parsing (TensorRT's parser keeps its plugins the same way).
#pragma once

#include <NvInfer.h>

#include <memory>
#include <vector>

namespace kiln::onnxparser
{

class PluginOwner
{
public:
    PluginOwner() = default;
    PluginOwner(PluginOwner const&) = delete;
    PluginOwner& operator=(PluginOwner const&) = delete;
    ~PluginOwner()
    {
        for (nvinfer1::IPluginV2* plugin : mV2)
        {
            plugin->destroy();
        }
    }
    void keep(nvinfer1::IPluginV2* plugin)
    {
        mV2.push_back(plugin);
    }
    void keep(nvinfer1::IPluginV3* plugin)
    {
        mV3.emplace_back(plugin);
    }

private:
    std::vector<nvinfer1::IPluginV2*> mV2;
    std::vector<std::unique_ptr<nvinfer1::IPluginV3>> mV3;
};

} // namespace kiln::onnxparser
