// Normalizations over a tensor's trailing axes become one layer (network::FusedNormalizationParams), which a backend
// runs as one kernel that reads each row once, instead of a pass over memory per layer:
//  - LayerNorm as ONNX exports below opset 17 spell it out: ReduceMean, Sub, Pow(d, 2) (or d * d), ReduceMean, Add
//    epsilon, Sqrt, then Div by it (or a product by its inverse: Reciprocal, or 1 / it), optionally a product by a
//    weight and a sum with a bias (fuseNormalizationExpansions);
//  - RMSNorm as T5's and LLaMA's exports spell it out: the same without the mean's subtraction, with a cast between
//    floating-point types allowed before the product by the weight (LLaMA casts back to its input's type there);
//  - the residual sum a normalization reads (fuseResidualNormalizations): s = Add(a, b), read by such a layer or by
//    an INormalizationLayer over the last axes (opset 17's LayerNormalization), is computed by the normalization,
//    which also writes s where other layers read it (pre-norm transformer blocks read it again as the next residual).
//    a and b have s's extents along the normalized axes; along the others they may repeat (a position embedding of
//    batch 1, or extents the builder cannot prove equal), which the fused layer resolves when it runs. A bias added to
//    one of the operands just before (a linear layer's, where its product did not take it) joins, and so does a cast to
//    a wider floating-point type between the sum and the normalization (T5's and LLaMA's exports cast the residual
//    stream to float).
//  - the Q/DQ layers of quantized transformers around a fused normalization (fuseNormalizationQuantizations): the
//    dequantization by one constant scale that writes x or the residual for it alone (BERT's residual sums add two
//    DQs' outputs), and the quantization by one constant scale that alone reads y, in the type the normalization
//    computes in (also where the layer writes the sum, for a pre-norm block's next sum); the layer then reads and
//    writes the INT8 or FP8 codes. An INormalizationLayer over the last axes that reads no residual sum (ConvNeXt's,
//    between its Q/DQ pairs) becomes a fused normalization to take them. Where the DQ it took is the second half of a
//    Q -> DQ pair of one scale after a residual sum (ViT's, whose next block reads the sum itself), the sum and the Q
//    join too: the layer normalizes the sum rounded through the pair's codes and writes the sum for its other readers.
// A pattern is fused only where nothing outside it reads its intermediate tensors, its layers compute in one precision
// under the same guards on row-major floating-point tensors, its epsilon and exponent are constants, and its weights
// vary only along the normalized axes, or are one value. The fused layer is named after the layers it replaces.
#pragma once

#include "network/fused/fused_normalization.h"
#include "plan/plan_model.h"

#include <optional>

namespace kiln::cuda
{

//! LayerNorm's and RMSNorm's expansions into element-wise layers, each made one layer.
void fuseNormalizationExpansions(plan::PlanModel& model);

//! Residual sums folded into the normalizations that read them.
void fuseResidualNormalizations(plan::PlanModel& model);

//! The dequantizations fused normalizations read and the quantizations they feed, taken into them.
void fuseNormalizationQuantizations(plan::PlanModel& model);

//! All three, in this order (so that expansions' residual sums, then the fused layers' Q/DQ layers, fold too): the
//! CUDA backend's normalization fusion.
void fuseNormalizations(plan::PlanModel& model);

//! How tensor `weight` is read along the rows of the last `axes` axes of tensor `input`, from the plan's extents
//! (network::rowWeightOf on expressions: an extent matches where it is the same expression or the same constant).
network::RowWeight rowWeightIn(plan::PlanModel const& model, int32_t weight, int32_t input, int32_t axes);

//! Whether tensor `operand` broadcasts into the rows of the last `axes` axes of tensor `sum`, which an element-wise
//! sum of it wrote: along those axes it has `sum`'s extents; along the others `sum`'s extent or 1, which the fused
//! layer takes at run time.
bool operandRowsIn(plan::PlanModel const& model, int32_t operand, int32_t sum, int32_t axes);

//! What an INormalizationLayer record (opset 17's LayerNormalization) computes, as a fused normalization's
//! parameters, where it normalizes the rows of its input's last axes in one group and its scale and bias (inputs 1
//! and 2) are rows of them or one value; nullopt for any other layer.
std::optional<network::FusedNormalizationParams> rowNormalizationOf(
    plan::PlanModel const& model, plan::LayerRecord const& record);

} // namespace kiln::cuda
