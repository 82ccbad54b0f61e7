#include "backend/cuda/device_reformatter.h"

#include "backend/cuda/kernels/tensor/reformat.h"
#include "backend/cuda/memory/device_buffer.h"

#include <vector>

namespace kiln::cuda
{
namespace
{

class DeviceReformatter final : public backend::Reformatter
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
        reformatOnDevice(from, to, stream);
    }

private:
    nvinfer1::IGpuAllocator& mAllocator;
    std::vector<DeviceBuffer> mSlots; //!< by slot: a layer's inputs, then its outputs
};

} // namespace

std::unique_ptr<backend::Reformatter> makeDeviceReformatter(nvinfer1::IGpuAllocator& allocator)
{
    return std::make_unique<DeviceReformatter>(allocator);
}

} // namespace kiln::cuda
