// INetworkDefinition's calls that Kiln has nothing behind yet (dynamic quantization,
// ragged softmax, einsum, assertions, shape outputs): each returns TensorRT's failure value and logs one error
// naming the call and why. docs/api-coverage.md lists them.
#include "core/logging.h"
#include "network/network.h"

#include <string>

namespace kiln::network
{
namespace
{

void refuse(char const* call, std::string const& why)
{
    logError(std::string("INetworkDefinition::") + call + ": " + why);
}

constexpr char const* kNoDynamicQuantization
    = "Kiln has no dynamic (block) quantization yet; addQuantize and addDequantize take scales given ahead";
} // namespace

nvinfer1::IRaggedSoftMaxLayer* Network::addRaggedSoftMax(
    nvinfer1::ITensor& /*input*/, nvinfer1::ITensor& /*bounds*/) noexcept
{
    refuse("addRaggedSoftMax", "Kiln has no ragged softmax layer yet");
    return nullptr;
}

bool Network::markOutputForShapes(nvinfer1::ITensor& tensor) noexcept
{
    refuse("markOutputForShapes",
        std::string("\"") + tensor.getName()
            + "\" is not marked: Kiln computes shape values while it infers shapes but has no host-memory shape "
              "outputs yet; mark the tensor with markOutput instead");
    return false;
}

bool Network::unmarkOutputForShapes(nvinfer1::ITensor& tensor) noexcept
{
    refuse("unmarkOutputForShapes",
        std::string("\"") + tensor.getName() + "\" is not a shape output: Kiln has no shape outputs yet");
    return false;
}

nvinfer1::IAssertionLayer* Network::addAssertion(nvinfer1::ITensor& /*condition*/, char const* /*message*/) noexcept
{
    refuse("addAssertion", "Kiln has no assertion layer yet");
    return nullptr;
}

nvinfer1::IDynamicQuantizeLayer* Network::addDynamicQuantize(nvinfer1::ITensor& /*input*/, int32_t /*axis*/,
    int32_t /*blockSize*/, nvinfer1::DataType /*outputType*/, nvinfer1::DataType /*scaleType*/) noexcept
{
    refuse("addDynamicQuantize", kNoDynamicQuantization);
    return nullptr;
}

nvinfer1::IDynamicQuantizeLayer* Network::addDynamicQuantizeV2(nvinfer1::ITensor& /*input*/,
    nvinfer1::Dims const& /*blockShape*/, nvinfer1::DataType /*outputType*/, nvinfer1::DataType /*scaleType*/) noexcept
{
    refuse("addDynamicQuantizeV2", kNoDynamicQuantization);
    return nullptr;
}

nvinfer1::IRotaryEmbeddingLayer* Network::addRotaryEmbedding(nvinfer1::ITensor& /*input*/,
    nvinfer1::ITensor& /*cosCache*/, nvinfer1::ITensor& /*sinCache*/, bool /*interleaved*/,
    int32_t /*rotaryEmbeddingDim*/) noexcept
{
    refuse("addRotaryEmbedding",
        "Kiln has no rotary embedding layer yet (slices, products and a concatenation of the halves express it)");
    return nullptr;
}

nvinfer1::IKVCacheUpdateLayer* Network::addKVCacheUpdate(nvinfer1::ITensor& /*cache*/, nvinfer1::ITensor& /*update*/,
    nvinfer1::ITensor& /*writeIndices*/, nvinfer1::KVCacheMode /*cacheMode*/) noexcept
{
    refuse(
        "addKVCacheUpdate", "Kiln's engines cannot update an input in place yet (no output shares an input's memory)");
    return nullptr;
}

nvinfer1::IMoELayer* Network::addMoE(nvinfer1::ITensor& /*hiddenStates*/,
    nvinfer1::ITensor& /*selectedExpertsForTokens*/, nvinfer1::ITensor& /*scoresForSelectedExperts*/) noexcept
{
    refuse("addMoE",
        "Kiln has no mixture-of-experts layer yet (gathers of the chosen experts' weights, matrix products and a "
        "weighted sum express it)");
    return nullptr;
}

nvinfer1::IDistCollectiveLayer* Network::addDistCollective(nvinfer1::ITensor& /*input*/,
    nvinfer1::CollectiveOperation /*distCollectiveOp*/, nvinfer1::ReduceOperation /*reduceOp*/, int64_t /*root*/,
    int64_t* /*groups*/, int64_t /*groupSize*/) noexcept
{
    refuse("addDistCollective", "Kiln's engines run on one device, so there is nothing to exchange with other ranks");
    return nullptr;
}

nvinfer1::IEinsumLayer* Network::addEinsum(
    nvinfer1::ITensor* const* /*inputs*/, int32_t /*nbInputs*/, char const* equation) noexcept
{
    refuse("addEinsum",
        std::string("\"") + (equation != nullptr ? equation : "(null)")
            + "\": Kiln has no einsum layer yet (a matrix multiply, reduce or shuffle expresses the common equations)");
    return nullptr;
}

} // namespace kiln::network
