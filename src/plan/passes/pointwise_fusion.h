// Element-wise chains fused: consecutive element-wise, activation and unary layers (as ONNX exports LayerNorm's
// tail, GELU, SiLU, HardSwish, a bias-add and activation after a product) become one layer
// (network::PointwiseParams) that a backend runs in one pass over memory instead of one pass per layer. A group is
// a set of such layers whose results are read only inside it, but for the last one's: what the chain writes. Its
// other operands (network inputs, constants, other layers' results) may broadcast into its shape. A Q -> DQ pair of
// one constant scale whose codes only its DQ reads (a quantized network's residual sum, Add -> Q -> DQ) joins as one
// step that rounds the value onto the codes' grid, where the backend's rules take the DQ: the chain reads and writes
// floating point, and the codes are never stored.
#pragma once

#include "plan/plan_model.h"

#include <functional>
#include <vector>

namespace kiln::plan
{

struct PointwiseFusionRules
{
    //! Whether the backend runs this element-wise, activation or unary layer inside a fused chain (its types and
    //! operation); the pass checks the rest (one output, no epilogue, shapes, kLINEAR, who reads what).
    std::function<bool(PlanModel const&, LayerRecord const&)> joins;
    size_t maxLayers{0}; //!< the most steps one chain may take (a Q -> DQ pair is one); 0: any number
    size_t maxInputs{0}; //!< the most tensors one chain may read from outside; 0: any number
};

//! One chain the pass would fuse.
struct PointwiseChain
{
    std::vector<size_t> layers;  //!< in plan order; the last writes the chain's output. At least two.
    std::vector<int32_t> inputs; //!< the tensors it reads from outside, in the order its steps first read them
};

//! The largest chains of `model`, each maximal: a pure function of the graph. A layer joins a chain where the
//! backend's rules take it, it computes in the chain's precision under its guards, its output has the chain's shape
//! (the same extents at every run: the same expressions, or values the profiles fix) and is read by layers of the
//! chain only (not a network output, not a shape tensor), and every operand it reads from outside has the chain's rank
//! with each extent 1 or the chain's own. Chains are disjoint.
std::vector<PointwiseChain> findPointwiseChains(PlanModel const& model, PointwiseFusionRules const& rules);

//! Replaces each chain findPointwiseChains finds by one PointwiseParams layer, where its last layer ran, named after
//! the layers it replaces ("sub + sqrt + div"). Runs after the other fusions, which absorb what they can first.
void fusePointwiseChains(PlanModel& model, PointwiseFusionRules const& rules);

} // namespace kiln::plan
