#include "backend/cuda/passes/normalization_fusion.h"

#include "plan/plan_graph.h"
#include "shape/expr.h"

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

void fuseNormalizations(PlanModel& model)
{
    fuseNormalizationExpansions(model);
    fuseResidualNormalizations(model);
    fuseNormalizationQuantizations(model);
}

} // namespace kiln::cuda
