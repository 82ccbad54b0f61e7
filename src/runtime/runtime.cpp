#include "runtime/runtime.h"

#include "core/logging.h"
#include "plan/plan_format.h"
#include "runtime/engine.h"

#include <kiln/Logging.h>

#include <new>

namespace kiln::runtime
{

nvinfer1::ICudaEngine* Runtime::deserializeCudaEngine(void const* blob, std::size_t size) noexcept
{
    try
    {
        plan::PlanModel model;
        std::string error;
        if (!plan::readPlan(blob, size, model, error))
        {
            reportError("IRuntime::deserializeCudaEngine: " + error);
            return nullptr;
        }
        std::unique_ptr<Engine> engine = Engine::create(std::move(model), mAllocator, error);
        if (engine == nullptr)
        {
            reportError("IRuntime::deserializeCudaEngine: " + error);
            return nullptr;
        }
        // As TensorRT's engines do, the engine reports to the runtime's recorder until it is given another.
        engine->setErrorRecorder(mRecorder);
        return engine.release();
    }
    catch (std::exception const& e)
    {
        reportError(std::string("IRuntime::deserializeCudaEngine: internal error: ") + e.what(),
            nvinfer1::ErrorCode::kINTERNAL_ERROR);
        return nullptr;
    }
}

void Runtime::reportError(std::string const& message, nvinfer1::ErrorCode code) const noexcept
{
    logError(message);
    if (mRecorder == nullptr)
    {
        return;
    }
    try
    {
        mRecorder->reportError(code, message.c_str());
    }
    catch (...)
    {
        logError("IRuntime: the error recorder's reportError threw an exception");
    }
}

nvinfer1::IPluginRegistry& Runtime::getPluginRegistry() noexcept
{
    return *::getPluginRegistry();
}

bool Runtime::setMaxThreads(int32_t maxThreads) noexcept
{
    if (maxThreads < 1)
    {
        return false;
    }
    mMaxThreads = maxThreads;
    return true;
}

} // namespace kiln::runtime

extern "C" void* createInferRuntime_INTERNAL(void* logger, int32_t version) noexcept
{
    if (logger == nullptr)
    {
        kiln::logError("createInferRuntime: the logger is null");
        return nullptr;
    }
    if (version / 10000 != NV_TENSORRT_MAJOR)
    {
        kiln::logError("createInferRuntime: headers of API version " + std::to_string(version)
            + " do not match the library (" + std::to_string(NV_TENSORRT_VERSION) + ")");
        return nullptr;
    }
    auto* iLogger = static_cast<nvinfer1::ILogger*>(logger);
    return static_cast<nvinfer1::IRuntime*>(new (std::nothrow) kiln::runtime::Runtime(*iLogger));
}
