// IQuantizeLayer and IDequantizeLayer (TensorRT 10, ONNX QuantizeLinear and DequantizeLinear): input 0 the data,
// input 1 the scale, input 2 (optional) the zero point.
//   quantize    FLOAT, HALF or BF16 data into toType (kINT8 or kFP8): saturate(round(x / scale) + zeroPoint)
//   dequantize  kINT8 or kFP8 data into toType (kFLOAT, kHALF or kBF16): (q - zeroPoint) * scale
// core/quantization.h states the rounding and saturation. The scale is FLOAT, HALF or BF16 and holds one coefficient
// (per-tensor: a 0-D tensor, or a 1-D tensor of extent 1; the axis is then ignored) or one per index of the input's
// axis `axis` (per-channel: a 1-D tensor). The zero point has the scale's shape and the quantized type; TensorRT
// takes only zeros (Kiln's kernels compute ONNX's formula with any). Block quantization (setBlockShape) and kINT4 /
// kFP4 are refused: Kiln has neither yet.
//
// The layers are the explicit quantization a Q/DQ network states; they compute as written, the layers between them in
// floating point, but where a backend fuses them into a quantized layer (plan/passes/quantized_fusion.h: CPU INT8).
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

//! The shape and type rule that quantize (`quantizes`) and dequantize layers share.
bool inferQuantization(InferenceContext& ctx, bool quantizes, int32_t axis, nvinfer1::DataType toType);

//! setBlockShape of either layer: Kiln has no block quantization, so any shape but the empty one is refused (false,
//! with an error naming the layer).
bool acceptBlockShape(char const* call, std::string const& layerName, nvinfer1::Dims const& blockShape);

struct QuantizeParams final : LayerParamsOf<QuantizeParams, nvinfer1::LayerType::kQUANTIZE, nvinfer1::IQuantizeLayer>
{
    int32_t axis{-1};
    nvinfer1::DataType toType{nvinfer1::DataType::kINT8};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.axis, "quantize axis");
        field(self.toType, "quantize type");
    }

    bool infer(InferenceContext& ctx) const override
    {
        return inferQuantization(ctx, true, axis, toType);
    }
    //! The scale and zero point keep their types whatever precision the builder gives the data.
    bool isParameterInput(size_t index) const override
    {
        return index > 0;
    }
};

struct DequantizeParams final
    : LayerParamsOf<DequantizeParams, nvinfer1::LayerType::kDEQUANTIZE, nvinfer1::IDequantizeLayer>
{
    int32_t axis{-1};
    nvinfer1::DataType toType{nvinfer1::DataType::kFLOAT};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.axis, "dequantize axis");
        field(self.toType, "dequantize type");
    }

    bool infer(InferenceContext& ctx) const override
    {
        return inferQuantization(ctx, false, axis, toType);
    }
    bool isParameterInput(size_t index) const override
    {
        return index > 0;
    }
};

//! What the two layer classes share: the axis and the type. TensorRT's setters return nothing; values the layer
//! cannot take are kept and refused by inference, naming the layer.
template <typename Api, typename Params>
class QuantizationLayer final : public LayerBase<Api, Params>
{
public:
    using LayerBase<Api, Params>::LayerBase;
    int32_t getAxis() const noexcept override
    {
        return this->typedParams().axis;
    }
    void setAxis(int32_t axis) noexcept override
    {
        this->mutableParams().axis = axis;
    }
    bool setBlockShape(nvinfer1::Dims const& blockShape) noexcept override
    {
        return acceptBlockShape("setBlockShape", this->name(), blockShape);
    }
    nvinfer1::Dims getBlockShape() const noexcept override
    {
        return nvinfer1::Dims{};
    }
    void setToType(nvinfer1::DataType toType) noexcept override
    {
        this->mutableParams().toType = toType;
    }
    nvinfer1::DataType getToType() const noexcept override
    {
        return this->typedParams().toType;
    }
};

using QuantizeLayer = QuantizationLayer<nvinfer1::IQuantizeLayer, QuantizeParams>;
using DequantizeLayer = QuantizationLayer<nvinfer1::IDequantizeLayer, DequantizeParams>;

} // namespace kiln::network
