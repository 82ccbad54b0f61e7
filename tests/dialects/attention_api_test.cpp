// TensorRT 10.15's attention and the other 10.8-10.15 network and builder calls, used as an application uses them
// (C++17, -Wall -Wextra -Werror) and run on the CPU backend: INetworkDefinition::addAttention against a hand-written
// attention (SoftMax or none; additive, BOOL and causal masks; grouped-query heads; the setters, which rebuild the
// layers behind the same output), the indices types of NonZero and NMS, addNormalizationV2, the builder config's
// tiling options, buildSerializedNetwork's kernel-text form, and the calls Kiln refuses (TensorRT's failure value and
// one error naming the call).
#include <NvInfer.h>
#include <kiln/Backend.h>

#include "cpu_network_test.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;

using kiln::test::CpuNetworkTest;

//! The shapes of one attention: query [B, Hq, Sq, D], key [B, Hkv, Skv, D], value [B, Hkv, Skv, Dv].
struct Shape
{
    int64_t batch{2};
    int64_t queryHeads{2};
    int64_t keyHeads{2};
    int64_t querySequence{3};
    int64_t keySequence{4};
    int64_t headSize{5};
    int64_t valueSize{3};
};

//! What the reference masks with: nothing, an additive FLOAT mask, a BOOL mask (both [B, Hq, Sq, Skv]), or causal.
enum class Masking
{
    kNONE,
    kADDITIVE,
    kBOOL,
    kCAUSAL,
};

std::vector<float> randomValues(size_t count, uint32_t seed)
{
    std::mt19937 engine(seed);
    std::uniform_real_distribution<float> uniform(-1.0F, 1.0F);
    std::vector<float> values(count);
    for (float& v : values)
    {
        v = uniform(engine);
    }
    return values;
}

//! softmax(q k^T + mask) v, or (q k^T masked) v without the SoftMax, computed directly from the definition.
std::vector<float> referenceAttention(Shape const& s, std::vector<float> const& q, std::vector<float> const& k,
    std::vector<float> const& v, Masking masking, std::vector<float> const& additive, std::vector<bool> const& allowed,
    bool softmax)
{
    std::vector<float> out(static_cast<size_t>(s.batch * s.queryHeads * s.querySequence * s.valueSize), 0.0F);
    int64_t const groups = s.queryHeads / s.keyHeads;
    for (int64_t b = 0; b < s.batch; ++b)
    {
        for (int64_t h = 0; h < s.queryHeads; ++h)
        {
            int64_t const kh = h / groups;
            for (int64_t i = 0; i < s.querySequence; ++i)
            {
                std::vector<double> scores(static_cast<size_t>(s.keySequence));
                std::vector<bool> visible(static_cast<size_t>(s.keySequence), true);
                for (int64_t j = 0; j < s.keySequence; ++j)
                {
                    double dot = 0.0;
                    for (int64_t d = 0; d < s.headSize; ++d)
                    {
                        dot += static_cast<double>(q[((b * s.queryHeads + h) * s.querySequence + i) * s.headSize + d])
                            * k[((b * s.keyHeads + kh) * s.keySequence + j) * s.headSize + d];
                    }
                    size_t const m
                        = static_cast<size_t>(((b * s.queryHeads + h) * s.querySequence + i) * s.keySequence + j);
                    if (masking == Masking::kADDITIVE)
                    {
                        dot += additive[m];
                    }
                    visible[j] = masking == Masking::kBOOL ? static_cast<bool>(allowed[m])
                        : masking == Masking::kCAUSAL      ? j <= i
                                                           : true;
                    scores[j] = dot;
                }
                std::vector<double> weights(scores.size(), 0.0);
                if (softmax)
                {
                    double top = -std::numeric_limits<double>::infinity();
                    for (size_t j = 0; j < scores.size(); ++j)
                    {
                        top = visible[j] ? std::max(top, scores[j]) : top;
                    }
                    double sum = 0.0;
                    for (size_t j = 0; j < scores.size(); ++j)
                    {
                        weights[j] = visible[j] ? std::exp(scores[j] - top) : 0.0;
                        sum += weights[j];
                    }
                    for (double& w : weights)
                    {
                        w /= sum;
                    }
                }
                else
                {
                    for (size_t j = 0; j < scores.size(); ++j)
                    {
                        weights[j] = visible[j] ? scores[j] : 0.0;
                    }
                }
                for (int64_t e = 0; e < s.valueSize; ++e)
                {
                    double acc = 0.0;
                    for (int64_t j = 0; j < s.keySequence; ++j)
                    {
                        acc += weights[j] * v[((b * s.keyHeads + kh) * s.keySequence + j) * s.valueSize + e];
                    }
                    out[((b * s.queryHeads + h) * s.querySequence + i) * s.valueSize + e] = static_cast<float>(acc);
                }
            }
        }
    }
    return out;
}

Dims dims4(int64_t a, int64_t b, int64_t c, int64_t d)
{
    return Dims{4, {a, b, c, d}};
}

class AttentionApi : public CpuNetworkTest
{
protected:
    //! Adds inputs q, k, v of `s`'s shapes (FLOAT) with random values.
    void addInputs(Shape const& s)
    {
        shape = s;
        q = network->addInput("q", DataType::kFLOAT, dims4(s.batch, s.queryHeads, s.querySequence, s.headSize));
        k = network->addInput("k", DataType::kFLOAT, dims4(s.batch, s.keyHeads, s.keySequence, s.headSize));
        v = network->addInput("v", DataType::kFLOAT, dims4(s.batch, s.keyHeads, s.keySequence, s.valueSize));
        qValues = randomValues(static_cast<size_t>(s.batch * s.queryHeads * s.querySequence * s.headSize), 1);
        kValues = randomValues(static_cast<size_t>(s.batch * s.keyHeads * s.keySequence * s.headSize), 2);
        vValues = randomValues(static_cast<size_t>(s.batch * s.keyHeads * s.keySequence * s.valueSize), 3);
    }

    size_t maskCount() const
    {
        return static_cast<size_t>(shape.batch * shape.queryHeads * shape.querySequence * shape.keySequence);
    }

    //! Builds, runs on the inputs (and the masks where the network has them) and gives output "y".
    std::vector<float> run(std::vector<float> const* additive = nullptr, std::vector<bool> const* allowed = nullptr)
    {
        std::unique_ptr<ICudaEngine> engine = buildEngine();
        if (!engine)
        {
            return {};
        }
        EXPECT_EQ(engine->getAliasedInputTensor("y"), nullptr); // no Kiln layer updates an input in place
        std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
        EXPECT_TRUE(context->setInputTensorAddress("q", qValues.data()));
        EXPECT_TRUE(context->setInputTensorAddress("k", kValues.data()));
        EXPECT_TRUE(context->setInputTensorAddress("v", vValues.data()));
        std::vector<uint8_t> bytes;
        if (additive != nullptr)
        {
            EXPECT_TRUE(context->setInputTensorAddress("mask", additive->data()));
        }
        if (allowed != nullptr)
        {
            bytes.assign(allowed->begin(), allowed->end());
            EXPECT_TRUE(context->setInputTensorAddress("mask", bytes.data()));
        }
        std::vector<float> y(
            static_cast<size_t>(shape.batch * shape.queryHeads * shape.querySequence * shape.valueSize), -100.0F);
        EXPECT_TRUE(context->setOutputTensorAddress("y", y.data()));
        EXPECT_TRUE(context->enqueueV3(nullptr));
        return y;
    }

    void expectNear(std::vector<float> const& actual, std::vector<float> const& expected)
    {
        ASSERT_EQ(actual.size(), expected.size());
        for (size_t i = 0; i < actual.size(); ++i)
        {
            EXPECT_NEAR(actual[i], expected[i], 1e-5F) << "element " << i;
        }
    }

    //! The attention's output, named "y" and marked.
    void markOutput(IAttention& attention)
    {
        ITensor* y = attention.getOutput(0);
        ASSERT_NE(y, nullptr);
        y->setName("y");
        network->markOutput(*y);
    }

    Shape shape;
    ITensor* q{nullptr};
    ITensor* k{nullptr};
    ITensor* v{nullptr};
    std::vector<float> qValues;
    std::vector<float> kValues;
    std::vector<float> vValues;
};

TEST_F(AttentionApi, SoftMaxAttentionMatchesTheDefinition)
{
    addInputs(Shape{});
    IAttention* attention = network->addAttention(*q, *k, *v, AttentionNormalizationOp::kSOFTMAX, false);
    ASSERT_NE(attention, nullptr);
    EXPECT_EQ(attention->getNbInputs(), 3);
    EXPECT_EQ(attention->getInput(0), q);
    EXPECT_EQ(attention->getInput(2), v);
    EXPECT_EQ(attention->getNbOutputs(), 1);
    EXPECT_EQ(attention->getMask(), nullptr);
    EXPECT_FALSE(attention->getCausal());
    EXPECT_EQ(attention->getNormalizationOperation(), AttentionNormalizationOp::kSOFTMAX);
    Dims const out = attention->getOutput(0)->getDimensions();
    EXPECT_EQ(out.nbDims, 4);
    EXPECT_EQ(out.d[3], shape.valueSize);
    markOutput(*attention);
    expectNear(run(), referenceAttention(shape, qValues, kValues, vValues, Masking::kNONE, {}, {}, true));
}

TEST_F(AttentionApi, CausalAttentionSeesTheKeysUpToItsPosition)
{
    Shape s;
    s.querySequence = 3;
    s.keySequence = 5; // the mask's top left corner is kept: query i sees keys 0..i
    addInputs(s);
    IAttention* attention = network->addAttention(*q, *k, *v, AttentionNormalizationOp::kSOFTMAX, true);
    ASSERT_NE(attention, nullptr);
    EXPECT_TRUE(attention->getCausal());
    markOutput(*attention);
    expectNear(run(), referenceAttention(shape, qValues, kValues, vValues, Masking::kCAUSAL, {}, {}, true));
}

TEST_F(AttentionApi, AdditiveAndBoolMasks)
{
    addInputs(Shape{});
    ITensor* mask = network->addInput(
        "mask", DataType::kFLOAT, dims4(shape.batch, shape.queryHeads, shape.querySequence, shape.keySequence));
    IAttention* attention = network->addAttention(*q, *k, *v, AttentionNormalizationOp::kSOFTMAX, false);
    ASSERT_NE(attention, nullptr);
    ASSERT_TRUE(attention->setMask(*mask));
    EXPECT_EQ(attention->getMask(), mask);
    markOutput(*attention);
    std::vector<float> const additive = randomValues(maskCount(), 4);
    expectNear(
        run(&additive), referenceAttention(shape, qValues, kValues, vValues, Masking::kADDITIVE, additive, {}, true));

    // The same network shape with a BOOL mask: every row keeps at least its first key.
    SetUp();
    addInputs(Shape{});
    ITensor* allowedMask = network->addInput(
        "mask", DataType::kBOOL, dims4(shape.batch, shape.queryHeads, shape.querySequence, shape.keySequence));
    IAttention* masked = network->addAttention(*q, *k, *v, AttentionNormalizationOp::kSOFTMAX, false);
    ASSERT_NE(masked, nullptr);
    ASSERT_TRUE(masked->setMask(*allowedMask));
    markOutput(*masked);
    std::vector<bool> allowed(maskCount());
    for (size_t i = 0; i < allowed.size(); ++i)
    {
        allowed[i] = i % static_cast<size_t>(shape.keySequence) == 0 || (i * 7) % 3 != 0;
    }
    expectNear(run(nullptr, &allowed),
        referenceAttention(shape, qValues, kValues, vValues, Masking::kBOOL, {}, allowed, true));
}

TEST_F(AttentionApi, WithoutNormalizationTheMaskZeroesHiddenScores)
{
    addInputs(Shape{});
    IAttention* attention = network->addAttention(*q, *k, *v, AttentionNormalizationOp::kNONE, true);
    ASSERT_NE(attention, nullptr);
    EXPECT_EQ(attention->getNormalizationOperation(), AttentionNormalizationOp::kNONE);
    markOutput(*attention);
    expectNear(run(), referenceAttention(shape, qValues, kValues, vValues, Masking::kCAUSAL, {}, {}, false));
}

TEST_F(AttentionApi, GroupedQueryHeadsShareKeysAndValues)
{
    Shape s;
    s.queryHeads = 4;
    s.keyHeads = 2;
    addInputs(s);
    IAttention* attention = network->addAttention(*q, *k, *v, AttentionNormalizationOp::kSOFTMAX, true);
    ASSERT_NE(attention, nullptr);
    EXPECT_EQ(attention->getOutput(0)->getDimensions().d[1], 4);
    markOutput(*attention);
    expectNear(run(), referenceAttention(shape, qValues, kValues, vValues, Masking::kCAUSAL, {}, {}, true));
}

TEST_F(AttentionApi, SettersRebuildBehindTheSameOutput)
{
    addInputs(Shape{});
    IAttention* attention = network->addAttention(*q, *k, *v, AttentionNormalizationOp::kSOFTMAX, false);
    ASSERT_NE(attention, nullptr);
    ITensor* output = attention->getOutput(0);
    int32_t const plainLayers = network->getNbLayers();
    ASSERT_TRUE(attention->setCausal(true));
    EXPECT_EQ(attention->getOutput(0), output);
    EXPECT_GT(network->getNbLayers(), plainLayers); // the causal mask's layers
    ASSERT_TRUE(attention->setCausal(false));
    EXPECT_EQ(network->getNbLayers(), plainLayers); // and gone again
    ASSERT_TRUE(attention->setCausal(true));

    // A mask cannot join a causal attention: refused, nothing changes.
    ITensor* mask = network->addInput(
        "m", DataType::kFLOAT, dims4(shape.batch, shape.queryHeads, shape.querySequence, shape.keySequence));
    EXPECT_FALSE(attention->setMask(*mask));
    EXPECT_EQ(logger.take("IAttention::setMask: a causal attention takes no mask"), 1U);
    EXPECT_EQ(attention->getMask(), nullptr);
    network->removeTensor(*mask);

    // A value of another head size: the output follows it.
    ITensor* other = network->addInput("w", DataType::kFLOAT, dims4(shape.batch, shape.keyHeads, shape.keySequence, 2));
    ASSERT_TRUE(attention->setInput(2, *other));
    EXPECT_EQ(attention->getInput(2), other);
    EXPECT_EQ(output->getDimensions().d[3], 2);
    ASSERT_TRUE(attention->setInput(2, *v));
    network->removeTensor(*other);

    // A key of another head size does not fit the query: refused, nothing changes.
    ITensor* wrong = network->addInput("x", DataType::kFLOAT, dims4(shape.batch, shape.keyHeads, shape.keySequence, 7));
    EXPECT_FALSE(attention->setInput(1, *wrong));
    EXPECT_EQ(logger.take("IAttention::setInput"), 1U);
    EXPECT_EQ(attention->getInput(1), k);
    EXPECT_FALSE(attention->setInput(3, *wrong));
    EXPECT_EQ(logger.take("IAttention::setInput: index 3"), 1U);
    network->removeTensor(*wrong);

    ASSERT_TRUE(attention->setNormalizationOperation(AttentionNormalizationOp::kNONE));
    ASSERT_TRUE(attention->setNormalizationOperation(AttentionNormalizationOp::kSOFTMAX));
    EXPECT_TRUE(attention->setDecomposable(true));
    EXPECT_TRUE(attention->getDecomposable());
    ASSERT_TRUE(attention->setName("self"));
    EXPECT_STREQ(attention->getName(), "self");
    ASSERT_TRUE(attention->setMetadata("block 0"));
    EXPECT_STREQ(attention->getMetadata(), "block 0");
    int32_t named = 0;
    for (int32_t i = 0; i < network->getNbLayers(); ++i)
    {
        ILayer* layer = network->getLayer(i);
        if (std::string(layer->getName()).rfind("self [", 0) == 0)
        {
            ++named;
            EXPECT_STREQ(layer->getMetadata(), "block 0");
        }
    }
    EXPECT_GE(named, 3); // the products and the SoftMax at least
    markOutput(*attention);
    expectNear(run(), referenceAttention(shape, qValues, kValues, vValues, Masking::kCAUSAL, {}, {}, true));
    EXPECT_TRUE(logger.errors.empty());
}

TEST_F(AttentionApi, RefusedAndInvalidCallsNameTheCall)
{
    addInputs(Shape{});
    IAttention* attention = network->addAttention(*q, *k, *v, AttentionNormalizationOp::kSOFTMAX, false);
    ASSERT_NE(attention, nullptr);
    EXPECT_FALSE(attention->setNormalizationQuantizeScale(*q));
    EXPECT_EQ(logger.take("IAttention::setNormalizationQuantizeScale: Kiln has no FP8 or INT8 yet"), 1U);
    EXPECT_EQ(attention->getNormalizationQuantizeScale(), nullptr);
    EXPECT_FALSE(attention->setNormalizationQuantizeToType(DataType::kFP8));
    EXPECT_EQ(logger.take("IAttention::setNormalizationQuantizeToType"), 1U);
    EXPECT_EQ(attention->getNormalizationQuantizeToType(), DataType::kFLOAT);
    EXPECT_FALSE(attention->setNormalizationOperation(static_cast<AttentionNormalizationOp>(7)));
    EXPECT_EQ(logger.take("IAttention::setNormalizationOperation"), 1U);
    EXPECT_EQ(attention->getNbRanks(), 1); // TensorRT 10.16: one device only
    EXPECT_TRUE(attention->setNbRanks(1));
    EXPECT_FALSE(attention->setNbRanks(4));
    EXPECT_EQ(logger.take("IAttention::setNbRanks: 4 ranks"), 1U);
    EXPECT_EQ(attention->getNbRanks(), 1);

    int32_t const layers = network->getNbLayers();
    ITensor* flat = network->addInput("flat", DataType::kFLOAT, Dims{3, {2, 3, 5}});
    EXPECT_EQ(network->addAttention(*flat, *k, *v, AttentionNormalizationOp::kSOFTMAX, false), nullptr);
    EXPECT_EQ(
        logger.take("INetworkDefinition::addAttention: the query must be [batch, heads, sequence, head size]"), 1U);
    ITensor* threeHeads = network->addInput("q3", DataType::kFLOAT, dims4(2, 3, 3, 5));
    EXPECT_EQ(network->addAttention(*threeHeads, *k, *v, AttentionNormalizationOp::kSOFTMAX, false), nullptr);
    EXPECT_EQ(logger.take("INetworkDefinition::addAttention: the query's 3 heads are not a multiple"), 1U);
    EXPECT_EQ(network->getNbLayers(), layers); // nothing left behind

    EXPECT_EQ(network->addRotaryEmbedding(*q, *k, *v, false, 0), nullptr);
    EXPECT_EQ(logger.take("INetworkDefinition::addRotaryEmbedding: Kiln has no rotary embedding layer yet"), 1U);
    ITensor* positions = network->addInput("positions", DataType::kINT32, Dims{1, {2}});
    EXPECT_EQ(network->addKVCacheUpdate(*k, *k, *positions, KVCacheMode::kLINEAR), nullptr);
    EXPECT_EQ(logger.take("INetworkDefinition::addKVCacheUpdate"), 1U);
    EXPECT_EQ(network->addDynamicQuantizeV2(*q, dims4(1, 1, 1, 16), DataType::kFP4, DataType::kFP8), nullptr);
    EXPECT_EQ(logger.take("INetworkDefinition::addDynamicQuantizeV2"), 1U);
    EXPECT_EQ(network->getNbLayers(), layers);
}

TEST_F(AttentionApi, IndicesTypesAndNormalizationV2)
{
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    INonZeroLayer* nonZero = network->addNonZero(*x, DataType::kINT32);
    ASSERT_NE(nonZero, nullptr);
    EXPECT_EQ(nonZero->getIndicesType(), DataType::kINT32);
    EXPECT_EQ(nonZero->getOutput(0)->getType(), DataType::kINT32);
    EXPECT_EQ(network->addNonZero(*x, DataType::kFLOAT), nullptr);
    EXPECT_EQ(logger.take("INetworkDefinition::addNonZero: the indices type must be INT32 or INT64"), 1U);

    ITensor* boxes = network->addInput("boxes", DataType::kFLOAT, Dims{3, {1, 4, 4}});
    ITensor* scores = network->addInput("scores", DataType::kFLOAT, Dims{3, {1, 4, 2}});
    int32_t limit = 2;
    ITensor* most = network->addConstant(Dims{0, {}}, Weights{DataType::kINT32, &limit, 1})->getOutput(0);
    INMSLayer* nms = network->addNMS(*boxes, *scores, *most, DataType::kINT64);
    ASSERT_NE(nms, nullptr);
    EXPECT_EQ(nms->getIndicesType(), DataType::kINT64);
    EXPECT_EQ(network->addNMS(*boxes, *scores, *most, DataType::kHALF), nullptr);
    EXPECT_EQ(logger.take("INetworkDefinition::addNMS: the indices type must be INT32 or INT64"), 1U);

    ITensor* y = network->addInput("y", DataType::kFLOAT, Dims{3, {1, 2, 4}});
    float ones[2] = {1.0F, 1.0F};
    float zeros[2] = {0.0F, 0.0F};
    ITensor* scale = network->addConstant(Dims{3, {1, 2, 1}}, Weights{DataType::kFLOAT, ones, 2})->getOutput(0);
    ITensor* bias = network->addConstant(Dims{3, {1, 2, 1}}, Weights{DataType::kFLOAT, zeros, 2})->getOutput(0);
    INormalizationLayer* v1 = network->addNormalization(*y, *scale, *bias, 1U << 2);
    INormalizationLayer* v2 = network->addNormalizationV2(*y, *scale, *bias, 1U << 2);
    ASSERT_NE(v1, nullptr);
    ASSERT_NE(v2, nullptr);
    EXPECT_FALSE(v1->isV2());
    EXPECT_TRUE(v2->isV2());
    EXPECT_EQ(network->addNormalizationV2(*y, *scale, *bias, 0), nullptr);
    EXPECT_EQ(logger.take("INetworkDefinition::addNormalizationV2: the axes mask is empty"), 1U);
}

TEST_F(AttentionApi, BuilderConfigTilingAndKernelText)
{
    EXPECT_EQ(config->getTilingOptimizationLevel(), TilingOptimizationLevel::kNONE);
    EXPECT_TRUE(config->setTilingOptimizationLevel(TilingOptimizationLevel::kNONE));
    EXPECT_FALSE(config->setTilingOptimizationLevel(TilingOptimizationLevel::kFAST));
    EXPECT_EQ(logger.take("IBuilderConfig::setTilingOptimizationLevel: Kiln does no tiling optimization"), 1U);
    EXPECT_EQ(config->getTilingOptimizationLevel(), TilingOptimizationLevel::kNONE);
    EXPECT_EQ(config->getL2LimitForTiling(), -1);
    EXPECT_TRUE(config->setL2LimitForTiling(int64_t{1} << 20));
    EXPECT_EQ(config->getL2LimitForTiling(), int64_t{1} << 20);
    EXPECT_FALSE(config->setL2LimitForTiling(-5));
    EXPECT_EQ(logger.take("IBuilderConfig::setL2LimitForTiling"), 1U);
    EXPECT_FALSE(config->setRemoteAutoTuningConfig("host:port"));
    EXPECT_EQ(logger.take("IBuilderConfig::setRemoteAutoTuningConfig"), 1U);
    EXPECT_EQ(config->getRemoteAutoTuningConfig(), nullptr);
    config->setFlag(BuilderFlag::kDISTRIBUTIVE_INDEPENDENCE);
    EXPECT_TRUE(config->getFlag(BuilderFlag::kDISTRIBUTIVE_INDEPENDENCE));

    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{1, {3}});
    ITensor* y = network->addActivation(*x, ActivationType::kRELU)->getOutput(0);
    y->setName("y");
    network->markOutput(*y);
    IHostMemory* kernelText = reinterpret_cast<IHostMemory*>(&logger); // any non-null value: the call clears it
    std::unique_ptr<IHostMemory> plan{builder->buildSerializedNetwork(*network, *config, kernelText)};
    EXPECT_NE(plan, nullptr);
    EXPECT_EQ(kernelText, nullptr);
}

} // namespace
