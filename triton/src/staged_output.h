// An output whose shape depends on the input values (NonZero's, NonMaxSuppression's count): its size is known only
// once the layer that makes it has run, so Kiln asks for its memory then, through an IOutputAllocator. The memory is
// the instance's staging slot for the output, grown to the size asked; the shape Kiln reports is what the response
// carries.
#pragma once

#include "tensor_staging.h"

#include <NvInferRuntime.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::triton
{

class StagedOutput final : public nvinfer1::IOutputAllocator
{
public:
    StagedOutput(TensorStaging& staging, size_t slot)
        : mStaging(staging)
        , mSlot(slot)
    {
    }

    void* reallocateOutputAsync(
        char const* tensorName, void* currentMemory, uint64_t size, uint64_t alignment, cudaStream_t stream) override;
    void notifyShape(char const* tensorName, nvinfer1::Dims const& dims) noexcept override;

    //! Forgets the last run's shape (before a run).
    void reset()
    {
        mShape.reset();
    }
    //! The shape the last run gave; a BackendError naming output when the run gave none.
    std::vector<int64_t> const& shape(std::string const& output) const;

private:
    TensorStaging& mStaging;
    size_t mSlot;
    std::optional<std::vector<int64_t>> mShape;
};

} // namespace kiln::triton
