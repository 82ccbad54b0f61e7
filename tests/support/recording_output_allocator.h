// An IOutputAllocator for tests: gives each output memory from a chosen source (host memory by default, device
// memory in the CUDA tests) and records every size it was asked for and every shape it was told.
#pragma once

#include <NvInferRuntime.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace kiln::test
{

class RecordingOutputAllocator final : public nvinfer1::IOutputAllocator
{
public:
    using Allocate = std::function<void*(size_t)>;
    using Release = std::function<void(void*)>;

    //! Host memory, 256-byte aligned.
    RecordingOutputAllocator()
        : RecordingOutputAllocator([](size_t bytes) { return std::aligned_alloc(256, (bytes + 255) / 256 * 256); },
            [](void* memory) { std::free(memory); })
    {
    }
    RecordingOutputAllocator(Allocate allocate, Release release)
        : mAllocate(std::move(allocate))
        , mRelease(std::move(release))
    {
    }
    ~RecordingOutputAllocator() override
    {
        if (mMemory != nullptr)
        {
            mRelease(mMemory);
        }
    }
    RecordingOutputAllocator(RecordingOutputAllocator const&) = delete;
    RecordingOutputAllocator& operator=(RecordingOutputAllocator const&) = delete;

    //! Keeps its memory while it is large enough, as TensorRT's samples do; else replaces it.
    void* reallocateOutputAsync(
        char const* tensorName, void* currentMemory, uint64_t size, uint64_t /*alignment*/, cudaStream_t) override
    {
        names.emplace_back(tensorName);
        sizes.push_back(size);
        currents.push_back(currentMemory);
        if (mMemory == nullptr || size > mCapacity)
        {
            if (mMemory != nullptr)
            {
                mRelease(mMemory);
            }
            mCapacity = size;
            mMemory = mAllocate(size == 0 ? 1 : size);
        }
        return mMemory;
    }
    void notifyShape(char const* tensorName, nvinfer1::Dims const& dims) noexcept override
    {
        notifiedNames.emplace_back(tensorName);
        shapes.emplace_back(dims.d, dims.d + dims.nbDims);
    }

    void* memory() const
    {
        return mMemory;
    }

    std::vector<std::string> names;           //!< reallocateOutputAsync's tensor names, in call order
    std::vector<uint64_t> sizes;              //!< and the sizes it was asked for
    std::vector<void*> currents;              //!< and the currentMemory it was given
    std::vector<std::string> notifiedNames;   //!< notifyShape's tensor names
    std::vector<std::vector<int64_t>> shapes; //!< and the shapes

private:
    Allocate mAllocate;
    Release mRelease;
    void* mMemory{nullptr};
    uint64_t mCapacity{0};
};

} // namespace kiln::test
