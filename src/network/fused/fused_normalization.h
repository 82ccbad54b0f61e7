// A normalization over a tensor's trailing axes that the CUDA backend's fusion pass
// (backend/cuda/passes/normalization_fusion.h) made from the layers it replaces: LayerNorm and RMSNorm as ONNX exports
// spell them out in element-wise layers, or an INormalizationLayer over the last axes, each with the residual addition
// that feeds it folded in. No network holds one: only plans do, and the inspector calls the kind "FusedNormalization".
//
//   s = x (+ preBias) (+ residual)    each addition rounded to the type x is read in, as the sums it replaces were
//   y = (s - mean) / sqrt(variance + epsilon) * scale + bias          centered (LayerNorm: biased variance)
//   y = s / sqrt(mean of s^2 + epsilon) * scale + bias                not centered (RMSNorm)
//
// with the statistics of each row: the elements that differ only along the last `normalizedAxes` axes. Inputs, in
// order: x, preBias, residual, scale, bias; all but x may be absent (index -1: no addition, a scale of 1, a bias of
// 0). Outputs: y, and, where the layer has a second output, s (for the other readers of a residual sum), both of the
// layer's shape. x and residual have its extents along the normalized axes and, along the others, its extents or 1
// (they repeat there, as an element-wise sum broadcasts them); preBias, scale and bias have its rank, extent 1 along
// the other axes and, along the normalized ones, its extents (a row of weights) or 1 throughout (one weight).
//
// Quantized transformers (Model Optimizer's INT8 and FP8 BERT) dequantize both operands of the residual sum and
// quantize the normalization's output, each by one scale; the layer may take those Q/DQ layers too:
//
//   x = dequantize(x codes, inputScale), rounded to valueType     where inputScale > 0 (the same for the residual)
//   y = quantize(y rounded to valueType, outputScale)             where outputScale > 0
//
// Model Optimizer's ViT also passes the residual sum through a Q -> DQ pair of one scale before the normalization (the
// next residual sum reads s itself): with sumScale > 0 the layer normalizes s rounded onto that grid of codes of
// sumCodeType; its sum output, where it has one, holds s:
//
//   normalized = dequantize(quantize(s, sumScale), sumScale), rounded to valueType        where sumScale > 0
//
// The codes are INT8 or FP8 E4M3 (their tensors' types), quantized and dequantized as core/quantization.h does;
// valueType is the floating-point type the replaced layers held values in, to which the sums round as well.
#pragma once

#include "core/tensor_view.h"
#include "network/layer.h"

namespace kiln::network
{

//! The layer type of FusedNormalizationParams: past every nvinfer1::LayerType, as kPointwiseLayerType is.
inline constexpr nvinfer1::LayerType kFusedNormalizationLayerType = static_cast<nvinfer1::LayerType>(0x4B02);

struct FusedNormalizationParams final : LayerParamsOf<FusedNormalizationParams, kFusedNormalizationLayerType, PlanOnly>
{
    //! The inputs' slots.
    static constexpr size_t kInput = 0;
    static constexpr size_t kPreBias = 1;
    static constexpr size_t kResidual = 2;
    static constexpr size_t kScale = 3;
    static constexpr size_t kBias = 4;
    static constexpr size_t kInputCount = 5;

    int32_t normalizedAxes{1}; //!< how many trailing axes a row spans
    float epsilon{1e-5F};
    bool centered{true};       //!< LayerNorm subtracts the mean; RMSNorm does not
    float inputScale{0.0F};    //!< > 0: x holds INT8 or FP8 codes, dequantized by this scale
    float residualScale{0.0F}; //!< > 0: the residual holds codes, dequantized by this scale
    float outputScale{0.0F};   //!< > 0: y is written as codes, quantized by this scale
    float sumScale{0.0F};      //!< > 0: s is normalized as rounded through codes of this scale
    nvinfer1::DataType sumCodeType{nvinfer1::DataType::kINT8}; //!< where sumScale > 0: those codes' type
    //! Where a scale is given: the type x, the residual and y held their values in before the quantizations.
    nvinfer1::DataType valueType{nvinfer1::DataType::kFLOAT};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.normalizedAxes, "fused normalization axes");
        field(self.epsilon, "fused normalization epsilon");
        field(self.centered, "fused normalization centered");
        field(self.inputScale, "fused normalization input scale");
        field(self.residualScale, "fused normalization residual scale");
        field(self.outputScale, "fused normalization output scale");
        field(self.sumScale, "fused normalization sum scale");
        field(self.sumCodeType, "fused normalization sum code type");
        field(self.valueType, "fused normalization value type");
    }

    //! Whether any operand or output holds codes.
    bool quantizes() const
    {
        return inputScale > 0.0F || residualScale > 0.0F || outputScale > 0.0F || sumScale > 0.0F;
    }

    //! A network never holds one (the builder makes it after inference): fails saying so.
    bool infer(InferenceContext& ctx) const override;
};

//! How a weight of shape `weight` is read along the rows of the last `normalizedAxes` axes of an `input`: one value
//! per row element (kROW), one value for every element (kONE), or not at all: another shape (kNONE). With a row of
//! one element both fit; kROW is returned.
enum class RowWeight
{
    kNONE,
    kONE,
    kROW,
};
RowWeight rowWeightOf(Shape const& weight, Shape const& input, int32_t normalizedAxes);

//! Whether an operand of shape `operand` broadcasts into the rows of `output`: the same rank, the output's extents
//! along the last `normalizedAxes` axes, and along the others the output's extents or 1.
bool broadcastsRows(Shape const& operand, Shape const& output, int32_t normalizedAxes);

//! The row of such an operand that row `row` of the output reads (rows counted in row-major order).
int64_t operandRow(Shape const& operand, Shape const& output, int32_t normalizedAxes, int64_t row);

//! How many trailing axes `axes` (a mask over a rank-`rank` tensor) holds where it holds exactly the last few, else 0.
int32_t trailingAxesOf(uint32_t axes, int32_t rank);

} // namespace kiln::network
