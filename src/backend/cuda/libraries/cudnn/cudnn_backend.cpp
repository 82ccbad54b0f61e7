#include "backend/cuda/libraries/cudnn/cudnn_backend.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace kiln::cuda
{

void checkBackend(cudnnStatus_t status, char const* what)
{
    if (status == CUDNN_STATUS_SUCCESS)
    {
        return;
    }
    // cuDNN 9 keeps a sentence on why it refused; it is far more useful than the status name alone.
    char reason[512] = {};
    cudnnGetLastErrorString(reason, sizeof(reason));
    std::string message = std::string("cuDNN's graph API, ") + what + ": " + cudnnGetErrorString(status);
    if (reason[0] != '\0')
    {
        message += " (" + std::string(reason) + ")";
    }
    throw std::runtime_error(message);
}

BackendDescriptor::BackendDescriptor(cudnnBackendDescriptorType_t type)
{
    checkBackend(cudnnBackendCreateDescriptor(type, &mDescriptor), "creating a graph descriptor");
}

BackendDescriptor::~BackendDescriptor()
{
    if (mDescriptor != nullptr)
    {
        cudnnBackendDestroyDescriptor(mDescriptor);
    }
}

BackendDescriptor::BackendDescriptor(BackendDescriptor&& other) noexcept
    : mDescriptor(std::exchange(other.mDescriptor, nullptr))
{
}

BackendDescriptor& BackendDescriptor::operator=(BackendDescriptor&& other) noexcept
{
    std::swap(mDescriptor, other.mDescriptor);
    return *this;
}

BackendDescriptor& BackendDescriptor::set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
    int64_t count, void const* values, char const* what)
{
    checkBackend(cudnnBackendSetAttribute(mDescriptor, name, type, count, values), what);
    return *this;
}

BackendDescriptor& BackendDescriptor::set(cudnnBackendAttributeName_t name, int64_t value, char const* what)
{
    return set(name, CUDNN_TYPE_INT64, 1, &value, what);
}

BackendDescriptor& BackendDescriptor::set(
    cudnnBackendAttributeName_t name, std::vector<int64_t> const& values, char const* what)
{
    return set(name, CUDNN_TYPE_INT64, static_cast<int64_t>(values.size()), values.data(), what);
}

BackendDescriptor& BackendDescriptor::set(
    cudnnBackendAttributeName_t name, BackendDescriptor const& other, char const* what)
{
    cudnnBackendDescriptor_t const descriptor = other.get();
    return set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &descriptor, what);
}

BackendDescriptor& BackendDescriptor::set(
    cudnnBackendAttributeName_t name, std::vector<BackendDescriptor const*> const& others, char const* what)
{
    std::vector<cudnnBackendDescriptor_t> descriptors;
    for (BackendDescriptor const* other : others)
    {
        descriptors.push_back(other->get());
    }
    return set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<int64_t>(descriptors.size()), descriptors.data(), what);
}

void BackendDescriptor::finalize(char const* what)
{
    checkBackend(cudnnBackendFinalize(mDescriptor), what);
}

bool BackendDescriptor::tryFinalize()
{
    return cudnnBackendFinalize(mDescriptor) == CUDNN_STATUS_SUCCESS;
}

BackendDescriptor graphTensor(int64_t id, std::vector<int64_t> const& dims, std::vector<int64_t> const& strides,
    cudnnDataType_t type, bool isVirtual, bool byValue)
{
    BackendDescriptor described(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    described.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type, "describing a tensor's type")
        .set(CUDNN_ATTR_TENSOR_DIMENSIONS, dims, "describing a tensor's dimensions")
        .set(CUDNN_ATTR_TENSOR_STRIDES, strides, "describing a tensor's strides")
        .set(CUDNN_ATTR_TENSOR_UNIQUE_ID, id, "naming a tensor")
        .set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, kGraphTensorAlignment, "describing a tensor's alignment")
        .set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &isVirtual, "describing a tensor");
    if (byValue)
    {
        described.set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &byValue, "describing a scalar");
    }
    described.finalize("describing a tensor");
    return described;
}

BackendDescriptor pointwiseOperation(cudnnPointwiseMode_t mode, BackendDescriptor const& x, BackendDescriptor const* b,
    BackendDescriptor const& y, std::deque<BackendDescriptor>& parts)
{
    cudnnDataType_t const precision = CUDNN_DATA_FLOAT;
    cudnnNanPropagation_t const nan = CUDNN_PROPAGATE_NAN;
    BackendDescriptor function(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    function.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode, "describing an epilogue operation")
        .set(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &precision, "describing an epilogue's precision")
        .set(CUDNN_ATTR_POINTWISE_NAN_PROPAGATION, CUDNN_TYPE_NAN_PROPOGATION, 1, &nan, "describing NaN propagation")
        .finalize("describing an epilogue operation");
    BackendDescriptor operation(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    operation.set(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, function, "describing an epilogue")
        .set(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x, "describing an epilogue's input")
        .set(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y, "describing an epilogue's output");
    if (b != nullptr)
    {
        operation.set(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, *b, "describing an epilogue's second input");
    }
    operation.finalize("describing an epilogue");
    parts.push_back(std::move(function));
    return operation;
}

BackendDescriptor operationGraph(cudnnHandle_t handle, std::vector<BackendDescriptor> const& operations)
{
    std::vector<BackendDescriptor const*> operationList;
    for (BackendDescriptor const& operation : operations)
    {
        operationList.push_back(&operation);
    }
    BackendDescriptor graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    graph.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, operationList, "putting the graph together")
        .set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle, "giving the graph a handle")
        .finalize("putting the graph together");
    return graph;
}

std::vector<BackendDescriptor> rankedEngineConfigs(BackendDescriptor const& graph, cudnnBackendHeurMode_t mode)
{
    BackendDescriptor ranking(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    ranking.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph, "ranking engines")
        .set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode, "ranking engines")
        .finalize("ranking engines");
    int64_t count = 0;
    checkBackend(cudnnBackendGetAttribute(
                     ranking.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr),
        "counting engines");
    std::vector<BackendDescriptor> configs;
    std::vector<cudnnBackendDescriptor_t> handles;
    for (int64_t i = 0; i < count; ++i)
    {
        handles.push_back(configs.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR).get());
    }
    checkBackend(cudnnBackendGetAttribute(ranking.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                     count, &count, handles.data()),
        "reading the engines");
    configs.erase(configs.begin() + count, configs.end());
    return configs;
}

BackendDescriptor engineOf(BackendDescriptor const& config)
{
    BackendDescriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    cudnnBackendDescriptor_t engineHandle = engine.get();
    int64_t count = 0;
    checkBackend(cudnnBackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                     &count, &engineHandle),
        "reading an engine");
    return engine;
}

bool engineHasNote(
    BackendDescriptor const& engine, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int32_t note)
{
    // Both kinds of note are enums of int size; a list longer than either enum's count would be cuDNN's error.
    constexpr int64_t kCapacity = 64;
    static_assert(sizeof(cudnnBackendNumericalNote_t) == sizeof(int32_t)
        && sizeof(cudnnBackendBehaviorNote_t) == sizeof(int32_t));
    int32_t notes[kCapacity] = {};
    int64_t count = 0;
    checkBackend(
        cudnnBackendGetAttribute(engine.get(), name, type, kCapacity, &count, notes), "reading an engine's notes");
    for (int64_t i = 0; i < count; ++i)
    {
        if (notes[i] == note)
        {
            return true;
        }
    }
    return false;
}

bool approximates(BackendDescriptor const& engine)
{
    for (cudnnBackendNumericalNote_t const note : {CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC,
             CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS, CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION,
             CUDNN_NUMERICAL_NOTE_FFT, CUDNN_NUMERICAL_NOTE_WINOGRAD, CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4,
             CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_6x6, CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13})
    {
        if (engineHasNote(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE, note))
        {
            return true;
        }
    }
    return false;
}

std::optional<BackendDescriptor> executionPlan(cudnnHandle_t handle, BackendDescriptor const& config)
{
    BackendDescriptor plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle, "giving a plan its handle")
        .set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, config, "choosing an engine");
    if (!plan.tryFinalize())
    {
        return std::nullopt;
    }
    return plan;
}

int64_t workspaceBytesOf(BackendDescriptor const& plan)
{
    int64_t workspace = 0;
    int64_t count = 0;
    checkBackend(cudnnBackendGetAttribute(
                     plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &count, &workspace),
        "sizing a plan's workspace");
    return workspace;
}

BackendDescriptor variantPack(std::vector<int64_t> const& ids, std::vector<void*> const& pointers, void* workspace)
{
    BackendDescriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, ids, "naming the tensors of a run")
        .set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, static_cast<int64_t>(pointers.size()),
            pointers.data(), "giving the tensors of a run")
        .set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace, "giving the workspace")
        .finalize("preparing a run");
    return pack;
}

} // namespace kiln::cuda
