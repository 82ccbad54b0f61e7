// The network an application builds (the object behind INetworkDefinition).
#pragma once

#include "network/inference.h"
#include "network/layer.h"
#include "network/tensor.h"
#include "shape/expr_builder.h"

#include <NvInfer.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace kiln::network
{

class AttentionHelper;
class IfConditional;
class Loop;
class NormalizationLayer;

//! Shapes and types of every tensor of a network, inferred symbolically.
struct NetworkFacts
{
    std::unique_ptr<shape::ExprBuilder> exprs = std::make_unique<shape::ExprBuilder>();
    std::unordered_map<Tensor const*, TensorFacts> tensors;
    //! For each network input, the symbol of each dimension given as -1 (nullptr where fixed).
    std::unordered_map<Tensor const*, std::vector<shape::Expr const*>> inputSymbols;
    //! For each input that can be a shape tensor (INT32/INT64, 0-D or 1-D with at most 8 values): a symbol per
    //! value. Where a shape depends on them, the input is a shape tensor: its values bound the profile
    //! (IOptimizationProfile::setShapeValues) and are read from host memory at run time.
    std::unordered_map<Tensor const*, std::vector<shape::Expr const*>> inputValueSymbols;
    //! For each size tensor a layer declared (IExprBuilder::declareSizeTensor): the 0-D output holding its value,
    //! written by the layer when it runs.
    std::unordered_map<shape::SymbolId, Tensor const*> sizeTensorSources;
    //! The layers in the order they were inferred (each after the producers of its inputs), and each one's index.
    std::vector<Layer const*> order;
    std::unordered_map<Layer const*, size_t> position;
};

class Network final : public nvinfer1::INetworkDefinition
{
public:
    Network(nvinfer1::IBuilder& builder, nvinfer1::NetworkDefinitionCreationFlags flags);
    ~Network() noexcept override;

    // nvinfer1::INetworkDefinition
    nvinfer1::ITensor* addInput(
        char const* name, nvinfer1::DataType type, nvinfer1::Dims const& dims) noexcept override;
    void markOutput(nvinfer1::ITensor& tensor) noexcept override;
    void unmarkOutput(nvinfer1::ITensor& tensor) noexcept override;
    nvinfer1::IActivationLayer* addActivation(
        nvinfer1::ITensor& input, nvinfer1::ActivationType type) noexcept override;
    nvinfer1::IElementWiseLayer* addElementWise(
        nvinfer1::ITensor& input1, nvinfer1::ITensor& input2, nvinfer1::ElementWiseOperation op) noexcept override;
    nvinfer1::IUnaryLayer* addUnary(nvinfer1::ITensor& input, nvinfer1::UnaryOperation operation) noexcept override;
    nvinfer1::IScaleLayer* addScale(nvinfer1::ITensor& input, nvinfer1::ScaleMode mode, nvinfer1::Weights shift,
        nvinfer1::Weights scale, nvinfer1::Weights power) noexcept override;
    nvinfer1::IScaleLayer* addScaleNd(nvinfer1::ITensor& input, nvinfer1::ScaleMode mode, nvinfer1::Weights shift,
        nvinfer1::Weights scale, nvinfer1::Weights power, int32_t channelAxis) noexcept override;
    nvinfer1::ISoftMaxLayer* addSoftMax(nvinfer1::ITensor& input) noexcept override;
    nvinfer1::IConcatenationLayer* addConcatenation(
        nvinfer1::ITensor* const* inputs, int32_t nbInputs) noexcept override;
    nvinfer1::IShuffleLayer* addShuffle(nvinfer1::ITensor& input) noexcept override;
    nvinfer1::IMatrixMultiplyLayer* addMatrixMultiply(nvinfer1::ITensor& input0, nvinfer1::MatrixOperation op0,
        nvinfer1::ITensor& input1, nvinfer1::MatrixOperation op1) noexcept override;
    nvinfer1::IConstantLayer* addConstant(
        nvinfer1::Dims const& dimensions, nvinfer1::Weights weights) noexcept override;
    nvinfer1::IReduceLayer* addReduce(nvinfer1::ITensor& input, nvinfer1::ReduceOperation operation,
        uint32_t reduceAxes, bool keepDimensions) noexcept override;
    nvinfer1::ISliceLayer* addSlice(nvinfer1::ITensor& input, nvinfer1::Dims const& start, nvinfer1::Dims const& size,
        nvinfer1::Dims const& stride) noexcept override;
    nvinfer1::ITopKLayer* addTopK(
        nvinfer1::ITensor& input, nvinfer1::TopKOperation op, int32_t k, uint32_t reduceAxes) noexcept override;
    nvinfer1::ITopKLayer* addTopK(nvinfer1::ITensor& input, nvinfer1::TopKOperation op, int32_t k, uint32_t reduceAxes,
        nvinfer1::DataType indicesType) noexcept override;
    nvinfer1::IIdentityLayer* addIdentity(nvinfer1::ITensor& input) noexcept override;
    nvinfer1::ICastLayer* addCast(nvinfer1::ITensor& input, nvinfer1::DataType toType) noexcept override;
    nvinfer1::IResizeLayer* addResize(nvinfer1::ITensor& input) noexcept override;
    nvinfer1::IGatherLayer* addGather(
        nvinfer1::ITensor& data, nvinfer1::ITensor& indices, int32_t axis) noexcept override;
    nvinfer1::IGatherLayer* addGatherV2(
        nvinfer1::ITensor& data, nvinfer1::ITensor& indices, nvinfer1::GatherMode mode) noexcept override;
    nvinfer1::INormalizationLayer* addNormalization(nvinfer1::ITensor& input, nvinfer1::ITensor& scale,
        nvinfer1::ITensor& bias, uint32_t axesMask) noexcept override;
    nvinfer1::IPaddingLayer* addPaddingNd(nvinfer1::ITensor& input, nvinfer1::Dims const& prePadding,
        nvinfer1::Dims const& postPadding) noexcept override;
    nvinfer1::ISelectLayer* addSelect(
        nvinfer1::ITensor& condition, nvinfer1::ITensor& thenInput, nvinfer1::ITensor& elseInput) noexcept override;
    nvinfer1::IShapeLayer* addShape(nvinfer1::ITensor& input) noexcept override;
    nvinfer1::IFillLayer* addFill(
        nvinfer1::Dims const& dimensions, nvinfer1::FillOperation op, nvinfer1::DataType outputType) noexcept override;
    nvinfer1::IOneHotLayer* addOneHot(nvinfer1::ITensor& indices, nvinfer1::ITensor& values, nvinfer1::ITensor& depth,
        int32_t axis) noexcept override;
    nvinfer1::ICumulativeLayer* addCumulative(nvinfer1::ITensor& input, nvinfer1::ITensor& axis,
        nvinfer1::CumulativeOperation operation, bool exclusive, bool reverse) noexcept override;
    nvinfer1::IGridSampleLayer* addGridSample(nvinfer1::ITensor& input, nvinfer1::ITensor& grid) noexcept override;
    nvinfer1::INMSLayer* addNMS(nvinfer1::ITensor& boxes, nvinfer1::ITensor& scores,
        nvinfer1::ITensor& maxOutputBoxesPerClass) noexcept override;
    nvinfer1::INMSLayer* addNMS(nvinfer1::ITensor& boxes, nvinfer1::ITensor& scores,
        nvinfer1::ITensor& maxOutputBoxesPerClass, nvinfer1::DataType indicesType) noexcept override;
    nvinfer1::IReverseSequenceLayer* addReverseSequence(
        nvinfer1::ITensor& input, nvinfer1::ITensor& sequenceLens) noexcept override;
    nvinfer1::INonZeroLayer* addNonZero(nvinfer1::ITensor& input) noexcept override;
    nvinfer1::INonZeroLayer* addNonZero(nvinfer1::ITensor& input, nvinfer1::DataType indicesType) noexcept override;
    nvinfer1::INormalizationLayer* addNormalizationV2(nvinfer1::ITensor& input, nvinfer1::ITensor& scale,
        nvinfer1::ITensor& bias, uint32_t axesMask) noexcept override;
    nvinfer1::ILRNLayer* addLRN(
        nvinfer1::ITensor& input, int64_t window, float alpha, float beta, float k) noexcept override;
    // network_attention.cpp
    nvinfer1::IAttention* addAttention(nvinfer1::ITensor& query, nvinfer1::ITensor& key, nvinfer1::ITensor& value,
        nvinfer1::AttentionNormalizationOp normOp, bool causal) noexcept override;
    nvinfer1::IScatterLayer* addScatter(nvinfer1::ITensor& data, nvinfer1::ITensor& indices, nvinfer1::ITensor& updates,
        nvinfer1::ScatterMode mode) noexcept override;
    nvinfer1::IIfConditional* addIfConditional() noexcept override;
    nvinfer1::ILoop* addLoop() noexcept override; // layers/loop.cpp
    nvinfer1::IConvolutionLayer* addConvolutionNd(nvinfer1::ITensor& input, int64_t nbOutputMaps,
        nvinfer1::Dims const& kernelSize, nvinfer1::Weights kernelWeights,
        nvinfer1::Weights biasWeights) noexcept override;
    nvinfer1::IDeconvolutionLayer* addDeconvolutionNd(nvinfer1::ITensor& input, int64_t nbOutputMaps,
        nvinfer1::Dims kernelSize, nvinfer1::Weights kernelWeights, nvinfer1::Weights biasWeights) noexcept override;
    nvinfer1::IPoolingLayer* addPoolingNd(
        nvinfer1::ITensor& input, nvinfer1::PoolingType type, nvinfer1::Dims const& windowSize) noexcept override;
    nvinfer1::IPluginV2Layer* addPluginV2(
        nvinfer1::ITensor* const* inputs, int32_t nbInputs, nvinfer1::IPluginV2& plugin) noexcept override;
    nvinfer1::IPluginV3Layer* addPluginV3(nvinfer1::ITensor* const* inputs, int32_t nbInputs,
        nvinfer1::ITensor* const* shapeInputs, int32_t nbShapeInputs, nvinfer1::IPluginV3& plugin) noexcept override;
    int32_t getNbLayers() const noexcept override;
    nvinfer1::ILayer* getLayer(int32_t index) const noexcept override;
    int32_t getNbInputs() const noexcept override;
    nvinfer1::ITensor* getInput(int32_t index) const noexcept override;
    int32_t getNbOutputs() const noexcept override;
    nvinfer1::ITensor* getOutput(int32_t index) const noexcept override;
    void removeTensor(nvinfer1::ITensor& tensor) noexcept override;
    void setName(char const* name) noexcept override;
    char const* getName() const noexcept override;
    nvinfer1::NetworkDefinitionCreationFlags getFlags() const noexcept override;
    bool getFlag(nvinfer1::NetworkDefinitionCreationFlag flag) const noexcept override;
    nvinfer1::IBuilder& getBuilder() const noexcept override;
    // network_add_layers.cpp
    nvinfer1::IParametricReLULayer* addParametricReLU(
        nvinfer1::ITensor& input, nvinfer1::ITensor& slope) noexcept override;
    nvinfer1::ISqueezeLayer* addSqueeze(nvinfer1::ITensor& input, nvinfer1::ITensor& axes) noexcept override;
    nvinfer1::IUnsqueezeLayer* addUnsqueeze(nvinfer1::ITensor& input, nvinfer1::ITensor& axes) noexcept override;
    // network_refused.cpp: what Kiln has nothing behind yet, and the error recorder.
    bool markDebug(nvinfer1::ITensor& tensor) noexcept override;
    bool unmarkDebug(nvinfer1::ITensor& tensor) noexcept override;
    bool isDebugTensor(nvinfer1::ITensor const& tensor) const noexcept override;
    bool markUnfusedTensorsAsDebugTensors() noexcept override;
    bool unmarkUnfusedTensorsAsDebugTensors() noexcept override;
    nvinfer1::IRaggedSoftMaxLayer* addRaggedSoftMax(
        nvinfer1::ITensor& input, nvinfer1::ITensor& bounds) noexcept override;
    bool markOutputForShapes(nvinfer1::ITensor& tensor) noexcept override;
    bool unmarkOutputForShapes(nvinfer1::ITensor& tensor) noexcept override;
    nvinfer1::IAssertionLayer* addAssertion(nvinfer1::ITensor& condition, char const* message) noexcept override;
    bool setWeightsName(nvinfer1::Weights weights, char const* name) noexcept override;
    void setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept override
    {
        mRecorder = recorder;
    }
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override
    {
        return mRecorder;
    }
    using nvinfer1::INetworkDefinition::addDequantize;
    nvinfer1::IDequantizeLayer* addDequantize(
        nvinfer1::ITensor& input, nvinfer1::ITensor& scale, nvinfer1::DataType outputType) noexcept override;
    using nvinfer1::INetworkDefinition::addQuantize;
    nvinfer1::IQuantizeLayer* addQuantize(
        nvinfer1::ITensor& input, nvinfer1::ITensor& scale, nvinfer1::DataType outputType) noexcept override;
    nvinfer1::IDynamicQuantizeLayer* addDynamicQuantize(nvinfer1::ITensor& input, int32_t axis, int32_t blockSize,
        nvinfer1::DataType outputType, nvinfer1::DataType scaleType) noexcept override;
    nvinfer1::IDynamicQuantizeLayer* addDynamicQuantizeV2(nvinfer1::ITensor& input, nvinfer1::Dims const& blockShape,
        nvinfer1::DataType outputType, nvinfer1::DataType scaleType) noexcept override;
    nvinfer1::IRotaryEmbeddingLayer* addRotaryEmbedding(nvinfer1::ITensor& input, nvinfer1::ITensor& cosCache,
        nvinfer1::ITensor& sinCache, bool interleaved, int32_t rotaryEmbeddingDim) noexcept override;
    nvinfer1::IKVCacheUpdateLayer* addKVCacheUpdate(nvinfer1::ITensor& cache, nvinfer1::ITensor& update,
        nvinfer1::ITensor& writeIndices, nvinfer1::KVCacheMode cacheMode) noexcept override;
    nvinfer1::IMoELayer* addMoE(nvinfer1::ITensor& hiddenStates, nvinfer1::ITensor& selectedExpertsForTokens,
        nvinfer1::ITensor& scoresForSelectedExperts) noexcept override;
    nvinfer1::IDistCollectiveLayer* addDistCollective(nvinfer1::ITensor& input,
        nvinfer1::CollectiveOperation distCollectiveOp, nvinfer1::ReduceOperation reduceOp, int64_t root,
        int64_t* groups, int64_t groupSize) noexcept override;
    nvinfer1::IEinsumLayer* addEinsum(
        nvinfer1::ITensor* const* inputs, int32_t nbInputs, char const* equation) noexcept override;
    bool markWeightsRefittable(char const* name) noexcept override;
    bool unmarkWeightsRefittable(char const* name) noexcept override;
    bool areWeightsMarkedRefittable(char const* name) const noexcept override;

    // For the builder and for layers.
    std::vector<std::unique_ptr<Layer>> const& layers() const
    {
        return mLayers;
    }
    std::vector<Tensor*> const& inputs() const
    {
        return mInputs;
    }
    std::vector<Tensor*> const& outputs() const
    {
        return mOutputs;
    }
    bool owns(nvinfer1::ITensor const* tensor) const;
    //! The name setWeightsName gave the weights whose values the application passed at `source`; "" if none.
    std::string const& weightsName(void const* source) const;
    //! Whether markWeightsRefittable marked the weights named `name` (BuilderFlag::kREFIT_INDIVIDUAL).
    bool weightsMarkedRefittable(std::string const& name) const
    {
        return mRefittableNames.count(name) > 0;
    }
    //! markUnfusedTensorsAsDebugTensors: every tensor the build leaves in memory is a debug tensor.
    bool unfusedTensorsAreDebugTensors() const
    {
        return mUnfusedTensorsAreDebugTensors;
    }
    //! A new tensor owned by the network (for layer outputs).
    Tensor* createTensor(std::string name);
    //! Removes `tensor` from the network (as input, output and owned tensor); the caller says what it invalidates.
    void destroyTensor(Tensor const* tensor);
    //! Something that shapes depend on changed: infer every layer again when next asked.
    void invalidate();
    //! The parameters of `layer` (or the type requested for one of its outputs) changed: infer it and what depends
    //! on it again when next asked, the rest keeps its facts.
    void invalidateLayer(Layer const& layer);
    //! setInput pointed `layer` to `tensor`: as invalidateLayer where the layers stay in an order that infers
    //! producers first, else as invalidate.
    void inputChanged(Layer const& layer, Tensor const& tensor);
    //! Infers (if needed) the shapes of what changed and copies them onto the tensors.
    //! False, with the message logged, when a layer's inference fails.
    bool refreshShapes() const;
    //! Whether network input `input` is a shape tensor: some tensor's dimensions depend on its values
    //! (shape_tensor_inputs.h). Call refreshShapes first.
    bool isShapeTensorInput(Tensor const& input) const;
    //! The layers ordered so that each comes after the producers of its inputs
    //! (setInput can make a layer depend on one added later). False with error on a cycle.
    bool topologicalOrder(std::vector<Layer const*>& order, std::string& error) const;
    //! Infers every tensor's facts afresh into facts. error names the failing layer.
    bool inferAll(NetworkFacts& facts, std::string& error, InferencePhase phase = InferencePhase::kDEFINING) const;
    //! Removes `layers` and their outputs (which no other layer may read): an attention replacing its own layers.
    void eraseLayers(std::vector<Layer*> const& layers);
    //! The next "(Unnamed Layer* N)" number.
    int32_t nextLayerNumber()
    {
        return mLayerCounter++;
    }

private:
    friend class IfConditional; // adds its boundary layers through addLayer
    friend class Loop;          // likewise

    template <typename LayerType, typename Params, typename... Extra>
    LayerType* addLayer(char const* kindName, std::vector<nvinfer1::ITensor*> const& inputs, Params params,
        int32_t minInputs, int32_t maxInputs, Extra&&... extra);
    bool checkInputs(char const* what, std::vector<nvinfer1::ITensor*> const& inputs) const;
    //! addNormalization and addNormalizationV2 (`call` names which in an error).
    NormalizationLayer* addNormalizationLayer(char const* call, nvinfer1::ITensor& input, nvinfer1::ITensor& scale,
        nvinfer1::ITensor& bias, uint32_t axesMask);
    //! Records the size tensors `layer` declared while inferred (symbols from firstNewSymbol on): each names a 0-D
    //! INT32/INT64 output of the layer, which gets the extent as its value. False with error otherwise.
    bool recordSizeTensors(Layer const& layer, shape::SymbolId firstNewSymbol, std::vector<TensorFacts>& outputs,
        NetworkFacts& facts, std::string& error) const;
    //! Infers `layer` from its inputs' facts in `facts` and records its outputs' there. False with error (naming the
    //! layer) when it fails or an input has no facts; `facts` is then unchanged but for new expressions.
    bool inferLayer(Layer const& layer, NetworkFacts& facts, std::string& error, InferencePhase phase) const;
    //! Brings mFacts up to date: infers again the stale layers and what depends on them, or every layer where the
    //! facts were invalidated. False with error when a layer fails (the facts are then invalid).
    bool updateFacts(std::string& error) const;
    //! Infers again the stale layers and the layers downstream of them. False where one fails.
    bool inferStaleLayers(std::string& error) const;
    //! addLayer's inference of the appended `layer`: of it alone where the rest of the facts hold, else of all.
    bool inferAppended(Layer const& layer, std::string& error);
    //! Moves `layer` to the end of the inference order, if no layer reads its outputs (else false).
    bool moveToEnd(Layer const& layer) const;
    //! Copies a tensor's inferred shape and type onto it (what ITensor's getters return).
    static void copyFacts(Tensor const& tensor, TensorFacts const& facts);

    nvinfer1::IBuilder& mBuilder;
    nvinfer1::NetworkDefinitionCreationFlags mFlags;
    std::string mName;
    std::vector<std::unique_ptr<Tensor>> mTensors;
    std::unordered_set<nvinfer1::ITensor const*> mOwned; //!< mTensors' tensors, so that owns() costs no walk
    std::vector<std::unique_ptr<Layer>> mLayers;
    std::vector<std::unique_ptr<IfConditional>> mConditionals;
    std::vector<std::unique_ptr<Loop>> mLoops;
    std::vector<std::unique_ptr<AttentionHelper>> mAttentions;
    std::vector<Tensor*> mInputs;
    std::vector<Tensor*> mOutputs;
    bool mUnfusedTensorsAreDebugTensors{false};
    std::map<void const*, std::string> mWeightsNames; //!< setWeightsName: by the values pointer the names were set for
    std::set<std::string> mRefittableNames;           //!< markWeightsRefittable
    int32_t mLayerCounter{0};
    nvinfer1::IErrorRecorder* mRecorder{nullptr}; //!< kept for the application; Kiln reports through the logger
    mutable NetworkFacts mFacts;
    //! Whether mFacts describe the network, but for the stale layers (and what depends on them).
    mutable bool mFactsValid{false};
    mutable std::unordered_set<Layer const*> mStaleLayers;
    //! The tensors whose facts changed since refreshShapes last copied facts onto tensors (all of them when
    //! mCopyAll): a query copies only those, so that each costs the change rather than the network's size.
    mutable std::vector<Tensor const*> mToCopy;
    mutable bool mCopyAll{false};
    //! The shape-tensor inputs by the facts the last refreshShapes left; none until isShapeTensorInput asks.
    mutable std::optional<std::unordered_set<Tensor const*>> mShapeTensorInputs;
};

} // namespace kiln::network
