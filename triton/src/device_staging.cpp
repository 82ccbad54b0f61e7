// KIND_GPU instances: the slots are device memory of the instance's GPU, and the copies and the run are ordered on
// the instance's own stream. Built where Kiln has its CUDA backend (KILN_TRITON_WITH_CUDA).
#include "backend_error.h"
#include "tensor_staging.h"

#if KILN_TRITON_WITH_CUDA
#include "cuda_graphs.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <vector>
#endif

namespace kiln::triton
{

#if KILN_TRITON_WITH_CUDA
namespace
{

void checkCuda(cudaError_t status, char const* what)
{
    if (status != cudaSuccess)
    {
        throw BackendError(TRITONSERVER_ERROR_INTERNAL, std::string(what) + ": " + cudaGetErrorString(status));
    }
}

class DeviceStaging final : public TensorStaging
{
public:
    explicit DeviceStaging(int32_t device)
        : mDevice(device)
    {
        checkCuda(cudaSetDevice(mDevice), "cannot select the instance's GPU");
        checkCuda(cudaStreamCreateWithFlags(&mStream, cudaStreamNonBlocking), "cannot create the instance's stream");
    }
    ~DeviceStaging() override
    {
        cudaSetDevice(mDevice);
        mGraphs.reset();
        cudaFreeHost(mMirror);
        for (Buffer& buffer : mSlots)
        {
            cudaFree(buffer.memory);
        }
        cudaStreamDestroy(mStream);
    }
    DeviceStaging(DeviceStaging const&) = delete;
    DeviceStaging& operator=(DeviceStaging const&) = delete;

    void* slot(size_t index, size_t bytes) override
    {
        checkCuda(cudaSetDevice(mDevice), "cannot select the instance's GPU");
        if (mSlots.size() <= index)
        {
            mSlots.resize(index + 1);
        }
        Buffer& buffer = mSlots[index];
        if (buffer.bytes < std::max<size_t>(bytes, 1))
        {
            checkCuda(cudaStreamSynchronize(mStream), "the instance's stream failed");
            cudaFree(buffer.memory);
            buffer = Buffer{};
            checkCuda(cudaMalloc(&buffer.memory, std::max<size_t>(bytes, 1)), "cannot allocate device memory");
            buffer.bytes = std::max<size_t>(bytes, 1);
        }
        return buffer.memory;
    }
    void copyIn(size_t index, size_t offset, void const* source, size_t bytes, TRITONSERVER_MemoryType) override
    {
        // cudaMemcpyDefault: unified addressing tells host from device memory, pinned or not.
        checkCuda(cudaMemcpyAsync(
                      static_cast<char*>(mSlots.at(index).memory) + offset, source, bytes, cudaMemcpyDefault, mStream),
            "cannot copy an input to the GPU");
    }
    bool run(nvinfer1::IExecutionContext& context) override
    {
        // The server may call an instance from another thread than the one that made it.
        if (cudaSetDevice(mDevice) != cudaSuccess)
        {
            return false;
        }
        // No wait here: the copies out queue behind the run, and finish() waits for both at once.
        return mGraphs != nullptr ? mGraphs->enqueue(context, mStream) : context.enqueueV3(mStream);
    }
    bool useCudaGraphs(
        std::shared_ptr<nvinfer1::ICudaEngine> const& engine, size_t maxGraphs, std::string const& instance) override
    {
        mGraphs = std::make_unique<CudaGraphs>(engine, maxGraphs, instance);
        return true;
    }
    void copyOut(size_t index, size_t offset, void* destination, size_t bytes, TRITONSERVER_MemoryType memory) override
    {
        char const* source = static_cast<char const*>(mSlots.at(index).memory) + offset;
        if (memory == TRITONSERVER_MEMORY_GPU)
        {
            checkCuda(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDefault, mStream),
                "cannot copy an output on the GPU");
            return;
        }
        // A copy to pageable host memory waits for the GPU and goes through the driver's own staging, once per
        // response: finish() brings each slot's rows over in one copy instead and hands them out on the host.
        mHostCopies.push_back(HostCopy{index, offset, destination, bytes});
    }
    void finish() override
    {
        std::vector<HostCopy> copies;
        copies.swap(mHostCopies); // none is left behind for a later batch, whatever happens below
        size_t const mirrorBytes = layOutMirror(copies);
        if (mirrorBytes > 0)
        {
            queueMirrorCopies(mirrorBytes);
        }
        checkCuda(cudaStreamSynchronize(mStream), "the run or the copies of its outputs from the GPU failed");
        for (HostCopy const& copy : copies)
        {
            std::memcpy(copy.destination, mMirror + mMirrorOffset[copy.slot] + copy.offset, copy.bytes);
        }
    }

private:
    struct Buffer
    {
        void* memory{nullptr};
        size_t bytes{0};
    };
    //! A copy out to host memory, made by finish().
    struct HostCopy
    {
        size_t slot;
        size_t offset;
        void* destination;
        size_t bytes;
    };

    //! Lays the pinned mirror out: each slot that copies read, up to the last byte they read. Its size.
    size_t layOutMirror(std::vector<HostCopy> const& copies)
    {
        mMirrorLength.assign(mSlots.size(), 0);
        for (HostCopy const& copy : copies)
        {
            mMirrorLength[copy.slot] = std::max(mMirrorLength[copy.slot], copy.offset + copy.bytes);
        }
        mMirrorOffset.assign(mSlots.size(), 0);
        size_t total = 0;
        for (size_t slot = 0; slot < mSlots.size(); ++slot)
        {
            mMirrorOffset[slot] = total;
            total += (mMirrorLength[slot] + kSlotAlignment - 1) / kSlotAlignment * kSlotAlignment;
        }
        return total;
    }
    //! Grows the pinned mirror to bytes and queues one copy of each slot's part into it.
    void queueMirrorCopies(size_t bytes)
    {
        if (mMirrorBytes < bytes)
        {
            checkCuda(cudaStreamSynchronize(mStream), "the instance's stream failed");
            cudaFreeHost(mMirror);
            mMirror = nullptr;
            mMirrorBytes = 0;
            checkCuda(cudaMallocHost(reinterpret_cast<void**>(&mMirror), bytes), "cannot allocate pinned memory");
            mMirrorBytes = bytes;
        }
        for (size_t slot = 0; slot < mSlots.size(); ++slot)
        {
            if (mMirrorLength[slot] > 0)
            {
                checkCuda(cudaMemcpyAsync(mMirror + mMirrorOffset[slot], mSlots[slot].memory, mMirrorLength[slot],
                              cudaMemcpyDeviceToHost, mStream),
                    "cannot copy an output from the GPU");
            }
        }
    }

    int32_t mDevice;
    cudaStream_t mStream{nullptr};
    std::vector<Buffer> mSlots;
    std::unique_ptr<CudaGraphs> mGraphs; //!< with optimization { cuda { graphs: true } }
    std::vector<HostCopy> mHostCopies;   //!< queued by copyOut until finish()
    char* mMirror{nullptr};              //!< pinned host memory: the rows host copies read, one DMA per slot
    size_t mMirrorBytes{0};
    std::vector<size_t> mMirrorOffset; //!< where each slot starts in mMirror
    std::vector<size_t> mMirrorLength; //!< how much of each slot mMirror holds
};

} // namespace

std::unique_ptr<TensorStaging> makeDeviceStaging(int32_t device)
{
    return std::make_unique<DeviceStaging>(device);
}

#else

std::unique_ptr<TensorStaging> makeDeviceStaging(int32_t)
{
    throw BackendError(TRITONSERVER_ERROR_UNSUPPORTED,
        "this build of Kiln's backend has no CUDA backend: KIND_GPU instances need Kiln built with CUDA; use "
        "KIND_CPU");
}

#endif

} // namespace kiln::triton
