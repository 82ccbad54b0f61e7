// The CUDA backend's executor: device activation memory, each built-in layer lowered once
// per context (layer_lowering.h), and plugins' own enqueue, all queued on the stream given
// to enqueueV3 without synchronising. All its device memory
// comes from the context's allocator, which forwards to the runtime's.
#pragma once

#include "backend/cuda/device_layer.h"
#include "backend/cuda/libraries/library_handles.h"
#include "backend/cuda/memory/context_gpu_allocator.h"
#include "backend/cuda/memory/device_buffer.h"
#include "backend/executor.h"
#include "backend/plugin_runner.h"
#include "backend/reformatter.h"

#include <unordered_map>
#include <utility>

namespace kiln::cuda
{

class CudaExecutor final : public backend::Executor
{
public:
    //! Lends the context's plugins its allocator and, for the IPluginV2Ext families, its cuDNN and cuBLAS handles
    //! (through `resources`). Throws std::runtime_error naming the layer and the reason (a plugin that cannot
    //! attach, memory that cannot be allocated) when the context cannot be made.
    CudaExecutor(backend::LoadedPlan const& plan, plugin::ContextResources& resources);

    void allocateContextMemory() override;
    void const* constantAddress(size_t l) const override
    {
        return mBoundWeights[l].data();
    }
    bool runLayer(size_t l, std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs,
        cudaStream_t stream, std::string& error) override;
    bool synchronize(cudaStream_t stream, std::string& error) override;
    void writeShapeValues(
        int32_t tensor, TensorView const& output, std::vector<int64_t> const& values, cudaStream_t stream) override;
    int64_t readScalar(ConstTensorView const& view, cudaStream_t stream) override;
    void copyTensor(ConstTensorView const& from, TensorView const& to, cudaStream_t stream) override;
    void copyBytes(void* destination, void const* source, size_t bytes, cudaStream_t stream) override;
    void zeroBytes(void* destination, size_t bytes, cudaStream_t stream) override;
    void beginTiming(size_t l, cudaStream_t stream) override;
    void endTiming(size_t l, cudaStream_t stream) override;
    float elapsedMs(size_t l) override;
    ~CudaExecutor() override;

private:
    bool runBuiltInLayer(size_t l, std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs,
        cudaStream_t stream, std::string& error);

    //! Sets up layer `l`: attaches its plugin, or uploads its weights and makes its device state.
    void prepareLayer(size_t l, plugin::ContextResources& resources);

    // Declared before what uses them, so destroyed after it: the allocator outlives every buffer and plugin, the
    // handles every plugin (detachFromContext comes before they go) and device layer.
    backend::LoadedPlan mPlan;
    ContextGpuAllocator mAllocator;
    LibraryHandles mHandles;
    DeviceBuffer mSharedScratch{mAllocator}; //!< LayerContext::sharedScratch
    DeviceBuffer mOwnedMemory;               //!< the context memory, unless the application gives it
    std::vector<std::unique_ptr<backend::PluginRunner>> mPlugins;     //!< by layer; null for built-in layers
    std::vector<std::unique_ptr<backend::Reformatter>> mReformatters; //!< by layer: built-in layers' type conversions
    std::vector<std::unique_ptr<DeviceLayer>> mDeviceLayers;          //!< by layer: layers with device state
    std::vector<bool> mConverts; //!< by layer: whether a built-in layer reads or writes a slot through a conversion
    std::vector<DeviceBuffer> mBoundWeights; //!< by layer: the weights of constants whose output the plan binds
    std::vector<std::pair<cudaEvent_t, cudaEvent_t>> mEvents; //!< by layer, for profiling: made on first use
    std::vector<bool> mTimed;                                 //!< by layer: whether its events were recorded

    //! A shape tensor's values in pinned host memory, the source of their copy to the device: pinned, so that the
    //! copy is asynchronous and a CUDA graph can capture it; rewritten only when the values change.
    struct ShapeStaging
    {
        std::shared_ptr<std::byte> host;
        std::vector<uint8_t> bytes;  //!< what `host` holds
        cudaEvent_t copied{nullptr}; //!< recorded after the last copy out of `host`
    };
    std::unordered_map<int32_t, ShapeStaging> mShapeStaging; //!< by plan tensor index
    std::shared_ptr<std::byte>
        mSizeValue; //!< pinned host memory a size tensor's value is copied into; made on first use
};

} // namespace kiln::cuda
