// Adds a ResNet-18-shaped network (random weights) to an INetworkDefinition through TensorRT's API.
#pragma once

#include <NvInfer.h>

#include <cstdint>
#include <deque>
#include <vector>

namespace kiln_bench
{

//! Owns the weight arrays a network refers to. TensorRT requires the values behind a Weights to stay
//! valid until the network is built; Kiln copies them when the layer is added, but the benchmark keeps
//! to TensorRT's contract, as an application written for TensorRT would.
class WeightStore
{
public:
    nvinfer1::Weights add(std::vector<float> values);
    //! Every value handed out so far: the network's parameter count.
    int64_t valueCount() const
    {
        return mValueCount;
    }

private:
    std::deque<std::vector<float>> mArrays; //!< a deque never moves its elements, so data() pointers stay valid
    int64_t mValueCount{0};
};

//! torchvision's resnet18 has this many trainable values (convolutions, batch-norm scale and shift, the
//! classifier); the network below has the same, which checks that no layer is missing or mis-sized.
constexpr int64_t kResNet18ParameterCount = 11'689'512;
constexpr int64_t kResNet18Classes = 1000;

//! Adds ResNet-18 after input ([N, 3, 224, 224], N may be -1) and returns its logits ([N, 1000]):
//! 7x7/2 convolution (64), batch norm, ReLU, 3x3/2 max pool; four stages of two basic blocks
//! (64, 128, 256, 512 channels; the first block of stages 2-4 has stride 2 and a 1x1/2 projection
//! shortcut); global average pool; a 1000-way fully connected layer.
//! Batch norm is an IScaleLayer (kCHANNEL) after a convolution without bias, which is how TensorRT's
//! ONNX parser imports an inference-mode BatchNormalization. Weights are drawn from seed (He-uniform
//! convolutions, PyTorch's default range for the classifier), so every run builds the same network.
//! Every stage's output shape is checked as the network grows; on a mismatch, or when the network
//! rejects a layer, the reason goes to stderr and the result is nullptr.
nvinfer1::ITensor* addResNet18(
    nvinfer1::INetworkDefinition& network, nvinfer1::ITensor& input, WeightStore& weights, uint32_t seed);

} // namespace kiln_bench
