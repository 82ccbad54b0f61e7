// Point-wise layers named as they are added, so that a test can find them (and the fusions that take them) in a
// plan by name.
#pragma once

#include <NvInfer.h>

namespace kiln::test
{

inline nvinfer1::ITensor& binary(nvinfer1::INetworkDefinition& network, nvinfer1::ITensor& a, nvinfer1::ITensor& b,
    nvinfer1::ElementWiseOperation operation, char const* name)
{
    nvinfer1::IElementWiseLayer* layer = network.addElementWise(a, b, operation);
    layer->setName(name);
    return *layer->getOutput(0);
}

inline nvinfer1::ITensor& unary(
    nvinfer1::INetworkDefinition& network, nvinfer1::ITensor& x, nvinfer1::UnaryOperation operation, char const* name)
{
    nvinfer1::IUnaryLayer* layer = network.addUnary(x, operation);
    layer->setName(name);
    return *layer->getOutput(0);
}

} // namespace kiln::test
