// ICudaEngine: a loaded plan. Immutable once created, so contexts on several
// threads share it without locks.
#pragma once

#include "backend/backend.h"
#include "network/layer.h"
#include "plan/plan_loops.h"
#include "plan/plan_model.h"
#include "shape/evaluate.h"
#include "shape/expr_builder.h"

#include <NvInfer.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace kiln::network
{
struct PluginParams;
} // namespace kiln::network

namespace kiln::runtime
{

class Engine final : public nvinfer1::ICudaEngine
{
public:
    //! nullptr with error set if the plan names a layer kind or plugin this process cannot run. The engine's
    //! contexts allocate their device memory through `allocator` (nullptr: Kiln's default).
    static std::unique_ptr<Engine> create(
        plan::PlanModel model, nvinfer1::IGpuAllocator* allocator, std::string& error);

    int32_t getNbIOTensors() const noexcept override;
    char const* getIOTensorName(int32_t index) const noexcept override;
    nvinfer1::Dims getTensorShape(char const* tensorName) const noexcept override;
    nvinfer1::DataType getTensorDataType(char const* tensorName) const noexcept override;
    nvinfer1::TensorIOMode getTensorIOMode(char const* tensorName) const noexcept override;
    //! No layer of a Kiln engine updates an input in place: no output aliases one.
    char const* getAliasedInputTensor(char const* /*tensorName*/) const noexcept override
    {
        return nullptr;
    }
    nvinfer1::TensorFormat getTensorFormat(char const* tensorName) const noexcept override;
    int32_t getNbOptimizationProfiles() const noexcept override;
    nvinfer1::Dims getProfileShape(
        char const* tensorName, int32_t profileIndex, nvinfer1::OptProfileSelector select) const noexcept override;
    int32_t getNbLayers() const noexcept override;
    nvinfer1::IHostMemory* serialize() const noexcept override;
    nvinfer1::IExecutionContext* createExecutionContext(
        nvinfer1::ExecutionContextAllocationStrategy strategy) noexcept override;
    char const* getName() const noexcept override;
    bool isShapeInferenceIO(char const* tensorName) const noexcept override;
    nvinfer1::TensorLocation getTensorLocation(char const* tensorName) const noexcept override;
    int64_t getDeviceMemorySizeV2() const noexcept override;
    int64_t getDeviceMemorySizeForProfileV2(int32_t profileIndex) const noexcept override;
    nvinfer1::IEngineInspector* createEngineInspector() const noexcept override;

    // engine_queries.cpp: TensorRT 10's other queries, answered from the plan or refused with an error.
    nvinfer1::IExecutionContext* createExecutionContext(nvinfer1::IRuntimeConfig* runtimeConfig) noexcept override;
    nvinfer1::IRuntimeConfig* createRuntimeConfig() noexcept override;
    bool isRefittable() const noexcept override
    {
        return !mModel.refittable.empty();
    }
    int32_t getTensorBytesPerComponent(char const* tensorName) const noexcept override;
    int32_t getTensorBytesPerComponent(char const* tensorName, int32_t profileIndex) const noexcept override;
    int32_t getTensorComponentsPerElement(char const* tensorName) const noexcept override;
    int32_t getTensorComponentsPerElement(char const* tensorName, int32_t profileIndex) const noexcept override;
    nvinfer1::TensorFormat getTensorFormat(char const* tensorName, int32_t profileIndex) const noexcept override;
    char const* getTensorFormatDesc(char const* tensorName) const noexcept override;
    char const* getTensorFormatDesc(char const* tensorName, int32_t profileIndex) const noexcept override;
    int32_t getTensorVectorizedDim(char const* tensorName) const noexcept override;
    int32_t getTensorVectorizedDim(char const* tensorName, int32_t profileIndex) const noexcept override;
    int32_t const* getProfileTensorValues(
        char const* tensorName, int32_t profileIndex, nvinfer1::OptProfileSelector select) const noexcept override;
    nvinfer1::EngineCapability getEngineCapability() const noexcept override
    {
        return nvinfer1::EngineCapability::kSTANDARD;
    }
    void setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept override
    {
        mRecorder = recorder;
    }
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override
    {
        return mRecorder;
    }
    bool hasImplicitBatchDimension() const noexcept override
    {
        return false;
    }
    nvinfer1::TacticSources getTacticSources() const noexcept override;
    nvinfer1::ProfilingVerbosity getProfilingVerbosity() const noexcept override
    {
        return nvinfer1::ProfilingVerbosity::kDETAILED; // what the inspector always reports
    }
    nvinfer1::HardwareCompatibilityLevel getHardwareCompatibilityLevel() const noexcept override;
    int32_t getNbAuxStreams() const noexcept override
    {
        return 0;
    }
    nvinfer1::ISerializationConfig* createSerializationConfig() noexcept override;
    nvinfer1::IHostMemory* serializeWithConfig(nvinfer1::ISerializationConfig& config) const noexcept override;
    bool setWeightStreamingBudget(int64_t gpuMemoryBudget) noexcept override;
    int64_t getWeightStreamingBudget() const noexcept override
    {
        return -1;
    }
    int64_t getMinimumWeightStreamingBudget() const noexcept override
    {
        return 0;
    }
    int64_t getStreamableWeightsSize() const noexcept override
    {
        return 0;
    }
    bool setWeightStreamingBudgetV2(int64_t gpuMemoryBudget) noexcept override;
    int64_t getWeightStreamingBudgetV2() const noexcept override
    {
        return 0; // getStreamableWeightsSize(): weight streaming is off
    }
    int64_t getWeightStreamingAutomaticBudget() const noexcept override
    {
        return 0;
    }
    int64_t getWeightStreamingScratchMemorySize() const noexcept override
    {
        return 0;
    }
    bool isDebugTensor(char const* name) const noexcept override
    {
        return markedDebugTensor(name) >= 0;
    }
    int64_t const* getProfileTensorValuesV2(
        char const* tensorName, int32_t profileIndex, nvinfer1::OptProfileSelector select) const noexcept override;
    int64_t getEngineStat(nvinfer1::EngineStat stat) const noexcept override;

    // For the refitter (runtime/refitter.h).
    std::vector<plan::RefitRecord> const& refittable() const
    {
        return mModel.refittable;
    }
    network::WeightsBuffer const& refittableWeights(size_t record) const;
    //! Writes `values` (the type and count of refittable weights `record`) over those weights, where they are, so
    //! that what points at them stays valid; each context reloads its weights before its next run.
    void replaceWeights(size_t record, network::WeightsBuffer const& values);
    //! Incremented by every replaceWeights: a context whose weights are of an older generation reloads them.
    uint64_t weightsGeneration() const
    {
        return mWeightsGeneration.load();
    }

    // For execution contexts.
    plan::PlanModel const& model() const
    {
        return mModel;
    }
    //! Where the backend keeps activations: host memory (CPU) or device memory (CUDA).
    nvinfer1::TensorLocation memoryLocation() const;
    //! The backend that reaches the device memory a CPU plan's I/O is reported in (KILN_CPU_TENSOR_LOCATION=device:
    //! device_located_io.cpp): contexts ask it whether the host reaches the application's memory and wait for the
    //! stream's earlier work through it. nullptr where the I/O is where the backend runs (every other engine).
    backend::Implementation const* deviceOfHostIo() const
    {
        return mDeviceOfHostIo;
    }
    //! The index of the tensor named `name` that INetworkDefinition::markDebug marked, or -1.
    int32_t markedDebugTensor(char const* name) const;
    //! The tensor index of an I/O tensor, or -1 (with an error logged, naming `caller`).
    int32_t ioTensorIndex(char const* name, char const* caller) const;
    //! The position of an I/O tensor among the inputs (for profiles), or -1.
    int32_t inputPosition(int32_t tensorIndex) const;
    shape::Expr const& dimExpr(int32_t exprIndex) const
    {
        return *mExprs[exprIndex];
    }
    //! Binds every runtime value: dimensions from the inputs' shapes, shape-tensor values from `shapeInputValues`
    //! (both by tensor index).
    void bindSymbols(std::vector<nvinfer1::Dims> const& inputShapes,
        std::vector<std::vector<int64_t>> const& shapeInputValues, shape::SymbolValues& values) const;
    //! Whether input `tensor` is a shape tensor: some shape depends on its values, read from host memory.
    bool isShapeInput(int32_t tensor) const;
    //! The plan symbols of the size tensors that layer `l` writes: their values are known once it has run.
    std::vector<int32_t> const& sizeSymbolsOf(size_t l) const
    {
        return mSizeSymbolsByLayer[l];
    }
    //! Whether some extent is data-dependent: every run learns such extents anew.
    bool hasSizeTensors() const
    {
        return std::any_of(mSizeSymbolsByLayer.begin(), mSizeSymbolsByLayer.end(),
            [](std::vector<int32_t> const& symbols) { return !symbols.empty(); });
    }
    //! Plan symbol `s`'s expression.
    shape::Expr const& symbolExpr(int32_t s) const
    {
        return *mSymbols[static_cast<size_t>(s)];
    }
    //! The tensors some extent of which depends on size-tensor symbol `s` (by plan symbol index), in index order.
    std::vector<int32_t> const& tensorsShapedBy(int32_t s) const
    {
        return mTensorsShapedBy[static_cast<size_t>(s)];
    }
    //! Whether some extent of `tensor` is data-dependent, known only once a layer has run.
    bool isDataDependent(int32_t tensor) const
    {
        return mDataDependent[static_cast<size_t>(tensor)];
    }
    //! Whether `tensor` is written by a layer that runs only on one side of a conditional (it has guards).
    bool isConditional(int32_t tensor) const
    {
        return mConditional[static_cast<size_t>(tensor)];
    }
    //! The plan's loops, outer loops before those nested in them (plan/plan_loops.h).
    std::vector<plan::LoopRange> const& loops() const
    {
        return mLoops;
    }
    //! The loop nested directly in loop `scope` (-1: at the top level) whose layers start at layer `l`; -1 if none.
    int32_t loopStartingAt(size_t l, int32_t scope) const
    {
        for (size_t k = 0; k < mLoops.size(); ++k)
        {
            if (mLoops[k].begin == l && mLoops[k].parent == scope)
            {
                return static_cast<int32_t>(k);
            }
        }
        return -1;
    }
    network::LayerParams const& layerParams(size_t layer) const
    {
        return *mModel.layers[layer].params;
    }
    //! Where the plugins' workspace starts in a context's memory: after the activations (the plan's arena), aligned
    //! as the arena's tensors are. Plugins run one after another, so they share it.
    int64_t workspaceOffset() const;
    //! The allocator of the runtime that deserialized the engine; nullptr for Kiln's default.
    nvinfer1::IGpuAllocator* gpuAllocator() const
    {
        return mAllocator;
    }
    //! The plan's backend.
    backend::Implementation const& implementation() const
    {
        return *mImplementation;
    }
    //! What an execution context's executor needs of the engine.
    backend::LoadedPlan loadedPlan() const
    {
        return {&mModel, getDeviceMemorySizeV2(), workspaceOffset(), mAllocator};
    }

private:
    explicit Engine(plan::PlanModel model);
    //! Fills in which layers write size tensors, which tensors' extents depend on them, and which tensors only
    //! conditional layers write.
    void indexDataDependence();
    //! Reads KILN_CPU_TENSOR_LOCATION for a CPU plan (device_located_io.cpp); false with `error` for a value that
    //! names no location, or `device` in a build without CUDA.
    bool chooseCpuIoLocation(std::string& error);
    //! The plan symbols of the size tensors that plan expression `exprIndex`'s value depends on.
    std::vector<int32_t> sizeSymbolsIn(int32_t exprIndex) const;
    //! False with the reason where the plan's recreated plugin `plugin` of `layer` refuses the types the plan records
    //! for it or describes other outputs than the plan sized (engine_plugin_check.cpp).
    bool pluginMatchesPlan(plan::LayerRecord const& layer, network::PluginParams const& plugin, std::string& error);
    //! The types part of pluginMatchesPlan; `who` names the layer and plugin in the error.
    bool pluginAcceptsPlanTypes(plan::LayerRecord const& layer, network::PluginParams const& plugin,
        std::string const& who, std::string& error);

    plan::PlanModel mModel;
    std::unique_ptr<shape::ExprBuilder> mBuilder;
    std::vector<shape::Expr const*> mExprs;                //!< by plan expression index
    std::vector<shape::Expr const*> mSymbols;              //!< by plan symbol index
    std::vector<bool> mShapeInputs;                        //!< by tensor: an input whose values some shape depends on
    std::vector<std::vector<int32_t>> mSizeSymbolsByLayer; //!< by layer: the size tensors' symbols it writes
    std::vector<bool> mDataDependent;                      //!< by tensor: some extent depends on a size tensor
    std::vector<std::vector<int32_t>> mTensorsShapedBy;    //!< by plan symbol: see tensorsShapedBy
    std::vector<int32_t> mPlanSymbolOfId;                  //!< by shape::SymbolId: its plan symbol index
    std::vector<bool> mConditional;                        //!< by tensor: written by a layer with guards
    std::vector<plan::LoopRange> mLoops;                   //!< the plan's loops
    nvinfer1::IGpuAllocator* mAllocator{nullptr};
    backend::Implementation const* mImplementation{nullptr};
    backend::Implementation const* mDeviceOfHostIo{nullptr};
    nvinfer1::IErrorRecorder* mRecorder{nullptr};
    mutable std::string mFormatDesc; //!< what getTensorFormatDesc last returned
    std::atomic<uint64_t> mWeightsGeneration{0};
};

} // namespace kiln::runtime
