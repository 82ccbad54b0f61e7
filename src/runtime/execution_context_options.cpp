// IExecutionContext's calls beyond running: strides, shape inference, output addresses, and the TensorRT features
// Kiln has nothing behind yet (input-consumed events), which fail with one error naming the call.
#include "runtime/execution_context.h"

#include "core/logging.h"

#include <string>

namespace kiln::runtime
{

nvinfer1::Dims ExecutionContext::getTensorStrides(char const* tensorName) const noexcept
{
    nvinfer1::Dims const shape = getTensorShape(tensorName);
    nvinfer1::Dims strides{-1, {}};
    if (shape.nbDims < 0)
    {
        return strides;
    }
    for (int32_t i = 0; i < shape.nbDims; ++i)
    {
        if (shape.d[i] < 0)
        {
            return strides; // not known until the input shapes (or a run) decide it
        }
    }
    // Kiln's I/O tensors are row-major (kLINEAR), so each stride is the product of the extents after it.
    strides.nbDims = shape.nbDims;
    int64_t stride = 1;
    for (int32_t i = shape.nbDims - 1; i >= 0; --i)
    {
        strides.d[i] = stride;
        stride *= shape.d[i];
    }
    return strides;
}

bool ExecutionContext::setOutputTensorAddress(char const* tensorName, void* data) noexcept
{
    if (mEngine.getTensorIOMode(tensorName) != nvinfer1::TensorIOMode::kOUTPUT)
    {
        logError(std::string("IExecutionContext::setOutputTensorAddress: '") + (tensorName ? tensorName : "(null)")
            + "' is not an output of the engine");
        return false;
    }
    return setTensorAddress(tensorName, data);
}

int32_t ExecutionContext::inferShapes(int32_t nbMaxNames, char const** tensorNames) noexcept
{
    if (nbMaxNames < 0 || (nbMaxNames > 0 && tensorNames == nullptr))
    {
        logError("IExecutionContext::inferShapes: tensorNames is null or nbMaxNames negative");
        return -1;
    }
    int32_t missing = 0;
    for (int32_t i = 0; i < mEngine.getNbIOTensors(); ++i)
    {
        char const* name = mEngine.getIOTensorName(i);
        if (mEngine.getTensorIOMode(name) != nvinfer1::TensorIOMode::kINPUT)
        {
            continue;
        }
        nvinfer1::Dims const shape = getTensorShape(name);
        bool known = shape.nbDims >= 0;
        for (int32_t d = 0; known && d < shape.nbDims; ++d)
        {
            known = shape.d[d] >= 0;
        }
        if (!known)
        {
            if (missing < nbMaxNames)
            {
                tensorNames[missing] = name;
            }
            ++missing;
        }
    }
    if (missing > 0)
    {
        return missing;
    }
    std::vector<nvinfer1::Dims> shapes;
    std::string error;
    if (!computeShapes(shapes, error))
    {
        logError("IExecutionContext::inferShapes: " + error);
        return -1;
    }
    return 0;
}

bool ExecutionContext::setInputConsumedEvent(cudaEvent_t event) noexcept
{
    if (event == nullptr)
    {
        return true;
    }
    logError("IExecutionContext::setInputConsumedEvent: Kiln does not signal when the inputs are consumed yet; "
             "synchronise on the enqueueV3 stream instead");
    return false;
}

bool ExecutionContext::setNvtxVerbosity(nvinfer1::ProfilingVerbosity verbosity) noexcept
{
    auto const value = static_cast<int32_t>(verbosity);
    if (value < 0 || value >= nvinfer1::EnumMax<nvinfer1::ProfilingVerbosity>())
    {
        logError("IExecutionContext::setNvtxVerbosity: " + std::to_string(value) + " is not a ProfilingVerbosity");
        return false;
    }
    mNvtxVerbosity = verbosity; // Kiln emits no NVTX ranges; the level is kept for getNvtxVerbosity
    return true;
}

bool ExecutionContext::setCommunicator(void* /*communicator*/) noexcept
{
    logError("IExecutionContext::setCommunicator: Kiln's engines run on one device and exchange nothing with other "
             "ranks, so the communicator is not kept");
    return false;
}

} // namespace kiln::runtime
