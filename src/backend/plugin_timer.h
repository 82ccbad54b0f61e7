// Timing a plugin's runs in a backend's memory, for the builder to choose among the tactics a plugin offers
// (IPluginV3OneBuild::getValidTactics): as TensorRT does, it sets each tactic, times it, and keeps the fastest.
#pragma once

#include "plugin/adapter/plugin_adapter.h"

#include <NvInferRuntime.h>

#include <string>
#include <vector>

namespace kiln::backend
{

//! A tensor of a timed run: what the plugin is told, and the bytes of memory it gets (at least desc's).
struct TimedTensor
{
    nvinfer1::PluginTensorDesc desc;
    size_t bytes;
};

class PluginTimer
{
public:
    virtual ~PluginTimer() = default;

    //! Milliseconds one run of `plugin` takes on zero-filled `inputs` and `outputs` (concrete shapes, the negotiated
    //! types and formats), with `workspaceBytes` of workspace: the fastest of a few runs after one that warms up.
    //! Negative with `error` where the plugin fails or memory cannot be had.
    virtual double time(plugin::PluginAdapter& plugin, std::vector<TimedTensor> const& inputs,
        std::vector<TimedTensor> const& outputs, size_t workspaceBytes, std::string& error)
        = 0;

protected:
    //! The descriptions of `tensors`, as the plugin gets them.
    static std::vector<nvinfer1::PluginTensorDesc> descriptions(std::vector<TimedTensor> const& tensors)
    {
        std::vector<nvinfer1::PluginTensorDesc> descs;
        for (TimedTensor const& tensor : tensors)
        {
            descs.push_back(tensor.desc);
        }
        return descs;
    }

    //! How many timed runs follow the warm-up.
    static constexpr int32_t kTimedRuns = 3;
};

//! The bytes a tensor of `desc` occupies, its format's padding included.
size_t pluginTensorBytes(nvinfer1::PluginTensorDesc const& desc);

} // namespace kiln::backend
