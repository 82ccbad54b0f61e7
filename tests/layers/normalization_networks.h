// Networks that normalize the rows of a tensor's last axes in the forms the normalization fusion
// (backend/cuda/passes/normalization_fusion.h) takes: INormalizationLayer, LayerNorm spelled out in element-wise layers
// as ONNX exports below opset 17 write it, and RMSNorm as T5's and LLaMA's exports write it; each optionally after a
// residual sum (with a bias added first, and with another reader of the sum). Every layer is named, so that tests can
// tell what a plan fused. The CPU tests (tests/layers) and the CUDA tests (tests/cuda_backend) build the same networks.
#pragma once

#include "named_layers.h"

#include <NvInfer.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln::test::norm
{

using namespace nvinfer1;

enum class Form
{
    kLAYER,            //!< INormalizationLayer
    kEXPANDED,         //!< mean, sub, pow(d, 2), mean, add eps, sqrt, div, mul gamma, add beta
    kEXPANDED_PRODUCT, //!< the same with d * d, a product by reciprocal(sqrt), gamma * n and beta + n
    kRMS_T5,           //!< pow(x, 2), mean, add eps, sqrt, div(1, sqrt), mul(x, inverse), mul(weight, n)
    kRMS_LLAMA,        //!< T5's, with x cast to float first and n cast to float before the weight
    kRMS_DIVIDE,       //!< x * x, mean, add eps, sqrt, div(x, sqrt), mul(n, weight)
};

enum class WeightKind
{
    kROW,  //!< one per element of a row
    kONE,  //!< one value each
    kNONE, //!< none (the layer form gets scale 1 and bias 0)
};

struct Case
{
    std::string name;
    std::vector<int64_t> shape{2, 5, 31};
    Form form{Form::kLAYER};
    int32_t axes{1}; //!< trailing axes normalized
    float epsilon{1e-5F};
    bool residual{false};  //!< normalizes a + b (inputs "a", "b"), not "a"
    bool addedBias{false}; //!< (a + bias) + b
    bool sumRead{false};   //!< the normalized tensor is also an output ("s"), and read by z = s + y (output "z")
    WeightKind weights{WeightKind::kROW};
    bool repeatedResidual{false}; //!< b has extent 1 along axis 0 (as a position embedding has): the sum repeats it
};

//! The shape of input "b".
inline std::vector<int64_t> residualShape(Case const& c)
{
    std::vector<int64_t> shape = c.shape;
    if (c.repeatedResidual)
    {
        shape[0] = 1;
    }
    return shape;
}

//! Constant values that the network's layers keep pointing at until the plan is built.
struct Held
{
    std::vector<std::unique_ptr<std::vector<float>>> values;

    ITensor& constant(
        INetworkDefinition& network, std::vector<int64_t> const& shape, std::vector<float> data, char const* name)
    {
        values.push_back(std::make_unique<std::vector<float>>(std::move(data)));
        std::vector<float> const& kept = *values.back();
        Dims dims{};
        dims.nbDims = static_cast<int32_t>(shape.size());
        std::copy(shape.begin(), shape.end(), dims.d);
        IConstantLayer* layer = network.addConstant(
            dims, nvinfer1::Weights{DataType::kFLOAT, kept.data(), static_cast<int64_t>(kept.size())});
        layer->setName(name);
        return *layer->getOutput(0);
    }
};

inline Dims dimsOf(std::vector<int64_t> const& shape)
{
    Dims dims{};
    dims.nbDims = static_cast<int32_t>(shape.size());
    std::copy(shape.begin(), shape.end(), dims.d);
    return dims;
}

inline int64_t rowLength(Case const& c)
{
    int64_t length = 1;
    for (size_t axis = c.shape.size() - static_cast<size_t>(c.axes); axis < c.shape.size(); ++axis)
    {
        length *= c.shape[axis];
    }
    return length;
}

inline uint32_t rowMask(Case const& c)
{
    auto const rank = static_cast<int32_t>(c.shape.size());
    uint32_t mask = 0;
    for (int32_t axis = rank - c.axes; axis < rank; ++axis)
    {
        mask |= 1U << axis;
    }
    return mask;
}

//! A weight of the case's kind: a row of values from `low` to `high`, or one value (`low`).
inline ITensor& weightOf(
    Held& held, INetworkDefinition& network, Case const& c, float low, float high, bool one, char const* name)
{
    std::vector<int64_t> shape(c.shape.size(), 1);
    int64_t const length = rowLength(c);
    if (one)
    {
        return held.constant(network, shape, {low}, name);
    }
    for (size_t axis = c.shape.size() - static_cast<size_t>(c.axes); axis < c.shape.size(); ++axis)
    {
        shape[axis] = c.shape[axis];
    }
    std::vector<float> values(static_cast<size_t>(length));
    for (int64_t i = 0; i < length; ++i)
    {
        values[static_cast<size_t>(i)] = length == 1
            ? low
            : low + (high - low) * static_cast<float>((i * 7) % length) / static_cast<float>(length - 1);
    }
    return held.constant(network, shape, values, name);
}

inline ITensor& mean(INetworkDefinition& network, Case const& c, ITensor& t, char const* name)
{
    IReduceLayer* layer = network.addReduce(t, ReduceOperation::kAVG, rowMask(c), true);
    layer->setName(name);
    return *layer->getOutput(0);
}

inline ITensor& castToFloat(INetworkDefinition& network, ITensor& t, char const* name)
{
    ICastLayer* layer = network.addCast(t, DataType::kFLOAT);
    layer->setName(name);
    return *layer->getOutput(0);
}

//! sqrt(mean(square) + epsilon).
inline ITensor& rootOf(Held& held, INetworkDefinition& network, Case const& c, ITensor& square)
{
    std::vector<int64_t> const scalar(c.shape.size(), 1);
    ITensor& variance = mean(network, c, square, "variance");
    ITensor& shifted = binary(
        network, variance, held.constant(network, scalar, {c.epsilon}, "eps"), ElementWiseOperation::kSUM, "add eps");
    return unary(network, shifted, UnaryOperation::kSQRT, "sqrt");
}

//! LayerNorm's expansion over the case's axes, up to the weights.
inline ITensor& expandedLayerNorm(Held& held, INetworkDefinition& network, Case const& c, ITensor& x)
{
    std::vector<int64_t> const scalar(c.shape.size(), 1);
    ITensor& d = binary(network, x, mean(network, c, x, "mean"), ElementWiseOperation::kSUB, "sub");
    if (c.form == Form::kEXPANDED)
    {
        ITensor& square
            = binary(network, d, held.constant(network, scalar, {2.0F}, "two"), ElementWiseOperation::kPOW, "pow");
        return binary(network, d, rootOf(held, network, c, square), ElementWiseOperation::kDIV, "div");
    }
    ITensor& square = binary(network, d, d, ElementWiseOperation::kPROD, "square");
    ITensor& inverse = unary(network, rootOf(held, network, c, square), UnaryOperation::kRECIP, "reciprocal");
    return binary(network, d, inverse, ElementWiseOperation::kPROD, "mul inverse");
}

//! RMSNorm's expansion, up to the weight.
inline ITensor& expandedRmsNorm(Held& held, INetworkDefinition& network, Case const& c, ITensor& x)
{
    std::vector<int64_t> const scalar(c.shape.size(), 1);
    if (c.form == Form::kRMS_DIVIDE)
    {
        ITensor& square = binary(network, x, x, ElementWiseOperation::kPROD, "square");
        return binary(network, x, rootOf(held, network, c, square), ElementWiseOperation::kDIV, "div");
    }
    ITensor& square
        = binary(network, x, held.constant(network, scalar, {2.0F}, "two"), ElementWiseOperation::kPOW, "pow");
    ITensor& inverse = binary(network, held.constant(network, scalar, {1.0F}, "one"), rootOf(held, network, c, square),
        ElementWiseOperation::kDIV, "inverse");
    ITensor& normalized = binary(network, x, inverse, ElementWiseOperation::kPROD, "mul");
    return c.form == Form::kRMS_LLAMA ? castToFloat(network, normalized, "cast back") : normalized;
}

//! The weights' product and sum after an expansion, in the order each form writes them.
inline ITensor& weigh(Held& held, INetworkDefinition& network, Case const& c, ITensor& n)
{
    if (c.weights == WeightKind::kNONE)
    {
        return n;
    }
    bool const one = c.weights == WeightKind::kONE;
    bool const rms = c.form == Form::kRMS_T5 || c.form == Form::kRMS_LLAMA || c.form == Form::kRMS_DIVIDE;
    bool const weightFirst = c.form == Form::kEXPANDED_PRODUCT || c.form == Form::kRMS_T5 || c.form == Form::kRMS_LLAMA;
    ITensor& gamma = weightOf(held, network, c, 0.5F, 1.5F, one, "gamma");
    ITensor& scaled = weightFirst ? binary(network, gamma, n, ElementWiseOperation::kPROD, "mul gamma")
                                  : binary(network, n, gamma, ElementWiseOperation::kPROD, "mul gamma");
    if (rms)
    {
        return scaled;
    }
    ITensor& beta = weightOf(held, network, c, -0.25F, 0.25F, one, "beta");
    return weightFirst ? binary(network, beta, scaled, ElementWiseOperation::kSUM, "add beta")
                       : binary(network, scaled, beta, ElementWiseOperation::kSUM, "add beta");
}

//! The normalization of `x` in the case's form.
inline ITensor& normalize(Held& held, INetworkDefinition& network, Case const& c, ITensor& x)
{
    if (c.form == Form::kLAYER)
    {
        bool const none = c.weights == WeightKind::kNONE;
        bool const one = c.weights != WeightKind::kROW;
        ITensor& gamma = weightOf(held, network, c, none ? 1.0F : 0.5F, 1.5F, one, "gamma");
        ITensor& beta = weightOf(held, network, c, none ? 0.0F : -0.25F, 0.25F, one, "beta");
        INormalizationLayer* layer = network.addNormalization(x, gamma, beta, rowMask(c));
        layer->setEpsilon(c.epsilon);
        layer->setName("norm");
        return *layer->getOutput(0);
    }
    bool const centered = c.form == Form::kEXPANDED || c.form == Form::kEXPANDED_PRODUCT;
    return weigh(
        held, network, c, centered ? expandedLayerNorm(held, network, c, x) : expandedRmsNorm(held, network, c, x));
}

//! The case's network: inputs "a" (and "b"), FP32; outputs "y" (and "s", "z").
inline std::function<void(INetworkDefinition&)> networkOf(Case const& c)
{
    auto held = std::make_shared<Held>();
    return [held, c](INetworkDefinition& network) {
        ITensor* x = network.addInput("a", DataType::kFLOAT, dimsOf(c.shape));
        if (c.residual)
        {
            ITensor* b = network.addInput("b", DataType::kFLOAT, dimsOf(residualShape(c)));
            if (c.addedBias)
            {
                x = &binary(network, *x, weightOf(*held, network, c, -1.0F, 1.0F, false, "linear bias"),
                    ElementWiseOperation::kSUM, "add bias");
            }
            x = &binary(network, *b, *x, ElementWiseOperation::kSUM, "add");
        }
        if (c.form == Form::kRMS_LLAMA)
        {
            x = &castToFloat(network, *x, "cast");
        }
        ITensor& y = normalize(*held, network, c, *x);
        y.setName("y");
        network.markOutput(y);
        if (c.sumRead)
        {
            x->setName("s");
            network.markOutput(*x);
            ITensor& z = binary(network, *x, y, ElementWiseOperation::kSUM, "next");
            z.setName("z");
            network.markOutput(z);
        }
    };
}

//! Uneven values around `offset`, different in every row (a ramp would make every row alike).
inline std::vector<float> valuesOf(size_t count, float phase, float offset = 0.0F)
{
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i)
    {
        auto const at = static_cast<float>(i);
        values[i] = offset + 2.0F * std::sin(0.37F * at + phase) + 0.25F * static_cast<float>((i * 5 + 1) % 7) - 0.75F;
    }
    return values;
}

} // namespace kiln::test::norm
