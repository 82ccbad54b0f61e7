// The CUDA backend's executor: device activation memory, constants uploaded once per
// context, Kiln's CUDA kernels for built-in layers, and plugins' own enqueue, all
// queued on the stream given to enqueueV3 without synchronising.
#pragma once

#include "runtime/layer_executor.h"
#include "runtime/plugin_runner.h"
#include "runtime/reformatter.h"

namespace kiln::runtime
{

class CudaExecutor final : public LayerExecutor
{
public:
    //! Throws std::runtime_error naming the plugin or the reason when the context cannot be made.
    explicit CudaExecutor(Engine const& engine);

    std::byte* arena() override
    {
        return mArena.get();
    }
    bool runLayer(size_t l, std::vector<cpu::ConstTensorView> const& inputs,
        std::vector<cpu::TensorView> const& outputs, cudaStream_t stream, std::string& error) override;
    bool synchronize(cudaStream_t stream, std::string& error) override;

private:
    bool runBuiltInLayer(size_t l, std::vector<cpu::ConstTensorView> const& inputs,
        std::vector<cpu::TensorView> const& outputs, cudaStream_t stream, std::string& error);

    Engine const& mEngine;
    std::shared_ptr<std::byte> mArena;
    std::vector<std::shared_ptr<std::byte>> mConstants;     //!< by layer: constant layers' weights on the device
    std::vector<std::unique_ptr<PluginRunner>> mPlugins;     //!< by layer; null for built-in layers
    std::vector<std::unique_ptr<Reformatter>> mReformatters; //!< by layer: built-in layers' type conversions
};

} // namespace kiln::runtime
