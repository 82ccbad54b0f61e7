// Layers the fast-path tests build networks from, named so that a test can find them in the plan.
#pragma once

#include "fast_path_comparison.h"

namespace kiln::test
{

//! A constant layer named `name` holding `values`, which must outlive the network.
inline ITensor& constantOf(
    INetworkDefinition& network, Shape const& shape, std::vector<float> const& values, char const* name)
{
    IConstantLayer* layer = network.addConstant(dimsOf(shape), weightsOf(values));
    layer->setName(name);
    return *layer->getOutput(0);
}

inline ITensor& reshaped(INetworkDefinition& network, ITensor& input, Shape const& shape, char const* name)
{
    IShuffleLayer* layer = network.addShuffle(input);
    layer->setReshapeDimensions(dimsOf(shape));
    layer->setName(name);
    return *layer->getOutput(0);
}

inline ITensor& activated(INetworkDefinition& network, ITensor& input, ActivationType type, char const* name)
{
    IActivationLayer* layer = network.addActivation(input, type);
    layer->setName(name);
    return *layer->getOutput(0);
}

inline ITensor& sumOf(INetworkDefinition& network, ITensor& a, ITensor& b, char const* name)
{
    IElementWiseLayer* layer = network.addElementWise(a, b, ElementWiseOperation::kSUM);
    layer->setName(name);
    return *layer->getOutput(0);
}

//! Sets a convolution's or deconvolution's window; an empty stride, padding or dilation keeps TensorRT's default.
template <typename FilterLayer>
void setWindow(FilterLayer& layer, Shape const& stride, Shape const& prePadding, Shape const& postPadding,
    Shape const& dilation, int64_t groups, PaddingMode mode)
{
    if (!stride.empty())
    {
        layer.setStrideNd(dimsOf(stride));
    }
    if (!prePadding.empty())
    {
        layer.setPrePadding(dimsOf(prePadding));
        layer.setPostPadding(dimsOf(postPadding));
    }
    if (!dilation.empty())
    {
        layer.setDilationNd(dimsOf(dilation));
    }
    layer.setNbGroups(groups);
    layer.setPaddingMode(mode);
}

//! Marks `tensor` as the network's output, named "output".
inline void markOutput(INetworkDefinition& network, ITensor& tensor)
{
    tensor.setName("output");
    network.markOutput(tensor);
}

} // namespace kiln::test
