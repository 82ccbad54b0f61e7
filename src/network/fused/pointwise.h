// A chain of element-wise, activation and unary layers that the CPU backend's fusion pass
// (plan/passes/pointwise_fusion.h) made one layer, so that it runs in one pass over memory. No network has one: the
// builder makes it from the layers it replaces, and only plans hold it. TensorRT's inspector calls its fused layers of
// this kind "PointWise"; nvinfer1::LayerType has no such value, so Kiln gives it one beyond TensorRT's range.
#pragma once

#include "network/layer.h"

namespace kiln::network
{

//! The layer type of PointwiseParams: past every nvinfer1::LayerType, so it never clashes with TensorRT's.
inline constexpr nvinfer1::LayerType kPointwiseLayerType = static_cast<nvinfer1::LayerType>(0x4B00);

//! Where a step's operand comes from: the fused layer's input `index` (>= 0), or the result of an earlier step.
struct PointwiseOperand
{
    static constexpr int32_t input(int32_t index)
    {
        return index;
    }
    static constexpr int32_t step(int32_t index)
    {
        return -1 - index;
    }
    static constexpr bool isStep(int32_t operand)
    {
        return operand < 0;
    }
    static constexpr int32_t stepOf(int32_t operand)
    {
        return -1 - operand;
    }
};

//! One layer of the chain: what it computes (an element-wise operation, an activation or a unary operation, as the
//! layer of type `kind` with that enumerator), and its operands (PointwiseOperand). A step of kind kQUANTIZE stands for
//! a Q -> DQ pair of one scale (`alpha`, zero point none or zero) whose codes (`operation`: DataType kINT8 or kFP8)
//! only that DQ reads: the value, first rounded to `valueType` as the tensor the Q read held it, is rounded onto the
//! codes' grid and saturated there (core/quantization.h's roundThroughQuantization), and rounded to `valueType` again
//! as the DQ wrote it.
struct PointwiseStep
{
    nvinfer1::LayerType kind{nvinfer1::LayerType::kELEMENTWISE}; //!< kELEMENTWISE, kACTIVATION, kUNARY or kQUANTIZE
    int32_t operation{0}; //!< its ElementWiseOperation, ActivationType or UnaryOperation; kQUANTIZE: the codes' type
    float alpha{0.0F};    //!< an activation's alpha and beta; kQUANTIZE: the scale
    float beta{0.0F};
    int32_t first{0};
    int32_t second{0}; //!< element-wise steps only
    //! kQUANTIZE: the floating-point type the Q's input was held in (FP32 for every other kind)
    nvinfer1::DataType valueType{nvinfer1::DataType::kFLOAT};

    void write(serial::ByteWriter& writer) const;
    //! Checks the kind and the operation's range; a kQUANTIZE step's codes, scale and value type.
    bool read(serial::ByteReader& reader, char const* what);
    bool binary() const
    {
        return kind == nvinfer1::LayerType::kELEMENTWISE;
    }
};

//! The kQUANTIZE step of a Q -> DQ pair by `scale` into `codes` (kINT8 or kFP8) of a `valueType` tensor.
PointwiseStep quantizationStep(nvinfer1::DataType codes, float scale, nvinfer1::DataType valueType, int32_t first);

//! The chain: its steps in the order they run; the last one's result is the output. Inputs broadcast (numpy-style,
//! equal ranks) into the output's shape.
struct PointwiseParams final : LayerParamsOf<PointwiseParams, kPointwiseLayerType, PlanOnly>
{
    std::vector<PointwiseStep> steps;

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.steps, "point-wise steps");
    }

    //! A network never holds one (the builder makes it after inference): fails saying so.
    bool infer(InferenceContext& ctx) const override;
    //! Its single-element operands (a chain's constants) are read alike in every format.
    ChannelsLast channelsLast() const override
    {
        return ChannelsLast::kCONTINUES_WITH_SINGLES;
    }
};

//! Whether `steps` is a well-formed program for a layer of `inputs` inputs: each operand an input or an earlier step.
bool wellFormed(std::vector<PointwiseStep> const& steps, size_t inputs);

} // namespace kiln::network
