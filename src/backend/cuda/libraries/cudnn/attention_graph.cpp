#include "backend/cuda/libraries/cudnn/attention_graph.h"

#include <deque>
#include <stdexcept>
#include <utility>
#include <vector>

namespace kiln::cuda
{
namespace
{

//! The unique ids by which a run's variant pack names the operation's tensors.
enum TensorId : int64_t
{
    kQUERY = 1,
    kKEYS,
    kVALUES,
    kOUTPUT,
    kSCALE,
};

BackendDescriptor operandTensor(TensorId id, SdpaOperand const& operand)
{
    return graphTensor(id, {operand.dims.begin(), operand.dims.end()}, {operand.strides.begin(), operand.strides.end()},
        CUDNN_DATA_HALF, false);
}

} // namespace

AttentionGraph::AttentionGraph(BackendDescriptor plan, std::deque<BackendDescriptor> parts, float scale)
    : mParts(std::move(parts))
    , mPlan(std::move(plan))
    , mScale(std::make_unique<float>(scale))
{
}

std::optional<AttentionGraph> AttentionGraph::make(
    cudnnHandle_t handle, SdpaOperands const& operands, float scale, int64_t workspaceLimit)
{
#if CUDNN_VERSION >= 91301
    // What the graph refers to stays with the plan, as the convolution graphs keep theirs.
    std::deque<BackendDescriptor> parts;
    std::vector<BackendDescriptor> configs;
    try
    {
        BackendDescriptor const& query = parts.emplace_back(operandTensor(kQUERY, operands.query));
        BackendDescriptor const& keys = parts.emplace_back(operandTensor(kKEYS, operands.keys));
        BackendDescriptor const& values = parts.emplace_back(operandTensor(kVALUES, operands.values));
        BackendDescriptor const& output = parts.emplace_back(operandTensor(kOUTPUT, operands.output));
        BackendDescriptor const& scaleTensor
            = parts.emplace_back(graphTensor(kSCALE, {1, 1, 1, 1}, {1, 1, 1, 1}, CUDNN_DATA_FLOAT, false, true));
        BackendDescriptor& attention = parts.emplace_back(CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR);
        attention.set(CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC, query, "giving attention its query")
            .set(CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC, keys, "giving attention its keys")
            .set(CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC, values, "giving attention its values")
            .set(CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC, output, "giving attention its output")
            .set(CUDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC, scaleTensor, "giving attention its scale")
            .finalize("describing attention");
        parts.emplace_back(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR)
            .set(CUDNN_ATTR_OPERATIONGRAPH_OPS, std::vector<BackendDescriptor const*>{&attention},
                "describing attention")
            .set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle, "giving the graph a handle")
            .finalize("describing attention");
        configs = rankedEngineConfigs(parts.back(), CUDNN_HEUR_MODE_A);
    }
    catch (std::runtime_error const&)
    {
        // A cuDNN library older than its headers (without the operation), operands the operation does not take, or
        // a GPU whose heuristics refuse it: Kiln's own kernel runs the layer.
        return std::nullopt;
    }
    for (BackendDescriptor const& config : configs)
    {
        std::optional<BackendDescriptor> plan = executionPlan(handle, config);
        if (plan && workspaceBytesOf(*plan) <= workspaceLimit)
        {
            return AttentionGraph(std::move(*plan), std::move(parts), scale);
        }
    }
#else
    (void) handle;
    (void) operands;
    (void) scale;
    (void) workspaceLimit;
#endif
    return std::nullopt;
}

void AttentionGraph::execute(cudnnHandle_t handle, SdpaData const& data)
{
    if (!mPack || !(mPackData == data))
    {
        mPack.reset();
        mPack = variantPack({kQUERY, kKEYS, kVALUES, kOUTPUT, kSCALE},
            {const_cast<void*>(data.query), const_cast<void*>(data.keys), const_cast<void*>(data.values), data.output,
                mScale.get()},
            data.workspace);
        mPackData = data;
    }
    checkBackend(cudnnBackendExecute(handle, mPlan.get(), mPack->get()), "running attention");
}

} // namespace kiln::cuda
