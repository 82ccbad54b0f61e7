// The CUDA backend's executor: device activation memory, constants uploaded once per
// context, Kiln's CUDA kernels for built-in layers, and plugins' own enqueue, all
// queued on the stream given to enqueueV3 without synchronising.
#pragma once

#include "backend/cuda/device_layer.h"
#include "runtime/layer_executor.h"
#include "runtime/plugin_runner.h"
#include "runtime/reformatter.h"

#include <unordered_map>
#include <utility>

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
    bool evaluatesShapesOnHost() const override
    {
        return true;
    }
    void writeShapeValues(int32_t tensor, cpu::TensorView const& output, std::vector<int64_t> const& values,
        cudaStream_t stream) override;
    void beginTiming(size_t l, cudaStream_t stream) override;
    void endTiming(size_t l, cudaStream_t stream) override;
    float elapsedMs(size_t l) override;
    ~CudaExecutor() override;

private:
    bool runBuiltInLayer(size_t l, std::vector<cpu::ConstTensorView> const& inputs,
        std::vector<cpu::TensorView> const& outputs, cudaStream_t stream, std::string& error);

    Engine const& mEngine;
    std::shared_ptr<std::byte> mArena;
    std::vector<std::shared_ptr<std::byte>> mConstants;     //!< by layer: constant layers' weights on the device
    std::vector<std::unique_ptr<PluginRunner>> mPlugins;     //!< by layer; null for built-in layers
    std::vector<std::unique_ptr<Reformatter>> mReformatters; //!< by layer: built-in layers' type conversions
    cuda::LibraryHandles mHandles;                            //!< before the layers that use them (destroyed after)
    std::vector<std::unique_ptr<cuda::DeviceLayer>> mDeviceLayers; //!< by layer: layers with device state
    std::vector<std::pair<cudaEvent_t, cudaEvent_t>> mEvents; //!< by layer, for profiling: made on first use

    //! A shape tensor's values in pinned host memory, the source of their copy to the device: pinned, so that the
    //! copy is asynchronous and a CUDA graph can capture it; rewritten only when the values change.
    struct ShapeStaging
    {
        std::shared_ptr<std::byte> host;
        std::vector<uint8_t> bytes;   //!< what `host` holds
        cudaEvent_t copied{nullptr};  //!< recorded after the last copy out of `host`
    };
    std::unordered_map<int32_t, ShapeStaging> mShapeStaging; //!< by plan tensor index
};

} // namespace kiln::runtime
