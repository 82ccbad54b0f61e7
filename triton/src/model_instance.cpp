#include "model_instance.h"

#include "backend_error.h"
#include "data_types.h"
#include "server_log.h"

#include <kiln/CpuBackend.h>

#include <algorithm>

namespace kiln::triton
{
namespace
{

uint64_t byteSize(TRITONSERVER_DataType type, std::vector<int64_t> const& shape)
{
    uint64_t bytes = elementBytes(type);
    for (int64_t d : shape)
    {
        bytes *= static_cast<uint64_t>(d);
    }
    return bytes;
}

} // namespace

ModelInstance::ModelInstance(ModelState& model, TRITONBACKEND_ModelInstance* instance)
    : mModel(model)
    , mInstance(instance)
{
    char const* name = nullptr;
    check(TRITONBACKEND_ModelInstanceName(instance, &name), "cannot get the instance's name");
    mName = name != nullptr ? name : "";
    TRITONSERVER_InstanceGroupKind kind = TRITONSERVER_INSTANCEGROUPKIND_AUTO;
    check(TRITONBACKEND_ModelInstanceKind(instance, &kind), "cannot get the instance's kind");
    int32_t device = 0;
    check(TRITONBACKEND_ModelInstanceDeviceId(instance, &device), "cannot get the instance's device");
    if (kind != TRITONSERVER_INSTANCEGROUPKIND_CPU && kind != TRITONSERVER_INSTANCEGROUPKIND_GPU)
    {
        throw BackendError(TRITONSERVER_ERROR_UNSUPPORTED,
            "instance " + mName + ": Kiln's backend runs KIND_CPU and KIND_GPU instances");
    }
    bool const onGpu = kind == TRITONSERVER_INSTANCEGROUPKIND_GPU;
    // The one place where the kinds differ: a KIND_GPU instance stages tensors in its GPU's memory and runs on a
    // stream of its own. Making the staging makes that GPU current, so the engine and context below are made on it.
    mStaging = onGpu ? makeDeviceStaging(device) : makeHostStaging();
    mEngine = mModel.engineFor(onGpu ? Backend::kCUDA : Backend::kCPU, device);
    mIo = describeEngine(*mEngine);
    KilnErrorCapture errors;
    mContext.reset(mEngine->createExecutionContext());
    if (mContext == nullptr)
    {
        throw BackendError(TRITONSERVER_ERROR_INTERNAL, errors.explain("cannot create an execution context"));
    }
    if (!onGpu && !setCpuThreads(*mContext, mModel.parameters().cpuThreads))
    {
        throw BackendError(TRITONSERVER_ERROR_INVALID_ARG, errors.explain("cannot set cpu_threads"));
    }
    for (EngineTensor const& output : mModel.served().outputs)
    {
        auto const it = std::find_if(
            mIo.outputs.begin(), mIo.outputs.end(), [&](EngineTensor const& t) { return t.name == output.name; });
        mServedOutputSlot.push_back(mIo.inputs.size() + static_cast<size_t>(it - mIo.outputs.begin()));
    }
    mStagedOutputs.resize(mIo.outputs.size());
    stageDataDependentOutputs();
    startCudaGraphs(onGpu);
    mSender = std::make_unique<ResponseSender>(instance);
    logInfo("Kiln: instance " + mName + " runs on the "
        + (onGpu ? "CUDA backend, GPU " + std::to_string(device) : std::string("CPU backend")));
}

ModelInstance::~ModelInstance() = default;

void ModelInstance::stageDataDependentOutputs()
{
    KilnErrorCapture errors;
    for (size_t o = 0; o < mIo.outputs.size(); ++o)
    {
        if (mIo.outputs[o].dataDependent)
        {
            mStagedOutputs[o] = std::make_unique<StagedOutput>(*mStaging, mIo.inputs.size() + o);
            if (!mContext->setOutputAllocator(mIo.outputs[o].name.c_str(), mStagedOutputs[o].get()))
            {
                throw BackendError(TRITONSERVER_ERROR_INTERNAL,
                    errors.explain("cannot set the output allocator of \"" + mIo.outputs[o].name + "\""));
            }
        }
    }
}

void ModelInstance::startCudaGraphs(bool onGpu)
{
    if (!mModel.parameters().cudaGraphs)
    {
        return;
    }
    if (!onGpu)
    {
        logInfo("Kiln: instance " + mName + ": CUDA graphs (optimization { cuda { graphs: true } }) are for KIND_GPU "
            + "instances; this KIND_CPU instance runs without them");
    }
    else if (EngineTensor const* output = mIo.firstDataDependentOutput())
    {
        logWarning("Kiln: instance " + mName + " runs without CUDA graphs: the shape of output \"" + output->name
            + "\" depends on the data, so a run waits on the GPU midway, which a graph cannot hold");
    }
    else if (mStaging->useCudaGraphs(mEngine, mModel.parameters().maxCudaGraphs, mName))
    {
        reserveLargestSlots();
        logInfo("Kiln: instance " + mName + " captures a CUDA graph for each set of input shapes it runs (at most "
            + std::to_string(mModel.parameters().maxCudaGraphs) + ") and replays it");
    }
}

void ModelInstance::reserveLargestSlots()
{
    KilnErrorCapture errors;
    for (size_t i = 0; i < mIo.inputs.size(); ++i)
    {
        EngineTensor const& input = mIo.inputs[i];
        if (!mContext->setInputShape(input.name.c_str(), toDims(input.maxDims)))
        {
            throw BackendError(TRITONSERVER_ERROR_INTERNAL, errors.explain("cannot set the shape of " + input.name));
        }
        mStaging->slot(i, byteSize(input.type, input.maxDims));
    }
    for (size_t o = 0; o < mIo.outputs.size(); ++o)
    {
        nvinfer1::Dims const dims = mContext->getTensorShape(mIo.outputs[o].name.c_str());
        std::vector<int64_t> const shape(dims.d, dims.d + std::max(dims.nbDims, 0));
        mStaging->slot(mIo.inputs.size() + o, byteSize(mIo.outputs[o].type, shape));
    }
}

void ModelInstance::execute(TRITONBACKEND_Request** requests, uint32_t count)
{
    uint64_t const execStart = ResponseSender::now();
    std::vector<PendingRequest> pending;
    pending.reserve(count);
    ResponseSender::Batch refused;
    for (uint32_t r = 0; r < count; ++r)
    {
        try
        {
            pending.push_back(readRequest(requests[r], mModel.served()));
        }
        catch (...)
        {
            refused.answers.push_back({requests[r], nullptr, currentExceptionAsTritonError()});
        }
    }
    if (!refused.answers.empty())
    {
        uint64_t const now = ResponseSender::now();
        refused.times = {execStart, now, now};
        mSender->post(std::move(refused));
    }
    for (Batch const& batch : formBatches(pending))
    {
        runBatch(batch, execStart);
    }
}

std::vector<ModelInstance::Batch> ModelInstance::formBatches(std::vector<PendingRequest>& pending) const
{
    int64_t const maxBatchSize = mModel.served().maxBatchSize;
    std::vector<Batch> batches;
    std::vector<int64_t> rows;
    for (PendingRequest& request : pending)
    {
        size_t b = 0;
        while (maxBatchSize > 0 && b < batches.size()
            && !(rows[b] + request.batch <= maxBatchSize && sameShapesButBatch(*batches[b].front(), request)))
        {
            ++b;
        }
        if (maxBatchSize == 0 || b == batches.size())
        {
            batches.emplace_back();
            rows.push_back(0);
            b = batches.size() - 1;
        }
        batches[b].push_back(&request);
        rows[b] += request.batch;
    }
    return batches;
}

void ModelInstance::runBatch(Batch const& batch, uint64_t execStart)
{
    ResponseSender::Batch answered;
    for (PendingRequest const* request : batch)
    {
        answered.rows += static_cast<uint64_t>(request->batch);
    }
    int64_t const rows = static_cast<int64_t>(answered.rows);
    answered.times = {execStart, ResponseSender::now(), 0};
    try
    {
        KilnErrorCapture errors;
        bindInputs(batch, rows);
        bindOutputs();
        answered.times[1] = ResponseSender::now(); // Triton's statistics count the copies in as the compute's input
        if (!mStaging->run(*mContext))
        {
            throw BackendError(TRITONSERVER_ERROR_INTERNAL, errors.explain("Kiln's run of the batch failed"));
        }
        readDataDependentShapes();
        answered.answers = respond(batch, rows);
    }
    catch (...)
    {
        // Nothing was answered yet: respond() answers every request itself once it starts.
        TRITONSERVER_Error* error = currentExceptionAsTritonError();
        for (PendingRequest const* request : batch)
        {
            answered.answers.push_back({request->request, nullptr,
                TRITONSERVER_ErrorNew(TRITONSERVER_ErrorCode(error), TRITONSERVER_ErrorMessage(error))});
        }
        TRITONSERVER_ErrorDelete(error);
    }
    answered.times[2] = ResponseSender::now(); // the run and the copies of its outputs are over
    mSender->post(std::move(answered));
}

void ModelInstance::bindInputs(Batch const& batch, int64_t rows)
{
    KilnErrorCapture errors;
    for (size_t i = 0; i < mIo.inputs.size(); ++i)
    {
        std::string const& name = mIo.inputs[i].name;
        std::vector<int64_t> shape = batch.front()->inputs[i].shape;
        if (mModel.served().maxBatchSize > 0)
        {
            shape[0] = rows;
        }
        if (!mContext->setInputShape(name.c_str(), toDims(shape)))
        {
            throw BackendError(TRITONSERVER_ERROR_INVALID_ARG,
                errors.explain("the engine does not take input \"" + name + "\" of shape " + dimsText(shape)));
        }
        uint64_t total = 0;
        for (PendingRequest const* request : batch)
        {
            total += request->inputs[i].bytes;
        }
        mContext->setTensorAddress(name.c_str(), mStaging->slot(i, total));
        uint64_t offset = 0;
        for (PendingRequest const* request : batch)
        {
            for (InputChunk const& chunk : request->inputs[i].chunks)
            {
                mStaging->copyIn(i, offset, chunk.data, chunk.bytes, chunk.memory);
                offset += chunk.bytes;
            }
        }
    }
}

void ModelInstance::bindOutputs()
{
    KilnErrorCapture errors;
    mOutputShapes.assign(mIo.outputs.size(), {});
    for (size_t o = 0; o < mIo.outputs.size(); ++o)
    {
        EngineTensor const& output = mIo.outputs[o];
        if (mStagedOutputs[o] != nullptr)
        {
            mStagedOutputs[o]->reset(); // its memory and shape come once its layer has run
            continue;
        }
        nvinfer1::Dims const dims = mContext->getTensorShape(output.name.c_str());
        if (dims.nbDims < 0)
        {
            throw BackendError(
                TRITONSERVER_ERROR_INTERNAL, errors.explain("the shape of output \"" + output.name + "\" is unknown"));
        }
        mOutputShapes[o].assign(dims.d, dims.d + dims.nbDims);
        size_t const slot = mIo.inputs.size() + o;
        mContext->setTensorAddress(output.name.c_str(), mStaging->slot(slot, byteSize(output.type, mOutputShapes[o])));
    }
}

void ModelInstance::readDataDependentShapes()
{
    bool waited = false;
    for (size_t o = 0; o < mIo.outputs.size(); ++o)
    {
        if (mStagedOutputs[o] != nullptr)
        {
            if (!waited)
            {
                mStaging->finish(); // the run has given every shape once it is over
                waited = true;
            }
            mOutputShapes[o] = mStagedOutputs[o]->shape(mIo.outputs[o].name);
        }
    }
}

TRITONSERVER_Error* ModelInstance::addOutputs(
    TRITONBACKEND_Response* response, PendingRequest const& request, int64_t firstRow, int64_t rows)
{
    ServedModel const& served = mModel.served();
    bool const batched = served.maxBatchSize > 0;
    for (size_t s : request.outputs)
    {
        size_t const slot = mServedOutputSlot[s];
        std::vector<int64_t> shape = mOutputShapes[slot - mIo.inputs.size()];
        uint64_t const whole = byteSize(served.outputs[s].type, shape);
        // A batched output's rows follow the requests' order in the batch; an unbatched one is the request's own.
        uint64_t const rowBytes = batched ? whole / static_cast<uint64_t>(rows) : 0;
        uint64_t const bytes = batched ? rowBytes * static_cast<uint64_t>(request.batch) : whole;
        if (batched)
        {
            shape[0] = request.batch;
        }
        TRITONBACKEND_Output* output = nullptr;
        TRITONSERVER_Error* error = TRITONBACKEND_ResponseOutput(response, &output, served.outputs[s].name.c_str(),
            served.outputs[s].type, shape.data(), static_cast<uint32_t>(shape.size()));
        void* buffer = nullptr;
        TRITONSERVER_MemoryType memory = TRITONSERVER_MEMORY_CPU;
        int64_t memoryId = 0;
        // Every output gets a buffer, an empty one too: the server's frontends read each output's buffer.
        if (error == nullptr)
        {
            error = TRITONBACKEND_OutputBuffer(output, &buffer, bytes, &memory, &memoryId);
        }
        if (error != nullptr)
        {
            return error;
        }
        if (bytes > 0)
        {
            mStaging->copyOut(slot, rowBytes * static_cast<uint64_t>(firstRow), buffer, bytes, memory);
        }
    }
    return nullptr;
}

std::vector<ResponseSender::Answer> ModelInstance::respond(Batch const& batch, int64_t rows)
{
    std::vector<ResponseSender::Answer> answers(batch.size());
    int64_t row = 0;
    for (size_t r = 0; r < batch.size(); ++r)
    {
        ResponseSender::Answer& answer = answers[r];
        answer.request = batch[r]->request;
        answer.error = TRITONBACKEND_ResponseNew(&answer.response, answer.request);
        try
        {
            answer.error = answer.error != nullptr ? answer.error : addOutputs(answer.response, *batch[r], row, rows);
        }
        catch (...)
        {
            answer.error = currentExceptionAsTritonError();
        }
        row += batch[r]->batch;
    }
    try
    {
        mStaging->finish(); // the copies out are done before any response goes
    }
    catch (...)
    {
        for (ResponseSender::Answer& answer : answers)
        {
            answer.error = answer.error != nullptr ? answer.error : currentExceptionAsTritonError();
        }
    }
    return answers;
}

} // namespace kiln::triton
