// One plugin layer in one execution context: the context's own attached clone of
// the engine's plugin, and the conversions between the tensors' types and the
// types the plugin negotiated at build time.
#pragma once

#include "backend/cpu/tensor_view.h"
#include "network/plugin_layer.h"
#include "runtime/reformatter.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::runtime
{

class PluginRunner
{
public:
    //! Attaches a clone of the engine's plugin to this context; nullptr with error on failure.
    static std::unique_ptr<PluginRunner> attach(network::PluginParams const& params, std::string& error);

    //! Runs the plugin; tells it first if the shapes changed since the last run.
    bool run(std::vector<cpu::ConstTensorView> const& inputs, std::vector<cpu::TensorView> const& outputs,
        std::string& error);

private:
    PluginRunner(network::PluginParams const& params, std::unique_ptr<plugin::PluginAdapter> plugin)
        : mParams(params)
        , mPlugin(std::move(plugin))
    {
    }

    network::PluginParams const& mParams;
    std::unique_ptr<plugin::PluginAdapter> mPlugin;
    std::vector<cpu::Shape> mLastShapes; //!< inputs then outputs, as of the last shapesChanged call
    Reformatter mReformatter; //!< slots: the plugin's inputs, then its outputs
    std::vector<std::byte> mWorkspace;
};

} // namespace kiln::runtime
