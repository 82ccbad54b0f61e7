#include "runtime/cpu_executor.h"

#include "backend/cpu/layer_runner.h"
#include "network/plugin_layer.h"

#include <stdexcept>

namespace kiln::runtime
{

CpuExecutor::CpuExecutor(Engine const& engine)
    : mEngine(engine)
{
    auto const& model = engine.model();
    // Allocated once (kSTATIC): sized for the largest shapes of every profile.
    mArena.reset(new std::byte[static_cast<size_t>(model.arenaBytes) + 1]);
    // Each context runs its own clones of the engine's plugins, attached to it.
    mPlugins.resize(model.layers.size());
    mReformatters.resize(model.layers.size());
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        if (auto const* plugin = dynamic_cast<network::PluginParams const*>(&engine.layerParams(l)))
        {
            std::string error;
            mPlugins[l] = PluginRunner::attach(*plugin, PluginRunner::Memory::kHOST, error);
            if (mPlugins[l] == nullptr)
            {
                throw std::runtime_error("layer \"" + model.layers[l].name + "\": " + error);
            }
        }
    }
}

bool CpuExecutor::runLayer(size_t l, std::vector<cpu::ConstTensorView> const& inputs,
    std::vector<cpu::TensorView> const& outputs, cudaStream_t, std::string& error)
{
    return mPlugins[l] ? mPlugins[l]->run(inputs, outputs, nullptr, error) : runBuiltInLayer(l, inputs, outputs, error);
}

bool CpuExecutor::runBuiltInLayer(size_t l, std::vector<cpu::ConstTensorView> const& inputs,
    std::vector<cpu::TensorView> const& outputs, std::string& error)
{
    return mReformatters[l].around(mEngine.model().layers[l].ioTypes, inputs, outputs, nullptr,
        [&](std::vector<cpu::ConstTensorView> const& in, std::vector<cpu::TensorView> const& out) {
            return cpu::runLayer(mEngine.layerParams(l), in, out, error);
        });
}

} // namespace kiln::runtime
