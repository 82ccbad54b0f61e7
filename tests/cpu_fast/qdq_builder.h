// Q/DQ networks for the tests of the quantized passes (quantization_propagation_test.cpp, quantized_fp16_test.cpp):
// their layers, named so that the tests find them in the plan, and what the tests ask of the plans.
#pragma once

#include "layer_helpers.h"
#include "one_layer.h"

#include "core/quantization.h"
#include "plan/plan_graph.h"

#include <memory>

namespace kiln::test
{

constexpr float kScale = 1.0F / 64.0F;
constexpr float kOutputScale = 0.02F;

//! A Q/DQ network's layers, named so that the tests find them in the plan.
class Builder
{
public:
    explicit Builder(INetworkDefinition& network)
        : mNetwork(network)
    {
    }

    ITensor& input(char const* name, Shape const& shape, DataType type = DataType::kFLOAT)
    {
        return *mNetwork.addInput(name, type, dimsOf(shape));
    }

    //! Q then DQ by `scales` (one: per tensor; several: along `axis`), the layers "q <name>" and "dq <name>"; the DQ
    //! writes `type`.
    ITensor& pair(ITensor& x, std::vector<float> const& scales, std::string const& name, int32_t axis = 0,
        DataType type = DataType::kFLOAT)
    {
        return dequantize(quantize(x, scales, name, axis), scales, name, axis, type);
    }

    ITensor& quantize(ITensor& x, std::vector<float> const& scales, std::string const& name, int32_t axis = 0)
    {
        IQuantizeLayer* q = mNetwork.addQuantize(x, scaleOf(scales), DataType::kINT8);
        q->setAxis(axis);
        q->setName(("q " + name).c_str());
        return *q->getOutput(0);
    }

    ITensor& dequantize(ITensor& x, std::vector<float> const& scales, std::string const& name, int32_t axis = 0,
        DataType type = DataType::kFLOAT)
    {
        IDequantizeLayer* dq = mNetwork.addDequantize(x, scaleOf(scales), type);
        dq->setAxis(axis);
        dq->setName(("dq " + name).c_str());
        return *dq->getOutput(0);
    }

    ITensor& shuffle(ITensor& x, Shape const& reshape, std::vector<int32_t> const& transpose, char const* name)
    {
        IShuffleLayer* layer = mNetwork.addShuffle(x);
        if (!reshape.empty())
        {
            layer->setReshapeDimensions(dimsOf(reshape));
        }
        if (!transpose.empty())
        {
            Permutation order{};
            std::copy(transpose.begin(), transpose.end(), order.order);
            layer->setSecondTranspose(order);
        }
        layer->setName(name);
        return *layer->getOutput(0);
    }

    ITensor& concatenation(std::vector<ITensor*> inputs, int32_t axis)
    {
        IConcatenationLayer* layer = mNetwork.addConcatenation(inputs.data(), static_cast<int32_t>(inputs.size()));
        layer->setAxis(axis);
        layer->setName("concatenation");
        return *layer->getOutput(0);
    }

    ITensor& maxPooling(ITensor& x)
    {
        IPoolingLayer* pool = mNetwork.addPoolingNd(x, PoolingType::kMAX, DimsHW{3, 3});
        pool->setStrideNd(DimsHW{2, 2});
        pool->setPaddingNd(DimsHW{1, 1});
        pool->setName("pool");
        return *pool->getOutput(0);
    }

    //! A 3x3 convolution (padding 1, layer "convolution") into `maps` maps, its weights INT8 values times one scale
    //! per map (each map's largest 127 steps, as max calibration gives), with a bias.
    ITensor& convolution(ITensor& x, int64_t maps)
    {
        int64_t const perMap = x.getDimensions().d[1] * 9;
        std::mt19937 engine(7);
        std::uniform_int_distribution<int> values(-127, 127);
        std::vector<float>& kernel = keep(std::vector<float>(static_cast<size_t>(maps * perMap)));
        for (int64_t map = 0; map < maps; ++map)
        {
            float const scale = 0.02F / static_cast<float>(map + 1);
            for (int64_t i = 0; i < perMap; ++i)
            {
                int const q = i == map % perMap ? 127 : values(engine);
                kernel[static_cast<size_t>(map * perMap + i)] = dequantizeInt8(static_cast<int8_t>(q), scale);
            }
        }
        std::vector<float>& bias = keep(randomValues(static_cast<size_t>(maps), 13));
        IConvolutionLayer* layer = mNetwork.addConvolutionNd(x, maps, DimsHW{3, 3}, weightsOf(kernel), weightsOf(bias));
        layer->setPaddingNd(DimsHW{1, 1});
        layer->setName("convolution");
        return *layer->getOutput(0);
    }

    //! x [..., K] times constant weights [K, columns] of INT8 values times 1/256, plus a bias row.
    ITensor& linear(ITensor& x, int64_t k, int64_t columns)
    {
        std::mt19937 engine(3);
        std::uniform_int_distribution<int> values(-127, 127);
        std::vector<float>& weights = keep(std::vector<float>(static_cast<size_t>(k * columns)));
        for (size_t i = 0; i < weights.size(); ++i)
        {
            // One value of 127 steps: the step is the largest magnitude over 127, as int8_weights.h recovers it.
            int const q = i == 0 ? 127 : values(engine);
            weights[i] = dequantizeInt8(static_cast<int8_t>(q), 1.0F / 256.0F);
        }
        std::vector<float>& bias = keep(randomValues(static_cast<size_t>(columns), 9));
        auto const rank = static_cast<size_t>(x.getDimensions().nbDims);
        Shape weightsShape(rank, 1);
        weightsShape[rank - 2] = k;
        weightsShape[rank - 1] = columns;
        Shape biasShape(rank, 1);
        biasShape[rank - 1] = columns;
        IMatrixMultiplyLayer* product = mNetwork.addMatrixMultiply(
            x, MatrixOperation::kNONE, constantOf(mNetwork, weightsShape, weights, "weights"), MatrixOperation::kNONE);
        product->setName("product");
        return sumOf(mNetwork, *product->getOutput(0), constantOf(mNetwork, biasShape, bias, "bias"), "bias sum");
    }

    //! x times a constant of one value (of x's rank, every extent 1).
    ITensor& scaled(ITensor& x, float factor, char const* name)
    {
        std::vector<float>& value = keep({factor});
        Shape const ones(static_cast<size_t>(x.getDimensions().nbDims), 1);
        IElementWiseLayer* layer
            = mNetwork.addElementWise(x, constantOf(mNetwork, ones, value, "factor"), ElementWiseOperation::kPROD);
        layer->setName(name);
        return *layer->getOutput(0);
    }

    INetworkDefinition& network()
    {
        return mNetwork;
    }

private:
    std::vector<float>& keep(std::vector<float> values)
    {
        mKept.push_back(std::make_unique<std::vector<float>>(std::move(values)));
        return *mKept.back();
    }

    ITensor& scaleOf(std::vector<float> const& scales)
    {
        std::vector<float>& kept = keep(scales);
        Shape const shape = scales.size() == 1 ? Shape{} : Shape{static_cast<int64_t>(scales.size())};
        return *mNetwork.addConstant(dimsOf(shape), weightsOf(kept))->getOutput(0);
    }

    INetworkDefinition& mNetwork;
    std::vector<std::unique_ptr<std::vector<float>>> mKept;
};

//! A network for `Builder`, whose weights and scales live as long as the test.
struct Network
{
    std::function<void(Builder&)> layers;
    std::vector<Shape> inputs;
    std::vector<Tensors> runs{}; //!< none: random FP32 inputs within 1 and within 3

    std::vector<Tensors> inputValues() const
    {
        return runs.empty() ? std::vector<Tensors>{randomInputs(inputs, 5), randomInputs(inputs, 17, 3.0F)} : runs;
    }

    NetworkMaker maker() const
    {
        auto builder = std::make_shared<std::unique_ptr<Builder>>();
        return [this, builder](INetworkDefinition& network) {
            *builder = std::make_unique<Builder>(network);
            layers(**builder);
        };
    }
};

inline plan::LayerRecord const& layerNamed(plan::PlanModel const& model, std::string const& name)
{
    for (plan::LayerRecord const& layer : model.layers)
    {
        if (layer.name == name)
        {
            return layer;
        }
    }
    ADD_FAILURE() << "no layer " << name;
    static plan::LayerRecord const none;
    return none;
}

//! The type layer `name` reads its first input in, and the type it writes.
inline std::pair<DataType, DataType> typesOf(plan::PlanModel const& model, std::string const& name)
{
    plan::LayerRecord const& layer = layerNamed(model, name);
    if (layer.inputs.empty() || layer.outputs.empty())
    {
        return {DataType::kBOOL, DataType::kBOOL};
    }
    return {plan::slotType(model, layer, 0), plan::slotType(model, layer, layer.inputs.size())};
}

inline std::pair<DataType, DataType> const kInt8{DataType::kINT8, DataType::kINT8};
inline std::pair<DataType, DataType> const kFloat{DataType::kFLOAT, DataType::kFLOAT};

inline size_t countOf(plan::PlanModel const& model, LayerType type)
{
    return static_cast<size_t>(std::count_if(
        model.layers.begin(), model.layers.end(), [type](plan::LayerRecord const& l) { return l.type == type; }));
}

inline plan::PlanModel readModel(std::vector<uint8_t> const& blob)
{
    plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(plan::readPlan(blob.data(), blob.size(), model, error)) << error;
    return model;
}

} // namespace kiln::test
