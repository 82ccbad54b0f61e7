#include "backend/cuda/cuda_backend.h"

#include "backend/cuda/calibration_device_buffer.h"
#include "backend/cuda/cuda_executor.h"
#include "backend/cuda/layer_lowering.h"
#include "backend/cuda/passes/pass_list.h"
#include "backend/cuda/tactic_names.h"
#include "backend/cuda/tuning/plugin_timing.h"
#include "plan/plan_graph.h"

#include <cuda_runtime_api.h>
#include <cudnn.h>

namespace kiln::cuda
{
namespace
{

class CudaBackend final : public backend::Implementation
{
public:
    bool usable(std::string& why) const override
    {
        int count = 0;
        cudaError_t const status = cudaGetDeviceCount(&count);
        if (status != cudaSuccess || count == 0)
        {
            why = status != cudaSuccess ? std::string("no usable CUDA GPU: ") + cudaGetErrorString(status)
                                        : std::string("no CUDA GPU is present");
            cudaGetLastError(); // clear the error, so that it does not surface in a later CUDA call
            return false;
        }
        return true;
    }

    std::string unsupportedReason(network::LayerParams const& params) const override
    {
        return cuda::unsupportedReason(params);
    }

    //! The passes of passes/pass_list.h, in their order.
    bool optimize(plan::PlanModel& model, backend::PassOptions const& options, std::string& error) const override
    {
        std::string whyNoGpu;
        usable(whyNoGpu);
        CudaBuild build(options, deviceIdentity(), whyNoGpu);
        return backend::applyPasses(cudaPasses(), model, build, error);
    }

    std::vector<char const*> passNames() const override
    {
        return backend::passNames(cudaPasses());
    }

    std::unique_ptr<backend::Executor> makeExecutor(
        backend::LoadedPlan const& plan, plugin::ContextResources& resources) const override
    {
        return std::make_unique<CudaExecutor>(plan, resources);
    }

    //! Each context uploads a constant's weights once; layers read them there, and the constant layer never runs.
    bool bindsConstants() const override
    {
        return true;
    }

    bool copiesShapeInputs() const override
    {
        return true;
    }

    std::string tacticName(plan::LayerRecord const& layer) const override
    {
        return cuda::tacticName(layer);
    }

    bool evaluatesShapesOnHost() const override
    {
        return true;
    }

    //! Layers computing shape tensors run on the host from the values' expressions (CudaExecutor), and a reshape's
    //! kernel takes its output's dimensions from the plan: neither reads the shape tensors it is given.
    bool readsInputData(plan::PlanModel const& model, size_t l, size_t input) const override
    {
        bool const reshapeDimensions = model.layers[l].type == nvinfer1::LayerType::kSHUFFLE && input == 1;
        return !reshapeDimensions && !plan::computesShapesOnly(model, l);
    }

    //! Device memory, as TensorRT gives calibrators.
    std::unique_ptr<backend::CalibrationBuffer> makeCalibrationBuffer(size_t bytes, std::string& error) const override
    {
        return makeCalibrationDeviceBuffer(bytes, error);
    }

    //! Device memory (cudaMalloc's) is the GPU's alone; host memory, pinned or not, and managed memory the host
    //! reaches. Without a usable GPU no device memory exists.
    bool hostCanAccess(void const* address, std::string& why) const override
    {
        std::string noGpu;
        cudaPointerAttributes attributes{};
        if (address == nullptr || !usable(noGpu) || cudaPointerGetAttributes(&attributes, address) != cudaSuccess)
        {
            cudaGetLastError();
            return true;
        }
        if (attributes.type == cudaMemoryTypeDevice)
        {
            why = "it is device memory of GPU " + std::to_string(attributes.device)
                + ", which the host cannot read: give managed memory (cudaMallocManaged) or host memory";
            return false;
        }
        return true;
    }

    bool waitForStream(cudaStream_t stream, std::string& error) const override
    {
        std::string noGpu;
        if (!usable(noGpu))
        {
            if (stream == nullptr)
            {
                return true; // no GPU: nothing can be queued on the default stream
            }
            error = "a CUDA stream was given, but " + noGpu;
            return false;
        }
        cudaError_t const status = cudaStreamSynchronize(stream);
        if (status != cudaSuccess)
        {
            error = std::string("waiting for the stream's earlier work failed: ") + cudaGetErrorString(status);
            cudaGetLastError();
            return false;
        }
        return true;
    }

    //! Plugins' tactics are timed on the GPU; a build without one cannot time them.
    std::unique_ptr<backend::PluginTimer> makePluginTimer(std::string& why) const override
    {
        return usable(why) ? makeDevicePluginTimer() : nullptr;
    }

    //! The GPU's name and compute capability, and cuDNN's version.
    std::string deviceIdentity() const override
    {
        std::string why;
        int device = 0;
        cudaDeviceProp properties{};
        if (!usable(why) || cudaGetDevice(&device) != cudaSuccess
            || cudaGetDeviceProperties(&properties, device) != cudaSuccess)
        {
            cudaGetLastError();
            return {};
        }
        return std::string(properties.name) + ", sm_" + std::to_string(properties.major)
            + std::to_string(properties.minor) + ", cuDNN " + std::to_string(cudnnGetVersion());
    }
};

} // namespace

backend::Implementation const& cudaBackend()
{
    static CudaBackend const backend;
    return backend;
}

} // namespace kiln::cuda
