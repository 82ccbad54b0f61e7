#include "builder/residual_buffers.h"

#include "plan/plan_graph.h"

#include <algorithm>

namespace kiln::builder
{
namespace
{

using plan::PlanModel;

//! Whether layer `l` reads tensor `t`, or a view of it, at an input other than its last (the residual).
bool readsBesidesResidual(PlanModel const& model, plan::LayerRecord const& layer, int32_t t)
{
    return std::any_of(layer.inputs.begin(), layer.inputs.end() - 1,
        [&](int32_t input) { return input >= 0 && (input == t || model.tensors[input].viewOf == t); });
}

//! Whether tensors `a` and `b` may share bytes as far as the application and the kernels see them.
bool sharable(plan::TensorRecord const& a, plan::TensorRecord const& b)
{
    return !plan::isObserved(a) && !plan::isObserved(b) && a.viewOf < 0 && b.viewOf < 0 && a.type == b.type
        && a.format == b.format && b.maxBytes <= a.maxBytes;
}

} // namespace

std::vector<SharedBuffer> shareResidualBuffers(PlanModel const& model, backend::Implementation const& backend,
    std::vector<BufferRequest>& requests, std::vector<size_t>& requestTensor)
{
    std::vector<int64_t> requestOf(model.tensors.size(), -1);
    for (size_t r = 0; r < requests.size(); ++r)
    {
        requestOf[requestTensor[r]] = static_cast<int64_t>(r);
    }
    std::vector<size_t> ownerOf(model.tensors.size());
    for (size_t t = 0; t < ownerOf.size(); ++t)
    {
        ownerOf[t] = t;
    }
    std::vector<SharedBuffer> shared;
    std::vector<bool> merged(requests.size(), false);
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        plan::LayerRecord const& layer = model.layers[l];
        if (!plan::addsResidualInput(layer) || layer.inputs.size() < 2 || layer.outputs.size() != 1
            || layer.inputs.back() < 0 || layer.outputs[0] < 0 || !backend.writesOverResidual(model, l))
        {
            continue;
        }
        auto const residual = static_cast<size_t>(layer.inputs.back());
        auto const output = static_cast<size_t>(layer.outputs[0]);
        size_t const owner = ownerOf[residual];
        int64_t const ownerRequest = requestOf[owner];
        int64_t const outputRequest = requestOf[output];
        if (ownerRequest < 0 || outputRequest < 0
            || requests[static_cast<size_t>(ownerRequest)].lastStep != static_cast<int32_t>(l)
            || readsBesidesResidual(model, layer, layer.inputs.back())
            || !sharable(model.tensors[owner], model.tensors[output])
            || !sharable(model.tensors[residual], model.tensors[output]))
        {
            continue;
        }
        BufferRequest& into = requests[static_cast<size_t>(ownerRequest)];
        BufferRequest const& from = requests[static_cast<size_t>(outputRequest)];
        into.firstStep = std::min(into.firstStep, from.firstStep);
        into.lastStep = std::max(into.lastStep, from.lastStep);
        merged[static_cast<size_t>(outputRequest)] = true;
        requestOf[output] = ownerRequest;
        ownerOf[output] = owner;
        shared.push_back({output, owner});
    }
    size_t kept = 0;
    for (size_t r = 0; r < requests.size(); ++r)
    {
        if (!merged[r])
        {
            requests[kept] = requests[r];
            requestTensor[kept] = requestTensor[r];
            ++kept;
        }
    }
    requests.resize(kept);
    requestTensor.resize(kept);
    return shared;
}

} // namespace kiln::builder
