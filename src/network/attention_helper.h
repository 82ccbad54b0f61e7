// IAttention (INetworkDefinition::addAttention): an attention made of the layers Kiln has. The helper owns them:
//   scores = MatrixMultiply(query, key transposed)      (key and value heads repeated for grouped-query attention)
//   masked = scores + mask                              (an additive mask; a BOOL or causal mask becomes 0 / -inf)
//   probabilities = SoftMax(masked) over the key axis   (or the masked scores, for AttentionNormalizationOp::kNONE)
//   output = MatrixMultiply(probabilities, value)
// the form exports write, which the backends' fusion pass (plan/passes/attention_fusion.h) turns back into one
// attention kernel (CUDA plans; FP32 CPU plans for the fast path). With kNONE there is no SoftMax to send -infinity to
// zero, so a BOOL or causal mask selects zero for the scores it hides. The last product is made once and stays: its
// output is the attention's. A setter that changes what the other layers compute builds them anew, wires the product to
// them, and removes the old ones; where the new layers do not build (or the network's shapes no longer infer), it
// removes them and changes nothing.
#pragma once

#include "network/layer.h"

#include <NvInfer.h>

#include <string>
#include <vector>

namespace kiln::network
{

class Layer;
class Network;

class AttentionHelper final : public nvinfer1::IAttention
{
public:
    //! What the layers before the last product compute from.
    struct Config
    {
        nvinfer1::ITensor* query{nullptr};
        nvinfer1::ITensor* key{nullptr};
        nvinfer1::ITensor* value{nullptr};
        nvinfer1::ITensor* mask{nullptr};
        nvinfer1::AttentionNormalizationOp normalization{nvinfer1::AttentionNormalizationOp::kSOFTMAX};
        bool causal{false};
    };

    AttentionHelper(Network& network, std::string name);
    ~AttentionHelper() noexcept override = default;

    //! Builds the layers for `config`; false (with one error naming `call`) when they do not build.
    bool create(Config const& config, char const* call);

    bool setNormalizationOperation(nvinfer1::AttentionNormalizationOp op) noexcept override;
    nvinfer1::AttentionNormalizationOp getNormalizationOperation() const noexcept override
    {
        return mConfig.normalization;
    }
    bool setMask(nvinfer1::ITensor& mask) noexcept override;
    nvinfer1::ITensor* getMask() noexcept override
    {
        return mConfig.mask;
    }
    bool setCausal(bool isCausal) noexcept override;
    bool getCausal() const noexcept override
    {
        return mConfig.causal;
    }
    bool setDecomposable(bool decomposable) noexcept override
    {
        mDecomposable = decomposable;
        return true;
    }
    bool getDecomposable() const noexcept override
    {
        return mDecomposable;
    }
    bool setInput(int32_t index, nvinfer1::ITensor& input) noexcept override;
    int32_t getNbInputs() const noexcept override
    {
        return 3;
    }
    nvinfer1::ITensor* getInput(int32_t index) const noexcept override;
    int32_t getNbOutputs() const noexcept override
    {
        return 1;
    }
    nvinfer1::ITensor* getOutput(int32_t index) const noexcept override;
    bool setName(char const* name) noexcept override;
    char const* getName() const noexcept override
    {
        return mName.c_str();
    }
    bool setNormalizationQuantizeScale(nvinfer1::ITensor& tensor) noexcept override;
    nvinfer1::ITensor* getNormalizationQuantizeScale() const noexcept override
    {
        return nullptr;
    }
    bool setNormalizationQuantizeToType(nvinfer1::DataType type) noexcept override;
    nvinfer1::DataType getNormalizationQuantizeToType() const noexcept override
    {
        return nvinfer1::DataType::kFLOAT;
    }
    bool setMetadata(char const* metadata) noexcept override;
    char const* getMetadata() const noexcept override
    {
        return mMetadata.c_str();
    }
    bool setNbRanks(int32_t nbRanks) noexcept override
    {
        return acceptNbRanks("IAttention::setNbRanks", nbRanks);
    }
    int32_t getNbRanks() const noexcept override
    {
        return 1;
    }

private:
    //! The layers before the last product for `config`, appended to the network; what the product reads.
    struct Built
    {
        std::vector<Layer*> layers;
        nvinfer1::ITensor* probabilities{nullptr};
        nvinfer1::ITensor* values{nullptr};
    };

    //! Checks `config` and adds its layers; false with `error` (the layers added so far removed) otherwise.
    bool build(Config const& config, Built& built, std::string& error);
    //! Builds `config`, rewires the last product to it and drops the old layers; false (with one error naming
    //! `call`, nothing changed) when the new layers do not build or the network no longer infers.
    bool rebuild(Config const& config, char const* call);
    //! Gives the helper's layers their names ("<name> [<kind>] <n>") and metadata.
    void label();

    Network& mNetwork;
    std::string mName;
    std::string mMetadata;
    Config mConfig;
    bool mDecomposable{false};
    std::vector<Layer*> mLayers;                      //!< the layers before the last product
    nvinfer1::IMatrixMultiplyLayer* mOutput{nullptr}; //!< the last product
    Layer* mOutputLayer{nullptr};                     //!< the same layer
};

} // namespace kiln::network
