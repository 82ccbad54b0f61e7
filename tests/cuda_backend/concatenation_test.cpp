// The CUDA backend's Concatenation layer against the CPU reference: every axis (and a negative one) with inputs of
// different extents, INT32 and FP16 data, more inputs than one launch takes, and an empty input.
#include "backend_comparison.h"

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

Dims dimsOf(std::vector<int64_t> const& shape)
{
    Dims dims{static_cast<int32_t>(shape.size()), {}};
    for (size_t i = 0; i < shape.size(); ++i)
    {
        dims.d[i] = shape[i];
    }
    return dims;
}

int64_t volumeOf(std::vector<int64_t> const& shape)
{
    int64_t v = 1;
    for (int64_t e : shape)
    {
        v *= e;
    }
    return v;
}

//! The network checks shapes when a layer is added, along the default axis: add the layer over copies of the first
//! input, set the axis, then the real inputs.
IConcatenationLayer* addConcatenationAlong(
    INetworkDefinition& network, std::vector<ITensor*> const& inputs, int32_t axis)
{
    std::vector<ITensor*> const placeholders(inputs.size(), inputs[0]);
    IConcatenationLayer* layer = network.addConcatenation(placeholders.data(), static_cast<int32_t>(inputs.size()));
    layer->setAxis(axis);
    for (size_t i = 1; i < inputs.size(); ++i)
    {
        layer->setInput(static_cast<int32_t>(i), *inputs[i]);
    }
    return layer;
}

//! Inputs x0, x1, ... of the given shapes joined along `axis`.
NetworkMaker concatenationOf(std::vector<std::vector<int64_t>> const& shapes, int32_t axis, DataType type)
{
    return [shapes, axis, type](INetworkDefinition& network) {
        std::vector<ITensor*> inputs;
        for (size_t i = 0; i < shapes.size(); ++i)
        {
            inputs.push_back(network.addInput(("x" + std::to_string(i)).c_str(), type, dimsOf(shapes[i])));
        }
        IConcatenationLayer* layer = addConcatenationAlong(network, inputs, axis);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
}

std::map<std::string, HostTensor> inputsFor(std::vector<std::vector<int64_t>> const& shapes, DataType type)
{
    std::map<std::string, HostTensor> inputs;
    for (size_t i = 0; i < shapes.size(); ++i)
    {
        auto const n = static_cast<size_t>(volumeOf(shapes[i]));
        std::string const name = "x" + std::to_string(i);
        if (type == DataType::kINT32)
        {
            std::vector<int32_t> values(n);
            for (size_t k = 0; k < n; ++k)
            {
                values[k] = static_cast<int32_t>(i * 1000 + k);
            }
            inputs[name] = fromElements(shapes[i], values, type);
        }
        else
        {
            inputs[name]
                = fromFloats(shapes[i], spread(n, -static_cast<float>(i) - 1.0F, static_cast<float>(i) + 1.0F), type);
        }
    }
    return inputs;
}

TEST(CudaBackendConcatenation, EveryAxisAgreesWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    for (int32_t axis : {0, 1, 2, -1})
    {
        std::vector<std::vector<int64_t>> shapes;
        for (int64_t extent : {2, 3, 1})
        {
            std::vector<int64_t> shape{2, 3, 4};
            shape[static_cast<size_t>(axis < 0 ? axis + 3 : axis)] = extent;
            shapes.push_back(shape);
        }
        std::string const what = "axis " + std::to_string(axis);
        expectBackendsAgree(
            concatenationOf(shapes, axis, DataType::kFLOAT), inputsFor(shapes, DataType::kFLOAT), false, what);
        expectBackendsAgree(
            concatenationOf(shapes, axis, DataType::kFLOAT), inputsFor(shapes, DataType::kFLOAT), true, what + " fp16");
        expectBackendsAgree(concatenationOf(shapes, axis, DataType::kINT32), inputsFor(shapes, DataType::kINT32), false,
            what + " int32");
    }
}

TEST(CudaBackendConcatenation, MoreInputsThanOneLaunchTakes)
{
    SKIP_WITHOUT_GPU();
    std::vector<std::vector<int64_t>> shapes;
    for (int64_t i = 0; i < 21; ++i)
    {
        shapes.push_back({3, 1 + i % 4, 5});
    }
    expectBackendsAgree(
        concatenationOf(shapes, 1, DataType::kFLOAT), inputsFor(shapes, DataType::kFLOAT), false, "21 inputs");
}

TEST(CudaBackendConcatenation, AnEmptyInput)
{
    SKIP_WITHOUT_GPU();
    NetworkMaker const maker = [](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{2, {3, 4}});
        ISliceLayer* empty = network.addSlice(*x, Dims{2, {0, 0}}, Dims{2, {3, 0}}, Dims{2, {1, 1}});
        IConcatenationLayer* layer = addConcatenationAlong(network, {x, empty->getOutput(0), x}, 1);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
    expectBackendsAgree(maker, {{"x", fromFloats({3, 4}, spread(12, -1.0F, 1.0F))}}, false, "empty input");
}

} // namespace
