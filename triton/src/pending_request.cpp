#include "pending_request.h"

#include "backend_error.h"
#include "data_types.h"

#include <algorithm>

namespace kiln::triton
{
namespace
{

BackendError invalid(std::string const& message)
{
    return BackendError(TRITONSERVER_ERROR_INVALID_ARG, message);
}

//! The shape checks: the rank, the batch within max_batch_size, every other dimension within the profile.
void checkShape(EngineTensor const& tensor, std::vector<int64_t> const& shape, int64_t maxBatchSize)
{
    std::string const what = "input \"" + tensor.name + "\" has shape " + dimsText(shape);
    if (shape.size() != tensor.dims.size())
    {
        throw invalid(what + ", but the model takes " + std::to_string(tensor.dims.size()) + " dimensions "
            + dimsText(tensor.dims) + (maxBatchSize > 0 ? ", the batch dimension included" : ""));
    }
    for (size_t j = 0; j < shape.size(); ++j)
    {
        bool const batchDimension = j == 0 && maxBatchSize > 0;
        int64_t const low = batchDimension ? 1 : tensor.minDims[j];
        int64_t const high = batchDimension ? maxBatchSize : tensor.maxDims[j];
        if (shape[j] < low || shape[j] > high)
        {
            throw invalid(what + ": dimension " + std::to_string(j) + " must be "
                + (low == high ? std::to_string(low) : "from " + std::to_string(low) + " to " + std::to_string(high))
                + (batchDimension ? " (max_batch_size)" : " (the engine's profile)"));
        }
    }
}

RequestInput readInput(TRITONBACKEND_Input* handle, EngineTensor const& tensor, int64_t maxBatchSize)
{
    char const* name = nullptr;
    TRITONSERVER_DataType type = TRITONSERVER_TYPE_INVALID;
    int64_t const* shape = nullptr;
    uint32_t rank = 0;
    uint32_t bufferCount = 0;
    RequestInput input;
    check(TRITONBACKEND_InputProperties(handle, &name, &type, &shape, &rank, &input.bytes, &bufferCount),
        "cannot read input \"" + tensor.name + "\"");
    if (type != tensor.type)
    {
        throw BackendError(
            type == TRITONSERVER_TYPE_BYTES ? TRITONSERVER_ERROR_UNSUPPORTED : TRITONSERVER_ERROR_INVALID_ARG,
            "input \"" + tensor.name + "\" is " + protocolTypeName(type) + ", but the model takes "
                + protocolTypeName(tensor.type));
    }
    input.shape.assign(shape, shape + rank);
    checkShape(tensor, input.shape, maxBatchSize);
    uint64_t expected = elementBytes(tensor.type);
    for (int64_t d : input.shape)
    {
        expected *= static_cast<uint64_t>(d);
    }
    uint64_t held = 0;
    for (uint32_t b = 0; b < bufferCount; ++b)
    {
        InputChunk chunk;
        int64_t memoryId = 0;
        check(TRITONBACKEND_InputBuffer(handle, b, &chunk.data, &chunk.bytes, &chunk.memory, &memoryId),
            "cannot read the data of input \"" + tensor.name + "\"");
        held += chunk.bytes;
        input.chunks.push_back(chunk);
    }
    if (input.bytes != expected || held != expected)
    {
        throw invalid("input \"" + tensor.name + "\" has " + std::to_string(held) + " bytes, but its shape "
            + dimsText(input.shape) + " of " + protocolTypeName(tensor.type) + " holds " + std::to_string(expected));
    }
    return input;
}

std::vector<size_t> requestedOutputs(TRITONBACKEND_Request* request, ServedModel const& model)
{
    uint32_t count = 0;
    check(TRITONBACKEND_RequestOutputCount(request, &count), "cannot read the requested outputs");
    std::vector<size_t> indexes;
    for (uint32_t i = 0; i < count; ++i)
    {
        char const* name = nullptr;
        check(TRITONBACKEND_RequestOutputName(request, i, &name), "cannot read the requested outputs");
        auto const it = std::find_if(
            model.outputs.begin(), model.outputs.end(), [&](EngineTensor const& t) { return t.name == name; });
        if (it == model.outputs.end())
        {
            throw invalid("the model has no output \"" + std::string(name) + "\"");
        }
        indexes.push_back(static_cast<size_t>(it - model.outputs.begin()));
    }
    if (indexes.empty())
    {
        for (size_t o = 0; o < model.outputs.size(); ++o)
        {
            indexes.push_back(o);
        }
    }
    return indexes;
}

} // namespace

PendingRequest readRequest(TRITONBACKEND_Request* request, ServedModel const& model)
{
    PendingRequest pending;
    pending.request = request;
    uint32_t count = 0;
    check(TRITONBACKEND_RequestInputCount(request, &count), "cannot read the request's inputs");
    std::vector<TRITONBACKEND_Input*> handles(model.inputs.size(), nullptr);
    for (uint32_t i = 0; i < count; ++i)
    {
        TRITONBACKEND_Input* handle = nullptr;
        char const* name = nullptr;
        check(TRITONBACKEND_RequestInputByIndex(request, i, &handle), "cannot read the request's inputs");
        check(TRITONBACKEND_InputProperties(handle, &name, nullptr, nullptr, nullptr, nullptr, nullptr),
            "cannot read the request's inputs");
        auto const it = std::find_if(
            model.inputs.begin(), model.inputs.end(), [&](EngineTensor const& t) { return t.name == name; });
        if (it == model.inputs.end())
        {
            throw invalid("the model has no input \"" + std::string(name) + "\"");
        }
        handles[static_cast<size_t>(it - model.inputs.begin())] = handle;
    }
    for (size_t i = 0; i < model.inputs.size(); ++i)
    {
        if (handles[i] == nullptr)
        {
            throw invalid("the request lacks input \"" + model.inputs[i].name + "\"");
        }
        pending.inputs.push_back(readInput(handles[i], model.inputs[i], model.maxBatchSize));
    }
    if (model.maxBatchSize > 0)
    {
        pending.batch = pending.inputs.front().shape.front();
        for (size_t i = 1; i < pending.inputs.size(); ++i)
        {
            if (pending.inputs[i].shape.front() != pending.batch)
            {
                throw invalid("the inputs differ in their batch dimension (" + model.inputs[0].name + " has "
                    + std::to_string(pending.batch) + " rows, " + model.inputs[i].name + " "
                    + std::to_string(pending.inputs[i].shape.front()) + ")");
            }
        }
    }
    pending.outputs = requestedOutputs(request, model);
    return pending;
}

bool sameShapesButBatch(PendingRequest const& a, PendingRequest const& b)
{
    for (size_t i = 0; i < a.inputs.size(); ++i)
    {
        std::vector<int64_t> const& x = a.inputs[i].shape;
        std::vector<int64_t> const& y = b.inputs[i].shape;
        if (x.size() != y.size() || !std::equal(x.begin() + 1, x.end(), y.begin() + 1))
        {
            return false;
        }
    }
    return true;
}

} // namespace kiln::triton
