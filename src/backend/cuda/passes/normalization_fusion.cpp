#include "backend/cuda/passes/normalization_fusion.h"

#include "network/layers/normalization.h"
#include "plan/plan_graph.h"
#include "shape/expr.h"

#include <algorithm>

namespace kiln::cuda
{
using plan::ExprNode;
using plan::PlanModel;

namespace
{

bool isConstant(PlanModel const& model, int32_t node, int64_t value)
{
    ExprNode const& expr = model.exprs[node];
    return expr.kind == static_cast<uint8_t>(shape::ExprKind::kCONSTANT) && expr.value == value;
}

} // namespace

network::RowWeight rowWeightIn(PlanModel const& model, int32_t weight, int32_t input, int32_t axes)
{
    if (weight < 0 || input < 0)
    {
        return network::RowWeight::kNONE;
    }
    std::vector<int32_t> const& w = model.tensors[weight].dims;
    std::vector<int32_t> const& x = model.tensors[input].dims;
    if (w.size() != x.size() || axes < 1 || static_cast<size_t>(axes) > x.size())
    {
        return network::RowWeight::kNONE;
    }
    size_t const first = x.size() - static_cast<size_t>(axes);
    bool row = true;
    bool one = true;
    for (size_t axis = 0; axis < x.size(); ++axis)
    {
        bool const unit = isConstant(model, w[axis], 1);
        row = row && (axis < first ? unit : sameExpr(model, w[axis], x[axis]));
        one = one && unit;
    }
    return row ? network::RowWeight::kROW : one ? network::RowWeight::kONE : network::RowWeight::kNONE;
}

bool operandRowsIn(PlanModel const& model, int32_t operand, int32_t sum, int32_t axes)
{
    std::vector<int32_t> const& dims = model.tensors[operand].dims;
    std::vector<int32_t> const& rows = model.tensors[sum].dims;
    if (dims.size() != rows.size() || axes < 1 || static_cast<size_t>(axes) > rows.size())
    {
        return false;
    }
    for (size_t axis = rows.size() - static_cast<size_t>(axes); axis < rows.size(); ++axis)
    {
        if (!sameExpr(model, dims[axis], rows[axis]))
        {
            return false;
        }
    }
    return true;
}

std::optional<network::FusedNormalizationParams> rowNormalizationOf(
    PlanModel const& model, plan::LayerRecord const& record)
{
    auto const* params = plan::paramsOf<network::NormalizationParams>(record);
    if (params == nullptr || params->nbGroups != 1 || record.inputs.size() != 3 || record.outputs.size() != 1
        || std::any_of(record.inputs.begin(), record.inputs.end(), [](int32_t t) { return t < 0; }))
    {
        return std::nullopt;
    }
    int32_t const x = record.inputs[0];
    auto const rank = static_cast<int32_t>(model.tensors[x].dims.size());
    network::FusedNormalizationParams fused;
    fused.normalizedAxes = network::trailingAxesOf(params->axes, rank);
    fused.epsilon = params->epsilon;
    fused.centered = true;
    int32_t const axes = fused.normalizedAxes;
    bool const rows = axes > 0 && rowWeightIn(model, record.inputs[1], x, axes) != network::RowWeight::kNONE
        && rowWeightIn(model, record.inputs[2], x, axes) != network::RowWeight::kNONE;
    return rows ? std::optional<network::FusedNormalizationParams>(fused) : std::nullopt;
}

void fuseNormalizations(PlanModel& model)
{
    fuseNormalizationExpansions(model);
    fuseResidualNormalizations(model);
    fuseNormalizationQuantizations(model);
}

} // namespace kiln::cuda
