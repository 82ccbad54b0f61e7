// IExecutionContext: input shapes, tensor addresses and activation memory of one
// inference stream, and the loop over the engine's layers; the backend's Executor does each layer's work.
//
// The context's memory (activations, then plugin workspace) is the context's own (kSTATIC,
// kON_PROFILE_CHANGE) or the application's (kUSER_MANAGED). It lives where the plan's backend
// keeps activations: device memory for CUDA plans, host memory for CPU plans, so that the
// same calls (getDeviceMemorySizeV2, setDeviceMemoryV2) work for both.
#pragma once

#include "runtime/engine.h"
#include "runtime/prepared_layer.h"
#include "runtime/runtime_config.h"
#include "backend/executor.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::runtime
{

class ExecutionContext final : public nvinfer1::IExecutionContext
{
public:
    //! Throws std::runtime_error (naming the plugin, or what could not be allocated and its size) if a plugin
    //! cannot be attached or memory cannot be allocated.
    ExecutionContext(Engine const& engine, nvinfer1::ExecutionContextAllocationStrategy strategy);

    nvinfer1::ICudaEngine const& getEngine() const noexcept override
    {
        return mEngine;
    }
    void setName(char const* name) noexcept override
    {
        mName = name ? name : "";
    }
    char const* getName() const noexcept override
    {
        return mName.c_str();
    }
    bool setInputShape(char const* tensorName, nvinfer1::Dims const& dims) noexcept override;
    nvinfer1::Dims getTensorShape(char const* tensorName) const noexcept override;
    bool allInputDimensionsSpecified() const noexcept override;
    bool setTensorAddress(char const* tensorName, void* data) noexcept override;
    void const* getTensorAddress(char const* tensorName) const noexcept override;
    bool setInputTensorAddress(char const* tensorName, void const* data) noexcept override;
    void* getOutputTensorAddress(char const* tensorName) const noexcept override;
    bool setOptimizationProfileAsync(int32_t profileIndex, cudaStream_t stream) noexcept override;
    int32_t getOptimizationProfile() const noexcept override
    {
        return mProfile;
    }
    bool enqueueV3(cudaStream_t stream) noexcept override;
    bool executeV2(void* const* bindings) noexcept override;
    void setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept override
    {
        mResources.recorder = recorder;
    }
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override
    {
        return mResources.recorder;
    }
    void setProfiler(nvinfer1::IProfiler* profiler) noexcept override
    {
        mProfiler = profiler;
    }
    nvinfer1::IProfiler* getProfiler() const noexcept override
    {
        return mProfiler;
    }
    void setEnqueueEmitsProfile(bool enqueueEmitsProfile) noexcept override
    {
        mEnqueueEmitsProfile = enqueueEmitsProfile;
    }
    bool getEnqueueEmitsProfile() const noexcept override
    {
        return mEnqueueEmitsProfile;
    }
    bool reportToProfiler() const noexcept override;
    void setDeviceMemoryV2(void* memory, int64_t size) noexcept override;
    void setDeviceMemory(void* memory) noexcept override;
    size_t updateDeviceMemorySizeForShapes() noexcept override;
    bool setOutputAllocator(char const* tensorName, nvinfer1::IOutputAllocator* outputAllocator) noexcept override;
    nvinfer1::IOutputAllocator* getOutputAllocator(char const* tensorName) const noexcept override;
    int64_t getMaxOutputSize(char const* tensorName) const noexcept override;

    // execution_context_options.cpp: TensorRT 10's other context calls, answered or refused with an error.
    void setDebugSync(bool sync) noexcept override
    {
        mDebugSync = sync;
    }
    bool getDebugSync() const noexcept override
    {
        return mDebugSync;
    }
    nvinfer1::Dims getTensorStrides(char const* tensorName) const noexcept override;
    bool allInputShapesSpecified() const noexcept override
    {
        return allInputDimensionsSpecified();
    }
    bool setOutputTensorAddress(char const* tensorName, void* data) noexcept override;
    int32_t inferShapes(int32_t nbMaxNames, char const** tensorNames) noexcept override;
    bool setInputConsumedEvent(cudaEvent_t event) noexcept override;
    cudaEvent_t getInputConsumedEvent() const noexcept override
    {
        return nullptr;
    }
    bool setTemporaryStorageAllocator(nvinfer1::IGpuAllocator* allocator) noexcept override
    {
        mTemporaryStorageAllocator = allocator;
        return true;
    }
    nvinfer1::IGpuAllocator* getTemporaryStorageAllocator() const noexcept override
    {
        return mTemporaryStorageAllocator;
    }
    void setPersistentCacheLimit(size_t size) noexcept override
    {
        mPersistentCacheLimit = size;
    }
    size_t getPersistentCacheLimit() const noexcept override
    {
        return mPersistentCacheLimit;
    }
    bool setNvtxVerbosity(nvinfer1::ProfilingVerbosity verbosity) noexcept override;
    nvinfer1::ProfilingVerbosity getNvtxVerbosity() const noexcept override
    {
        return mNvtxVerbosity;
    }
    void setAuxStreams(cudaStream_t* /*auxStreams*/, int32_t /*nbStreams*/) noexcept override { }
    bool setDebugListener(nvinfer1::IDebugListener* listener) noexcept override
    {
        mDebugListener = listener;
        return true;
    }
    nvinfer1::IDebugListener* getDebugListener() noexcept override
    {
        return mDebugListener;
    }
    // Debug tensors: execution_context_debug.cpp.
    bool setTensorDebugState(char const* name, bool flag) noexcept override;
    bool setAllTensorsDebugState(bool flag) noexcept override;
    bool getDebugState(char const* name) const noexcept override;
    nvinfer1::IRuntimeConfig* getRuntimeConfig() const noexcept override
    {
        return &mRuntimeConfig;
    }
    bool setUnfusedTensorsDebugState(bool flag) noexcept override;
    bool setCommunicator(void* communicator) noexcept override;
    bool getUnfusedTensorsDebugState() const noexcept override
    {
        return mUnfusedDebugOn;
    }

    //! The backend's executor (for Kiln's extensions: kiln::setCpuThreads).
    backend::Executor& executor() const
    {
        return *mExecutor;
    }

    //! Every tensor's shape (by plan tensor index) for the current input shapes, -1 for data-dependent extents;
    //! false with `error` if they are not all known or do not fit the plan.
    bool computeShapes(std::vector<nvinfer1::Dims>& shapes, std::string& error) const;

private:
    //! Every tensor's shape for the current input shapes (-1 for data-dependent extents), and its capacity; false
    //! with error set.
    bool resolveShapes(std::string& error);
    //! Tensor `t`'s shape under the evaluators' values (-1 where an extent waits for a size tensor) and, in
    //! `capacity`, the shape its memory holds (the upper bound of such extents); false with `error` naming the tensor
    //! otherwise. A tensor of a conditional's branch whose shape cannot be computed (the branch may not run: it fails
    //! only if it does) gets -1 extents and a capacity of -1, and `deferred` the reason.
    bool evaluateShape(int32_t t, shape::Evaluator& evaluator, shape::Evaluator& upperBounds, nvinfer1::Dims& dims,
        nvinfer1::Dims& capacity, std::string& deferred, std::string& error) const;
    //! Every shape under mBoundValues into the context's shapes, the views' places, and the prepared layers' views.
    bool updateShapes(std::string& error);
    //! updateShapes after the plan size symbols `symbols` were bound, for what depends on them only.
    bool updateShapesLearning(std::vector<int32_t> const& symbols, std::string& error);
    bool run(cudaStream_t stream, std::string& error);
    //! Layer `l`'s work if its guards hold (else nothing), and what follows it: sizes learnt, outputs delivered.
    bool step(size_t l, cudaStream_t stream, std::string& error);
    //! Layers [begin, end) of loop `scope` (-1: of the plan), each loop nested there run whole, and the debug tensors
    //! they write reported (execution_context_loops.cpp).
    bool runLayers(size_t begin, size_t end, int32_t scope, cudaStream_t stream, std::string& error);
    //! Loop `k`: its recurrences set to their initial values and its outputs to zeros, then its layers once per
    //! iteration while its trip limits allow, its recurrences updated after each.
    bool runLoop(int32_t k, cudaStream_t stream, std::string& error);
    //! One iteration of loop `k` (the `index`th, of `count`); `stop` when its kWHILE condition is false.
    bool runIteration(int32_t k, int64_t index, int64_t count, bool& stop, cudaStream_t stream, std::string& error);
    //! Boundary layer `l` of loop `k` in iteration `index` of `count`: an iterator's slice, an output's value (a last
    //! value only where the iteration `mayBeLast`).
    bool runBoundary(
        size_t l, int64_t index, int64_t count, bool mayBeLast, bool& stop, cudaStream_t stream, std::string& error);
    //! After an iteration of `loop`: each recurrence's value becomes its next value.
    bool updateRecurrences(plan::LoopRange const& loop, cudaStream_t stream, std::string& error);
    //! Whether no next value of `loop`'s recurrences overlaps a recurrence's value in memory at this run, so that
    //! each may be copied straight into its value.
    bool recurrencesReadApart(plan::LoopRange const& loop) const;
    //! The address of slice `index` of `axis` of tensor `whole` where it is one block that tensor `part` may be
    //! placed on (row-major, one type, every axis before `axis` of extent 1, aligned as the arena); else nullptr.
    std::byte* sliceBlock(int32_t whole, int32_t part, int32_t axis, int64_t index) const;
    //! Whether tensor `t` has memory of its own that a layer of `loop`'s body writes in each iteration (unguarded).
    bool computedInBody(plan::LoopRange const& loop, int32_t t) const;
    //! Before iteration `index` of `loop`: each value a stacked output takes that the body computes placed on the
    //! output's block for the iteration where it has one (sliceBlock), else on its own memory.
    void placeStackedValues(plan::LoopRange const& loop, int64_t index);
    //! The address of tensor `t`'s own memory in the arena (for a tensor the context may place elsewhere).
    std::byte* ownMemory(int32_t t) const;
    //! The value of 0-D `tensor` (INT32, INT64 or BOOL) in this run: from its known values, else read from memory.
    bool scalarValue(int32_t tensor, cudaStream_t stream, int64_t& value, std::string& error);
    //! Copies the slice `index` of `axis` of tensor `whole` into `part` (an iterator), or `part` into it (a stacked
    //! loop output) where `intoWhole`.
    bool copySlice(int32_t whole, int32_t part, int32_t axis, int64_t index, bool intoWhole, cudaStream_t stream,
        std::string& error);
    //! Copies tensor `from` into tensor `to`, which must have its shape at this run.
    bool copyWhole(int32_t from, int32_t to, cudaStream_t stream, std::string& error);
    //! Fills mBoundConstants. Throws std::runtime_error where the plan needs a binding the backend cannot give.
    void bindConstants();
    //! Fills mPrepared with what does not change between runs: each layer's work, its views' types and formats.
    void prepareLayers();
    //! Throws std::runtime_error naming the first layer that reads or writes a tensor without a place
    //! (execution_context_placement.cpp), and fills mHoldsNoElement. After prepareLayers.
    void checkPlacement();
    //! Whether tensor `t` has memory: its own, the application's (I/O), its bound weights', or its viewed tensor's.
    bool hasMemory(int32_t t) const;
    //! Whether a kernel may read or write tensor `t`: it has memory, or holds no element at any shape of the plan
    //! (then marked in mHoldsNoElement, with the tensor it views).
    bool placeTouchedTensor(int32_t t);
    //! False with `error` naming the first I/O tensor whose address is null although it holds elements at this run's
    //! shapes. After resolveShapes.
    bool checkNullAddresses(std::string& error) const;
    //! Layer `l`'s prepared views' shapes (and first unknown shape) from mShapes and mCapacities.
    void refreshViewShapes(size_t l);
    //! mTensorAddresses, and the prepared views' addresses, for the current context memory and I/O addresses. Only
    //! what changed since the last run is rewritten.
    void refreshAddresses();
    //! Tensor `t`'s address in this run (refreshAddresses has resolved it).
    std::byte* addressOf(int32_t t) const
    {
        return mTensorAddresses[static_cast<size_t>(t)];
    }
    //! Sets tensor `t`'s address in mTensorAddresses and in every prepared view of it.
    void setViewAddresses(int32_t t, std::byte* address);
    //! Sets tensor `t`'s address as setViewAddresses does, and the addresses of the views of its memory.
    void placeTensor(int32_t t, std::byte* address);
    //! `alias`'s offset for the current shapes (and its address, where addresses are prepared). Where the view lies
    //! outside the tensor it views, its shape error says so: the layers reading it fail.
    void placeAlias(PreparedAlias& alias);
    //! Alias `alias`'s offset for the current shapes; else why it has none.
    std::string locateAlias(PreparedAlias& alias);
    //! Whether every guard of layer `l` holds; false with `error` if a condition cannot be read.
    bool guardsHold(size_t l, cudaStream_t stream, bool& hold, std::string& error);
    //! The value of 0-D BOOL `tensor` in this run: from its known values, else read from memory (once a run).
    bool conditionValue(int32_t tensor, cudaStream_t stream, bool& value, std::string& error);
    //! Conditional output `l`: the taken branch's tensor copied into the output, and the extents that differ between
    //! the branches bound to the taken one's.
    bool selectBranch(size_t l, cudaStream_t stream, std::string& error);
    //! Fails with the reason if tensor `t`'s shape could not be computed for this run (a conditional's branch).
    bool checkShape(int32_t t, std::string& error) const;
    //! Every I/O tensor has memory or an output allocator, and a data-dependent output has an allocator.
    bool checkAddresses(std::string& error) const;
    //! For a CPU plan whose I/O is reported as device memory: false with `error` naming the tensor whose memory the
    //! host cannot reach; else waits for the work queued on `stream` before the run (device_located_io.cpp).
    bool prepareDeviceLocatedIo(cudaStream_t stream, std::string& error) const;
    //! Runs layer `l` on the tensors' current shapes (a data-dependent output it writes is given its capacity).
    bool runLayer(size_t l, cudaStream_t stream, std::string& error);
    //! After layer `l` ran: the values of the size tensors it wrote, checked against their upper bounds, bound, and
    //! the shapes that depend on them resolved again (this waits for the GPU on the CUDA backend).
    bool learnSizes(size_t l, cudaStream_t stream, std::string& error);
    //! Asks output `tensor`'s allocator for memory for its current shape; the address becomes the tensor's.
    bool reallocateOutput(int32_t tensor, cudaStream_t stream, std::string& error);
    //! For each data-dependent output layer `l` wrote (into activation memory): its allocator's memory for its
    //! actual size, the copy, and its shape.
    bool deliverStagedOutputs(size_t l, cudaStream_t stream, std::string& error);
    //! Binds every run-time value: input dimensions, and shape-tensor inputs' values read from the host memory the
    //! application gave; false with `error` naming what is missing.
    bool bindRunTimeValues(shape::SymbolValues& values, std::string& error) const;
    //! computeShapes that also keeps the values it bound.
    bool computeShapes(std::vector<nvinfer1::Dims>& shapes, shape::SymbolValues& values, std::string& error) const;
    //! For a backend that evaluates shape computations on the host: layer `l`'s output values, from the input shapes.
    bool writeShapeValues(size_t l, std::vector<TensorView> const& outputs, cudaStream_t stream, std::string& error);
    //! Writes shape tensor `tensor`'s values, evaluated for this run, into `view` (device memory on CUDA).
    bool writeShapeValues(int32_t tensor, TensorView const& view, cudaStream_t stream, std::string& error);
    void reportError(std::string const& message, nvinfer1::ErrorCode code = nvinfer1::ErrorCode::kFAILED_EXECUTION);
    //! Whether layer `l`'s outputs hold its results after the run's step(l): it ran, or its outputs are its weights or
    //! its input's memory.
    bool wroteOutputs(size_t l) const;
    //! After a refit of the engine: a new executor, holding the new weights.
    void reloadWeights();
    //! Lists the debug tensors each layer writes, and the inputs that are debug tensors.
    void prepareDebugTensors();
    //! Whether the debug listener is to get tensor `t`'s values.
    bool debugOn(int32_t t) const;
    //! Gives the debug listener the values of those of `tensors` whose debug state is on; false with `error` if it
    //! throws or reports a failure.
    bool reportDebugTensors(std::vector<int32_t> const& tensors, cudaStream_t stream, std::string& error);

    Engine const& mEngine;
    nvinfer1::ExecutionContextAllocationStrategy mStrategy;
    mutable RuntimeConfig mRuntimeConfig; //!< what getRuntimeConfig hands out: mStrategy, for the application to read
    std::string mName;
    int32_t mProfile{0};
    std::vector<nvinfer1::Dims> mInputShapes;                   //!< by tensor index (inputs only)
    std::vector<std::optional<void*>> mAddresses;               //!< by tensor index (I/O only)
    std::vector<nvinfer1::Dims> mShapes;                        //!< by tensor index, valid when mShapesValid
    std::vector<nvinfer1::Dims> mCapacities;                    //!< by tensor index: mShapes, with upper bounds for -1
    std::vector<nvinfer1::IOutputAllocator*> mOutputAllocators; //!< by tensor index (outputs only)
    bool mShapesValid{false};
    bool mHasShapeInputs{false};      //!< some shape depends on input values, so shapes are resolved on every use
    shape::SymbolValues mBoundValues; //!< the run-time values mShapes were computed from
    //! By tensor: why its shape has no value (conditional tensors), or why a view has no place (placeAlias).
    std::vector<std::string> mShapeErrors;
    std::vector<int8_t> mConditions; //!< by tensor: a condition's value in this run; -1 until read
    std::vector<bool> mRan;          //!< by layer: whether the last run ran it (guards can skip layers)
    //! By tensor: a constant's weights, where the backend binds the constant's output to them (its layer never
    //! runs); nullptr for every other tensor.
    std::vector<void const*> mBoundConstants;
    //! By tensor: a kernel reads or writes it, yet the plan gives it no memory (it planned it to hold no element, at
    //! every shape): shapes that give it an element are refused (evaluateShape).
    std::vector<bool> mHoldsNoElement;
    // The per-layer path of a run, prepared so that a run in steady state allocates nothing and formats nothing.
    std::vector<PreparedLayer> mPrepared;        //!< by layer
    std::vector<std::vector<ViewSlot>> mViewsOf; //!< by tensor: the prepared views that show it
    std::vector<std::byte*> mTensorAddresses;    //!< by tensor: its address in the prepared views
    std::vector<PreparedAlias> mAliases;         //!< the views' outputs, in layer order
    std::vector<std::vector<size_t>> mAliasesOf; //!< by tensor: the mAliases entries that view its memory
    bool mAddressesPrepared{false};              //!< whether mTensorAddresses has been filled
    std::byte* mPreparedMemory{nullptr};         //!< the context memory mTensorAddresses was computed with
    //! Shape tensors' values evaluated on the host (for backends that evaluate shapes there), cached while
    //! mBoundValues stays the same: by tensor, the values and the mBoundValuesVersion they were computed under.
    std::vector<std::vector<int64_t>> mShapeValues;
    std::vector<uint64_t> mShapeValuesVersion;
    uint64_t mBoundValuesVersion{1}; //!< incremented whenever mBoundValues (and so the shapes) may have changed
    shape::Evaluator mValueEvaluator{mBoundValues}; //!< evaluates shape values; its cache is reset with the version
    shape::Evaluator mShapeEvaluator{mBoundValues}; //!< evaluates mShapes; reset by updateShapes
    //! Evaluates mCapacities: size tensors at their upper bounds; reset by updateShapes.
    shape::Evaluator mUpperBoundEvaluator{mBoundValues, shape::SizeTensorValue::kUPPER};
    plugin::ContextResources mResources;          //!< lent to the plugins; before mExecutor, so it outlives them
    std::unique_ptr<backend::Executor> mExecutor; //!< the backend's memory and layer work
    uint64_t mWeightsGeneration{0};               //!< Engine::weightsGeneration of the weights mExecutor holds
    nvinfer1::IProfiler* mProfiler{nullptr};
    bool mEnqueueEmitsProfile{true};
    size_t mProfiledLayers{0}; //!< how many layers the last run timed (all, unless it failed or had no profiler)
    // TensorRT 10 options kept for the application (see execution_context_options.cpp).
    bool mDebugSync{false};
    nvinfer1::IGpuAllocator* mTemporaryStorageAllocator{nullptr};
    size_t mPersistentCacheLimit{0};
    nvinfer1::ProfilingVerbosity mNvtxVerbosity{nvinfer1::ProfilingVerbosity::kDETAILED};
    // Debug tensors (INetworkDefinition::markDebug, markUnfusedTensorsAsDebugTensors).
    nvinfer1::IDebugListener* mDebugListener{nullptr};
    std::vector<bool> mDebugOn;                        //!< by tensor: the debug state of a marked debug tensor
    bool mUnfusedDebugOn{false};                       //!< setUnfusedTensorsDebugState
    bool mAnyDebugOn{false};                           //!< some debug tensor is on, so runs look for them
    std::vector<std::vector<int32_t>> mDebugTensorsOf; //!< by layer: the debug tensors among its outputs
    std::vector<int32_t> mDebugInputs;                 //!< the network inputs that are debug tensors
};

} // namespace kiln::runtime
