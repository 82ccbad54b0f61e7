// What the runtime needs from the CUDA backend (CUDA builds): device memory, conversions
// in device memory, and the executor.
#include "runtime/device_support.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/device_buffer.h"
#include "backend/cuda/kernels.h"
#include "runtime/cuda_executor.h"

namespace kiln::runtime
{
namespace
{

class DeviceReformatter final : public Reformatter
{
protected:
    void* scratch(size_t slot, size_t bytes, cudaStream_t stream) override
    {
        if (slot >= mSlots.size())
        {
            mSlots.resize(slot + 1);
        }
        mSlots[slot].reserve(bytes, stream);
        return mSlots[slot].data();
    }
    void* scratchOf(size_t slot) override
    {
        return mSlots.at(slot).data();
    }
    void convert(cpu::ConstTensorView const& from, cpu::TensorView const& to, cudaStream_t stream) override
    {
        cuda::castOnDevice(from, to, stream);
    }

private:
    std::vector<cuda::DeviceBuffer> mSlots; //!< by slot: a layer's inputs, then its outputs
};

} // namespace

std::shared_ptr<std::byte> allocateDeviceMemory(size_t bytes)
{
    void* memory = nullptr;
    cuda::check(cudaMalloc(&memory, bytes > 0 ? bytes : 1), "allocating device memory");
    return std::shared_ptr<std::byte>(static_cast<std::byte*>(memory), [](std::byte* data) { cudaFree(data); });
}

std::unique_ptr<Reformatter> makeDeviceReformatter()
{
    return std::make_unique<DeviceReformatter>();
}

std::unique_ptr<LayerExecutor> makeCudaExecutor(Engine const& engine)
{
    return std::make_unique<CudaExecutor>(engine);
}

} // namespace kiln::runtime
