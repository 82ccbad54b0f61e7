#include "staged_output.h"

#include "backend_error.h"
#include "server_log.h"

#include <algorithm>

namespace kiln::triton
{

void* StagedOutput::reallocateOutputAsync(
    char const* tensorName, void*, uint64_t size, uint64_t alignment, cudaStream_t)
{
    try
    {
        void* memory = mStaging.slot(mSlot, size);
        // The slots are aligned to kSlotAlignment; Kiln asks for no more than that.
        if (alignment > kSlotAlignment || reinterpret_cast<uintptr_t>(memory) % alignment != 0)
        {
            logError(std::string("Kiln: output \"") + tensorName + "\" asks for an alignment of "
                + std::to_string(alignment) + " bytes, more than the backend's slots have");
            return nullptr;
        }
        return memory;
    }
    catch (std::exception const& e)
    {
        // Kiln fails the run, naming the output; the reason goes to the log.
        logError(std::string("Kiln: no memory for output \"") + tensorName + "\": " + e.what());
        return nullptr;
    }
}

void StagedOutput::notifyShape(char const*, nvinfer1::Dims const& dims) noexcept
{
    mShape = std::vector<int64_t>(dims.d, dims.d + std::max(dims.nbDims, 0));
}

std::vector<int64_t> const& StagedOutput::shape(std::string const& output) const
{
    if (!mShape.has_value())
    {
        throw BackendError(
            TRITONSERVER_ERROR_INTERNAL, "the run did not tell the shape of output \"" + output + "\" (notifyShape)");
    }
    return *mShape;
}

} // namespace kiln::triton
