// Scaled dot-product attention as one layer: softmax(query . keys * scale + mask) . values, which exports spell as
// MatMul, Mul or Div by a constant, Add of a mask, SoftMax over the last axis and MatMul. No network has one: the
// backends' fusion pass (plan/passes/attention_fusion.h) makes it from the layers it replaces, and only plans hold
// it. Like PointwiseParams, its layer type lies beyond nvinfer1::LayerType's range.
//
// Quantized exports (Model Optimizer's INT8 and FP8 transformers) put Q -> DQ pairs of one scale inside attention:
// on the query, keys and values, on the scores and on the probabilities. Each pair rounds a value onto the grid of
// its type and scale (AttentionRounding), and the layer takes them as the pairs compute them:
//
//   q' = R_q(query * queryRounding.factor)   k' = R_k(keys * keysRounding.factor)   v' = R_v(values)
//   s  = R_s(q' . k' * scale) + mask
//   p  = softmax(s), NaN probabilities as 0 where zeroNaNProbabilities
//   y  = R_p(p) . v'
//
// R is the identity where a rounding is absent. Each value is rounded into the layer's type (FP16 in FP16 plans, as
// the replaced layers stored it) before it is quantized; the probabilities R_p reads are normalized, as the SoftMax
// wrote them.
#pragma once

#include "network/layer.h"
#include "network/layers/shuffle.h"

namespace kiln::network
{

//! A quantization and the dequantization after it by one scale, as a Q -> DQ pair of a network computes them
//! (core/quantization.h): the value multiplied by `factor` (a scaling that the export applies before its
//! quantization), then rounded onto INT8's or FP8 E4M3's grid of `scale` and saturated there.
struct AttentionRounding
{
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT}; //!< kINT8 or kFP8; kFLOAT: no rounding
    float scale{1.0F};
    float factor{1.0F};

    bool rounds() const
    {
        return type != nvinfer1::DataType::kFLOAT;
    }
};

//! An operand read as one index along one axis of the tensor the layer reads, that axis left out: timm's ViT and
//! DeiT compute query, keys and values as one product [B, N, 3, H, D] and split it along axis 2, which the layer then
//! reads in place three times rather than after a transpose copies the heads apart. The tensor has one axis more than
//! the operand, and the operand's axis permutation names the tensor's other axes.
struct AttentionPick
{
    int32_t axis{-1}; //!< the tensor's axis the operand is one index of; -1: the operand is the whole tensor
    int32_t index{0};

    bool picks() const
    {
        return axis >= 0;
    }
};

//! The layer type of AttentionParams: past every nvinfer1::LayerType and next to kPointwiseLayerType.
inline constexpr nvinfer1::LayerType kAttentionLayerType = static_cast<nvinfer1::LayerType>(0x4B01);

//! Inputs: query [..., Sq, D]; keys [..., D, Sk], or [..., Sk, D] where `keysByRow`; values [..., Sk, Dv]; and an
//! optional mask, added to the scores [..., Sq, Sk] and broadcast into them (its extents equal theirs or are 1).
//! The leading (batch) extents of query, keys and values broadcast, as a matrix multiply's do, into the output's
//! [..., Sq, Dv]. Those are the operands' logical shapes: each of query, keys, values and output may be stored with
//! its axes permuted (the transposes that exports put around attention, [B, S, H, D] <-> [B, H, S, D], absorbed by
//! the fusion): logical axis i of the operand is axis order[i] of the tensor the layer reads or writes. Query, keys
//! and values may each be one index of a tensor's axis (AttentionPick).
struct AttentionParams final : LayerParamsOf<AttentionParams, kAttentionLayerType, PlanOnly>
{
    float scale{1.0F};     //!< multiplies the products of query and keys, before the mask is added
    bool keysByRow{false}; //!< keys stored one per row ([..., Sk, D]), as a product with kTRANSPOSE reads them
    //! Probabilities that are NaN count as 0, as exports' Where(IsNaN(p), 0, p) make them: a row whose every score
    //! is masked to -infinity then gives zeros rather than NaN.
    bool zeroNaNProbabilities{false};
    nvinfer1::Permutation queryAxes{ShuffleParams::identityPermutation()};
    nvinfer1::Permutation keyAxes{ShuffleParams::identityPermutation()};
    nvinfer1::Permutation valueAxes{ShuffleParams::identityPermutation()};
    nvinfer1::Permutation outputAxes{ShuffleParams::identityPermutation()};
    AttentionPick queryPick;
    AttentionPick keyPick;
    AttentionPick valuePick;
    AttentionRounding queryRounding;
    AttentionRounding keysRounding;
    AttentionRounding valuesRounding;
    AttentionRounding scoresRounding;
    AttentionRounding probabilitiesRounding;

    //! Whether any value is rounded: quantized attention.
    bool rounds() const
    {
        return queryRounding.rounds() || keysRounding.rounds() || valuesRounding.rounds() || scoresRounding.rounds()
            || probabilitiesRounding.rounds();
    }

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.scale, "attention scale");
        field(self.keysByRow, "attention keys by row");
        field(self.zeroNaNProbabilities, "attention NaN probabilities as zero");
        field(self.queryAxes, "attention query axes");
        field(self.keyAxes, "attention key axes");
        field(self.valueAxes, "attention value axes");
        field(self.outputAxes, "attention output axes");
        pickFields(self.queryPick, "attention query pick", field);
        pickFields(self.keyPick, "attention key pick", field);
        pickFields(self.valuePick, "attention value pick", field);
        roundingFields(self.queryRounding, "attention query rounding", field);
        roundingFields(self.keysRounding, "attention keys rounding", field);
        roundingFields(self.valuesRounding, "attention values rounding", field);
        roundingFields(self.scoresRounding, "attention scores rounding", field);
        roundingFields(self.probabilitiesRounding, "attention probabilities rounding", field);
    }

    template <typename Pick, typename Field>
    static void pickFields(Pick& pick, char const* what, Field&& field)
    {
        field(pick.axis, what);
        field(pick.index, what);
    }

    template <typename Rounding, typename Field>
    static void roundingFields(Rounding& rounding, char const* what, Field&& field)
    {
        field(rounding.type, what);
        field(rounding.scale, what);
        field(rounding.factor, what);
    }

    //! A network never holds one (the builder makes it after inference): fails saying so.
    bool infer(InferenceContext& ctx) const override;
};

} // namespace kiln::network
