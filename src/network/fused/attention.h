// Scaled dot-product attention as one layer: softmax(query . keys * scale + mask) . values, which exports spell as
// MatMul, Mul or Div by a constant, Add of a mask, SoftMax over the last axis and MatMul. No network has one: the
// CUDA backend's fusion pass (backend/cuda/passes/attention_fusion.h) makes it from the layers it replaces, and only
// plans hold it. Like PointwiseParams, its layer type lies beyond nvinfer1::LayerType's range.
#pragma once

#include "network/layer.h"
#include "network/layers/shuffle.h"

namespace kiln::network
{

//! The layer type of AttentionParams: past every nvinfer1::LayerType and next to kPointwiseLayerType.
inline constexpr nvinfer1::LayerType kAttentionLayerType = static_cast<nvinfer1::LayerType>(0x4B01);

//! Inputs: query [..., Sq, D]; keys [..., D, Sk], or [..., Sk, D] where `keysByRow`; values [..., Sk, Dv]; and an
//! optional mask, added to the scores [..., Sq, Sk] and broadcast into them (its extents equal theirs or are 1).
//! The leading (batch) extents of query, keys and values broadcast, as a matrix multiply's do, into the output's
//! [..., Sq, Dv]. Those are the operands' logical shapes: each of query, keys, values and output may be stored with
//! its axes permuted (the transposes that exports put around attention, [B, S, H, D] <-> [B, H, S, D], absorbed by
//! the fusion): logical axis i of the operand is axis order[i] of the tensor the layer reads or writes.
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
    }

    //! A network never holds one (the builder makes it after inference): fails saying so.
    bool infer(InferenceContext& ctx) const override;
};

} // namespace kiln::network
