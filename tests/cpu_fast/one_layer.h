// What the fast-path tests of single layers share: networks of one layer named "layer" on inputs "a", "b", ..., the
// check that the fast path ran it (or left it to the reference), and the check that thread counts agree bit for bit.
#pragma once

#include "fast_path_comparison.h"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace kiln::test
{

//! Adds the layer under test on the network's inputs.
using LayerMaker = std::function<ILayer*(INetworkDefinition&, std::vector<ITensor*> const&)>;

inline std::string inputName(size_t index)
{
    return std::string(1, static_cast<char>('a' + index));
}

//! A network of FP32 inputs "a", "b", ... of `shapes` (-1: dynamic) and the layer `add` makes, named "layer", whose
//! output "output" is the network's.
inline NetworkMaker oneLayer(std::vector<Shape> const& shapes, LayerMaker const& add)
{
    return [shapes, add](INetworkDefinition& network) {
        std::vector<ITensor*> inputs;
        for (size_t i = 0; i < shapes.size(); ++i)
        {
            inputs.push_back(network.addInput(inputName(i).c_str(), DataType::kFLOAT, dimsOf(shapes[i])));
        }
        ILayer* layer = add(network, inputs);
        layer->setName("layer");
        layer->getOutput(0)->setName("output");
        network.markOutput(*layer->getOutput(0));
    };
}

//! One run's inputs "a", "b", ... of `shapes`, uniform in [-scale, scale) from seeds `seed`, `seed` + 1, ...
inline Tensors randomInputs(std::vector<Shape> const& shapes, uint32_t seed, float scale = 1.0F)
{
    Tensors inputs;
    for (size_t i = 0; i < shapes.size(); ++i)
    {
        std::vector<float> values = randomTensor(shapes[i], seed + static_cast<uint32_t>(i)).floats();
        std::transform(values.begin(), values.end(), values.begin(), [scale](float v) { return v * scale; });
        inputs[inputName(i)] = fromFloats(shapes[i], values);
    }
    return inputs;
}

//! Compares the fast plan of `maker`'s one-layer network with the reference on `runs` and checks that the fast path
//! ran the layer (`fast`) or left it to the reference kernel.
inline void expectLayerMatches(NetworkMaker const& maker, std::vector<Tensors> const& runs, Tolerance tolerance,
    bool fast, BuildSettings const& settings = {})
{
    std::map<std::string, bool> const layers = expectFastMatchesReference(maker, runs, tolerance, settings);
    EXPECT_EQ(layers, (std::map<std::string, bool>{{"layer", fast}})) << (fast ? "fast path" : "reference");
}

//! Runs the fast plan of `maker` (one layer, named `layer`) on `inputs` at 1, 2, 3 and all threads and checks that
//! the outputs are the same bits.
inline void expectSameBitsAtEveryThreadCount(
    NetworkMaker const& maker, Tensors const& inputs, std::string const& layer = "layer")
{
    std::vector<uint8_t> const plan = buildCpuPlan(maker, CpuKernels::kFAST);
    ASSERT_EQ(fastPathLayers(plan), (std::map<std::string, bool>{{layer, true}}));
    std::vector<Tensors> const one = runCpuPlan(plan, {inputs}, 1);
    ASSERT_EQ(one.size(), 1U);
    for (int32_t threads : {2, 3, 0})
    {
        std::vector<Tensors> const more = runCpuPlan(plan, {inputs}, threads);
        ASSERT_EQ(more.size(), 1U);
        EXPECT_EQ(more[0].at("output").bytes, one[0].at("output").bytes) << threads << " threads";
    }
}

} // namespace kiln::test
