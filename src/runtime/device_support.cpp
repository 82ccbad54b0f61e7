// What the runtime needs from the CUDA backend (CUDA builds): conversions in device memory,
// and the executor.
#include "runtime/device_support.h"

#include "backend/cuda/device_buffer.h"
#include "backend/cuda/reformat.h"
#include "runtime/cuda_executor.h"

namespace kiln::runtime
{
namespace
{

class DeviceReformatter final : public Reformatter
{
public:
    explicit DeviceReformatter(nvinfer1::IGpuAllocator& allocator)
        : mAllocator(allocator)
    {
    }

protected:
    void* scratch(size_t slot, size_t bytes, cudaStream_t stream) override
    {
        while (slot >= mSlots.size())
        {
            mSlots.emplace_back(mAllocator);
        }
        mSlots[slot].reserve(bytes, stream, "a reformatting's scratch");
        return mSlots[slot].data();
    }
    void* scratchOf(size_t slot) override
    {
        return mSlots.at(slot).data();
    }
    void convert(ConstTensorView const& from, TensorView const& to, cudaStream_t stream) override
    {
        cuda::reformatOnDevice(from, to, stream);
    }

private:
    nvinfer1::IGpuAllocator& mAllocator;
    std::vector<cuda::DeviceBuffer> mSlots; //!< by slot: a layer's inputs, then its outputs
};

} // namespace

std::unique_ptr<Reformatter> makeDeviceReformatter(nvinfer1::IGpuAllocator& allocator)
{
    return std::make_unique<DeviceReformatter>(allocator);
}

std::unique_ptr<LayerExecutor> makeCudaExecutor(Engine const& engine, plugin::ContextResources& resources)
{
    return std::make_unique<CudaExecutor>(engine, resources);
}

} // namespace kiln::runtime
