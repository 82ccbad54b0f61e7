// TensorRT's propagation of Q/DQ layers across the layers that only move data (data_movement.h): in a Q/DQ network a
// dequantization moves forward past a shuffle, slice, concatenation or max pooling, and a quantization moves back
// before one, so that the data moves as INT8 or FP8 (a quarter of FP32's bytes) and the quantized fusions
// (quantized_fusion.h, quantized_matrix_multiply_fusion.h) find their patterns where a reshape or a transpose stood
// between the pair and the product (transformers' DQ -> reshape -> transpose -> MatMul, MatMul -> bias -> reshape ->
// Q). A dequantization followed by a quantization of the same scale then leaves the plan: Q(DQ(q)) is q.
//
// Nothing it does changes a value:
// - A data-movement layer outputs input elements, so an element-wise map commutes with it. Per-channel scales move
//   only where their axis comes through whole (carriedAxis), onto the axis it becomes.
// - A concatenation takes its inputs' dequantizations only where they all have one scale, zero point and type, and
//   per-channel ones an axis other than the one it joins along.
// - Max pooling commutes with non-decreasing maps: a dequantization or quantization of positive scales (per-channel
//   ones on an axis it does not pool). The one exception is NaN, which INT8 cannot hold: Q(NaN) is the zero point,
//   so a window holding a NaN can pool to another value after the move than before.
// - A product by a constant of one value maps each element alone too: where a Q alone reads it, it moves back before
//   a shuffle (where the backend's rules say so), and the Q after it.
// - A DQ -> Q pair of one scale (and no zero point) gives back its input where the dequantized values neither
//   overflow nor lose precision in the type the DQ writes (its smallest normal value at most the scale's magnitude,
//   its largest finite value above the quantized type's largest magnitude times it); an FP32 DQ always does.
//
// The layers that move keep their guards, formats (row-major throughout) and names; no observed tensor (a network
// input or output, a debug tensor) changes. Each backend says which max poolings its kernels run on INT8 or FP8.
#pragma once

#include "plan/plan_model.h"

#include <functional>

namespace kiln::plan
{

struct QuantizationPropagationRules
{
    //! Whether the backend runs this max pooling record, which reads and writes the quantized type.
    std::function<bool(PlanModel const&, LayerRecord const&)> poolsQuantized;
    //! Whether a product by a constant of one value moves back before a shuffle, so that the quantization after it
    //! can follow to the product by weights that wrote the data (BERT's queries and keys, scaled after the split
    //! into heads). The CPU's rules only: the CUDA backend leaves it until its plans have run so on a GPU.
    bool movesScalingsBack{false};
};

struct QuantizationPropagation
{
    size_t dequantizationsMoved{0}; //!< DQs moved forward past a data-movement layer
    size_t quantizationsMoved{0};   //!< Qs moved back before one
    size_t pairsRemoved{0};         //!< DQ -> Q pairs of one scale removed
    size_t scalingsMoved{0};        //!< products by one-value constants moved back before a shuffle
};

//! Rewrites `model`'s layer list in place.
QuantizationPropagation propagateQuantization(PlanModel& model, QuantizationPropagationRules const& rules);

} // namespace kiln::plan
