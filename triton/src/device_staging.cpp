// KIND_GPU instances: the slots are device memory of the instance's GPU, and the copies and the run are ordered on
// the instance's own stream. Built where Kiln has its CUDA backend (KILN_TRITON_WITH_CUDA).
#include "backend_error.h"
#include "tensor_staging.h"

#if KILN_TRITON_WITH_CUDA
#include "cuda_graphs.h"

#include <cuda_runtime_api.h>

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
        bool const enqueued = mGraphs != nullptr ? mGraphs->enqueue(context, mStream) : context.enqueueV3(mStream);
        return enqueued && cudaStreamSynchronize(mStream) == cudaSuccess;
    }
    bool useCudaGraphs(
        std::shared_ptr<nvinfer1::ICudaEngine> const& engine, size_t maxGraphs, std::string const& instance) override
    {
        mGraphs = std::make_unique<CudaGraphs>(engine, maxGraphs, instance);
        return true;
    }
    void copyOut(size_t index, size_t offset, void* destination, size_t bytes, TRITONSERVER_MemoryType) override
    {
        checkCuda(cudaMemcpyAsync(destination, static_cast<char const*>(mSlots.at(index).memory) + offset, bytes,
                      cudaMemcpyDefault, mStream),
            "cannot copy an output from the GPU");
    }
    void finish() override
    {
        checkCuda(cudaStreamSynchronize(mStream), "copying the outputs from the GPU failed");
    }

private:
    struct Buffer
    {
        void* memory{nullptr};
        size_t bytes{0};
    };
    int32_t mDevice;
    cudaStream_t mStream{nullptr};
    std::vector<Buffer> mSlots;
    std::unique_ptr<CudaGraphs> mGraphs; //!< with optimization { cuda { graphs: true } }
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
