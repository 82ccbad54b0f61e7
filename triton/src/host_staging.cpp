// KIND_CPU instances: the slots are host buffers and Kiln's CPU backend computes inside enqueueV3.
#include "backend_error.h"
#include "tensor_staging.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <vector>

namespace kiln::triton
{
namespace
{

void requireHostMemory(TRITONSERVER_MemoryType memory, char const* what)
{
    if (memory == TRITONSERVER_MEMORY_GPU)
    {
        throw BackendError(TRITONSERVER_ERROR_UNSUPPORTED,
            std::string("a KIND_CPU instance of Kiln's backend cannot take ") + what
                + " in GPU memory; send it in CPU memory or use a KIND_GPU instance");
    }
}

//! Host memory aligned to kSlotAlignment, as the engine's own tensors are.
struct AlignedFree
{
    void operator()(unsigned char* memory) const
    {
        ::operator delete[](memory, std::align_val_t{kSlotAlignment});
    }
};

struct HostBuffer
{
    std::unique_ptr<unsigned char[], AlignedFree> memory;
    size_t bytes{0};
};

class HostStaging final : public TensorStaging
{
public:
    void* slot(size_t index, size_t bytes) override
    {
        if (mSlots.size() <= index)
        {
            mSlots.resize(index + 1);
        }
        // At least one byte, so that an empty tensor still has an address.
        HostBuffer& buffer = mSlots[index];
        if (buffer.bytes < std::max<size_t>(bytes, 1))
        {
            buffer.bytes = std::max<size_t>(bytes, 1);
            buffer.memory.reset(
                static_cast<unsigned char*>(::operator new[](buffer.bytes, std::align_val_t{kSlotAlignment})));
        }
        return buffer.memory.get();
    }
    void copyIn(size_t index, size_t offset, void const* source, size_t bytes, TRITONSERVER_MemoryType memory) override
    {
        requireHostMemory(memory, "an input");
        std::memcpy(mSlots.at(index).memory.get() + offset, source, bytes);
    }
    bool run(nvinfer1::IExecutionContext& context) override
    {
        return context.enqueueV3(nullptr);
    }
    void copyOut(size_t index, size_t offset, void* destination, size_t bytes, TRITONSERVER_MemoryType memory) override
    {
        requireHostMemory(memory, "an output buffer");
        std::memcpy(destination, mSlots.at(index).memory.get() + offset, bytes);
    }
    void finish() override { }

private:
    std::vector<HostBuffer> mSlots;
};

} // namespace

std::unique_ptr<TensorStaging> makeHostStaging()
{
    return std::make_unique<HostStaging>();
}

} // namespace kiln::triton
