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
public:
    cpu::ConstTensorView read(
        size_t slot, cpu::ConstTensorView const& stored, nvinfer1::DataType wanted, cudaStream_t stream) override
    {
        if (stored.data == nullptr || stored.type == wanted)
        {
            return stored;
        }
        cpu::TensorView converted{wanted, stored.shape, scratch(slot, wanted, stored.count(), stream)};
        cuda::castOnDevice(stored, converted, stream);
        return converted;
    }

    cpu::TensorView write(
        size_t slot, cpu::TensorView const& stored, nvinfer1::DataType wanted, cudaStream_t stream) override
    {
        if (stored.type == wanted)
        {
            return stored;
        }
        return cpu::TensorView{wanted, stored.shape, scratch(slot, wanted, stored.count(), stream)};
    }

    void commit(size_t slot, cpu::TensorView const& stored, nvinfer1::DataType wanted, cudaStream_t stream) override
    {
        if (stored.type != wanted)
        {
            cuda::castOnDevice(cpu::ConstTensorView(wanted, stored.shape, mSlots.at(slot).data()), stored, stream);
        }
    }

private:
    void* scratch(size_t slot, nvinfer1::DataType type, int64_t count, cudaStream_t stream)
    {
        if (slot >= mSlots.size())
        {
            mSlots.resize(slot + 1);
        }
        mSlots[slot].reserve(static_cast<size_t>(count) * cpu::elementSize(type), stream);
        return mSlots[slot].data();
    }

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
