// An output whose shape depends on values (NonZero's count, a plugin's size tensor): TensorRT hands such outputs
// their memory through an IOutputAllocator. The kiln command binds each to one buffer of its largest size
// (IExecutionContext::getMaxOutputSize), as trtexec does, and reports the shape the last inference told.
#pragma once

#include <NvInferRuntime.h>

#include <algorithm>
#include <cstdint>

namespace kiln::cli
{

class DataDependentOutput final : public nvinfer1::IOutputAllocator
{
public:
    DataDependentOutput(void* memory, uint64_t capacity)
        : mMemory(memory)
        , mCapacity(capacity)
    {
    }
    //! The buffer whenever it is large enough; null (the inference fails) never happens below the largest size.
    void* reallocateOutputAsync(char const*, void*, uint64_t size, uint64_t, cudaStream_t) override
    {
        return size <= mCapacity ? mMemory : nullptr;
    }
    void notifyShape(char const*, nvinfer1::Dims const& dims) noexcept override
    {
        mShape = dims;
    }
    //! The shape the last inference told; nbDims -1 before the first.
    nvinfer1::Dims const& shape() const
    {
        return mShape;
    }

private:
    void* mMemory;
    uint64_t mCapacity;
    nvinfer1::Dims mShape{-1, {}};
};

} // namespace kiln::cli
