// KIND_CPU instances: the slots are host buffers and Kiln's CPU backend computes inside enqueueV3.
#include "backend_error.h"
#include "tensor_staging.h"

#include <algorithm>
#include <cstring>
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
        if (mSlots[index].size() < std::max<size_t>(bytes, 1))
        {
            mSlots[index].resize(std::max<size_t>(bytes, 1));
        }
        return mSlots[index].data();
    }
    void copyIn(size_t index, size_t offset, void const* source, size_t bytes, TRITONSERVER_MemoryType memory) override
    {
        requireHostMemory(memory, "an input");
        std::memcpy(mSlots.at(index).data() + offset, source, bytes);
    }
    bool run(nvinfer1::IExecutionContext& context) override
    {
        return context.enqueueV3(nullptr);
    }
    void copyOut(size_t index, size_t offset, void* destination, size_t bytes, TRITONSERVER_MemoryType memory) override
    {
        requireHostMemory(memory, "an output buffer");
        std::memcpy(destination, mSlots.at(index).data() + offset, bytes);
    }
    void finish() override { }

private:
    std::vector<std::vector<unsigned char>> mSlots;
};

} // namespace

std::unique_ptr<TensorStaging> makeHostStaging()
{
    return std::make_unique<HostStaging>();
}

} // namespace kiln::triton
