#include "context_buffers.h"

#include "bounded_io.h"
#include "cli_logger.h"
#include "spec_parsing.h"

#include <kiln/CpuBackend.h>

#include <algorithm>

namespace kiln::cli
{
namespace
{

double msSince(std::chrono::steady_clock::time_point origin)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - origin).count();
}

} // namespace

bool ContextBuffers::makeOutputs(nvinfer1::ICudaEngine const& engine, std::string& error)
{
    mOutputs.clear();
    mDataDependent.clear();
    for (int32_t i = 0; i < engine.getNbIOTensors(); ++i)
    {
        char const* name = engine.getIOTensorName(i);
        if (engine.getTensorIOMode(name) != nvinfer1::TensorIOMode::kOUTPUT)
        {
            continue;
        }
        HostTensor output{name, engine.getTensorDataType(name), mContext->getTensorShape(name), {}};
        if (output.dims.nbDims < 0)
        {
            error = "the shape of output \"" + output.name + "\" cannot be resolved (see the error above)";
            return false;
        }
        bool const dataDependent
            = std::any_of(output.dims.d, output.dims.d + output.dims.nbDims, [](int64_t d) { return d < 0; });
        // A data-dependent output gets room for its largest size; the shape comes with each inference.
        std::optional<size_t> bytes = tensorByteSize(output.type, output.dims);
        if (dataDependent)
        {
            int64_t const largest = mContext->getMaxOutputSize(name);
            bytes = largest < 0 ? std::nullopt : std::optional<size_t>(static_cast<size_t>(largest));
        }
        if (!bytes)
        {
            error = dataDependent
                ? "the largest size of output \"" + output.name + "\" is unknown (see the error above)"
                : "output \"" + output.name + "\" (" + trtexecTypeName(output.type) + ", shape " + dimsSpec(output.dims)
                    + ") has more elements or bytes than 64 bits count";
            return false;
        }
        if (!allocateTensorBytes(output, "output", *bytes, error))
        {
            return false;
        }
        mOutputs.push_back(std::move(output));
        mDataDependent.push_back(dataDependent);
    }
    return true;
}

bool ContextBuffers::setUp(nvinfer1::ICudaEngine& engine, std::vector<HostTensor> const& inputs,
    StreamSettings const& settings, std::string& error)
{
    mSettings = settings;
    mContext.reset(engine.createExecutionContext());
    if (mContext == nullptr)
    {
        error = "cannot create an execution context (see the error above)";
        return false;
    }
    if (settings.backend == Backend::kCPU && !setCpuThreads(*mContext, settings.cpuThreads, settings.fixedThreads))
    {
        error = "cannot run on " + std::to_string(settings.cpuThreads) + " threads (see the error above)";
        return false;
    }
    mInputs = inputs;
    for (HostTensor& input : mInputs)
    {
        if (!mContext->setInputShape(input.name.c_str(), input.dims))
        {
            error = "input \"" + input.name + "\" cannot take the shape " + dimsSpec(input.dims)
                + " (see the error above; --shapes sets it)";
            return false;
        }
        // A shape-tensor input's values decide the output shapes, which the buffers below are sized by; they are read
        // from host memory on every backend, as in TensorRT.
        if (engine.isShapeInferenceIO(input.name.c_str()))
        {
            mContext->setTensorAddress(input.name.c_str(), input.bytes.data());
        }
    }
    if (!mContext->allInputDimensionsSpecified())
    {
        error = "not every input shape is known; give the dynamic ones with --shapes";
        return false;
    }
    if (!makeOutputs(engine, error))
    {
        return false;
    }
    bool const onDevice = settings.backend == Backend::kCUDA;
    if (onDevice && !mDevice.allocate(settings.device, mInputs, mOutputs, error))
    {
        return false;
    }
    for (size_t i = 0; i < mInputs.size(); ++i)
    {
        bool const host = !onDevice || engine.isShapeInferenceIO(mInputs[i].name.c_str());
        void* address = host ? mInputs[i].bytes.data() : mDevice.inputAddress(i);
        mContext->setTensorAddress(mInputs[i].name.c_str(), address);
    }
    mAllocators.clear();
    for (size_t o = 0; o < mOutputs.size(); ++o)
    {
        void* address = onDevice ? mDevice.outputAddress(o) : mOutputs[o].bytes.data();
        mContext->setTensorAddress(mOutputs[o].name.c_str(), address);
        mAllocators.push_back(
            mDataDependent[o] ? std::make_unique<DataDependentOutput>(address, mOutputs[o].bytes.size()) : nullptr);
        if (mAllocators.back() != nullptr)
        {
            mContext->setOutputAllocator(mOutputs[o].name.c_str(), mAllocators.back().get());
        }
    }
    if (onDevice && settings.cudaGraph)
    {
        std::string why;
        mGraphCaptured = mDevice.captureGraph([this](cudaStream_t stream) { return mContext->enqueueV3(stream); }, why);
        if (mGraphCaptured)
        {
            logInfo("Captured one inference into a CUDA graph; the timed inferences replay it");
        }
        else
        {
            logWarning("--useCudaGraph: " + why + "; inferences are enqueued directly");
        }
    }
    if (onDevice && !settings.transfers)
    {
        // --noDataTransfers: the inputs are copied once, here, and the timed inferences copy nothing.
        InferenceTrace ignored;
        return mDevice.start([](cudaStream_t) { return true; }, true, std::chrono::steady_clock::now(), error)
            && mDevice.finish(false, ignored, error);
    }
    return true;
}

int32_t ContextBuffers::depth() const
{
    return mSettings.backend == Backend::kCUDA ? DeviceIo::kDepth : 1;
}

bool ContextBuffers::start(std::chrono::steady_clock::time_point origin, std::string& error)
{
    if (mSettings.backend == Backend::kCUDA)
    {
        // A graph replay reports no layer times, so a profiled inference (--separateProfileRun's) is enqueued.
        bool const replay = mGraphCaptured && mContext->getProfiler() == nullptr;
        auto const enqueue = [this, replay](cudaStream_t stream) {
            return replay ? mDevice.launchGraph(stream) : mContext->enqueueV3(stream);
        };
        return mDevice.start(enqueue, mSettings.transfers, origin, error);
    }
    InferenceTrace& trace = mCpuTrace;
    trace.enqStart = msSince(origin);
    bool const ok = mContext->enqueueV3(nullptr);
    trace.enqEnd = msSince(origin);
    // No transfers on the CPU: H2D ends where it starts, at the enqueue, and so does D2H at its end.
    trace.h2dStart = trace.h2dEnd = trace.computeStart = trace.enqStart;
    trace.computeEnd = trace.d2hStart = trace.d2hEnd = trace.enqEnd;
    if (!ok)
    {
        error = "inference failed (see the error above)";
        return false;
    }
    mCpuQueued = true;
    return true;
}

bool ContextBuffers::finish(InferenceTrace& trace, std::string& error)
{
    if (mSettings.backend == Backend::kCUDA)
    {
        return mDevice.finish(mSettings.spinWait, trace, error);
    }
    if (!mCpuQueued)
    {
        error = "internal error: waiting for an inference when none is queued";
        return false;
    }
    mCpuQueued = false;
    trace = mCpuTrace;
    return true;
}

std::vector<HostTensor> const& ContextBuffers::outputs()
{
    if (mSettings.backend != Backend::kCUDA)
    {
        return reported();
    }
    std::string error;
    if (mSettings.transfers)
    {
        mDevice.readOutputs(mOutputs);
    }
    else if (!mDevice.download(mOutputs, error))
    {
        logError(error);
    }
    return reported();
}

std::vector<HostTensor> const& ContextBuffers::reported()
{
    mReported = mOutputs;
    for (size_t o = 0; o < mReported.size(); ++o)
    {
        if (mAllocators[o] != nullptr) // the part the last inference wrote, in the shape it told
        {
            mReported[o].dims = mAllocators[o]->shape();
            int64_t const count = std::max<int64_t>(mReported[o].elementCount(), 0);
            mReported[o].bytes.resize(static_cast<size_t>(count) * elementSize(mReported[o].type));
        }
    }
    return mReported;
}

} // namespace kiln::cli
