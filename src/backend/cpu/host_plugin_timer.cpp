#include "backend/cpu/host_plugin_timer.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <limits>

namespace kiln::cpu
{
namespace
{

using nvinfer1::PluginTensorDesc;

class HostPluginTimer final : public backend::PluginTimer
{
public:
    double time(plugin::PluginAdapter& plugin, std::vector<backend::TimedTensor> const& inputs,
        std::vector<backend::TimedTensor> const& outputs, size_t workspaceBytes, std::string& error) override
    {
        std::vector<std::vector<std::byte>> memory(inputs.size() + outputs.size());
        std::vector<void const*> inputData;
        std::vector<void*> outputData;
        for (size_t i = 0; i < inputs.size(); ++i)
        {
            memory[i].resize(inputs[i].bytes);
            inputData.push_back(memory[i].data());
        }
        for (size_t o = 0; o < outputs.size(); ++o)
        {
            memory[inputs.size() + o].resize(outputs[o].bytes);
            outputData.push_back(memory[inputs.size() + o].data());
        }
        std::vector<PluginTensorDesc> const inDescs = descriptions(inputs);
        std::vector<PluginTensorDesc> const outDescs = descriptions(outputs);
        std::vector<std::byte> workspace(workspaceBytes);
        double fastest = std::numeric_limits<double>::infinity();
        for (int32_t run = 0; run <= kTimedRuns; ++run)
        {
            auto const start = std::chrono::steady_clock::now();
            if (!plugin.runOnHost(inDescs, outDescs, inputData.data(), outputData.data(), workspace.data(), error))
            {
                return -1.0;
            }
            std::chrono::duration<double, std::milli> const took = std::chrono::steady_clock::now() - start;
            fastest = run == 0 ? fastest : std::min(fastest, took.count()); // the first run warms up
        }
        return fastest;
    }
};

} // namespace

std::unique_ptr<backend::PluginTimer> makeHostPluginTimer()
{
    return std::make_unique<HostPluginTimer>();
}

} // namespace kiln::cpu
