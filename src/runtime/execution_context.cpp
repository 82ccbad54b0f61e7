#include "runtime/execution_context.h"

#include "core/dims_text.h"
#include "core/tensor_view.h"
#include "core/logging.h"
#include "plan/plan_graph.h"
#include "plugin/user_exception.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace kiln::runtime
{
namespace
{

int64_t bytesOf(nvinfer1::Dims const& dims, nvinfer1::DataType type)
{
    return elementsOf(dims) * static_cast<int64_t>(elementSize(type));
}

} // namespace

ExecutionContext::ExecutionContext(Engine const& engine, nvinfer1::ExecutionContextAllocationStrategy strategy)
    : mEngine(engine)
    , mStrategy(strategy)
{
    mRuntimeConfig.setExecutionContextAllocationStrategy(strategy);
    auto const& model = engine.model();
    mInputShapes.resize(model.tensors.size(), nvinfer1::Dims{-1, {}});
    mAddresses.resize(model.tensors.size());
    mOutputAllocators.resize(model.tensors.size(), nullptr);
    for (int32_t io : model.ioTensors)
    {
        if (model.tensors[io].ioMode == nvinfer1::TensorIOMode::kINPUT)
        {
            // Inputs whose shape is fixed need no setInputShape.
            mInputShapes[io] = engine.getTensorShape(model.tensors[io].name.c_str());
        }
    }
    mExecutor = engine.implementation().makeExecutor(engine.loadedPlan(), mResources);
    bindConstants();
    prepareLayers();
    checkPlacement();
    prepareDebugTensors();
    if (strategy != nvinfer1::ExecutionContextAllocationStrategy::kUSER_MANAGED)
    {
        // kON_PROFILE_CHANGE too: the plan's one memory layout serves every profile, so there is nothing to
        // allocate again when the profile changes.
        mExecutor->allocateContextMemory();
    }
    for (int32_t io : model.ioTensors)
    {
        mHasShapeInputs = mHasShapeInputs || engine.isShapeInput(io);
    }
    mWeightsGeneration = engine.weightsGeneration();
}

void ExecutionContext::reloadWeights()
{
    // What a backend makes of the weights when a context is made (uploaded copies, kernels with laid-out weights)
    // stays with its executor, so after a refit the context gets a new one, made as the first was. Memory the
    // application gave stays in use.
    std::unique_ptr<backend::Executor> executor
        = mEngine.implementation().makeExecutor(mEngine.loadedPlan(), mResources);
    if (mStrategy != nvinfer1::ExecutionContextAllocationStrategy::kUSER_MANAGED)
    {
        executor->allocateContextMemory();
    }
    else if (mExecutor->contextMemory() != nullptr)
    {
        executor->useContextMemory(mExecutor->contextMemory());
    }
    if (int32_t const threads = mExecutor->threads(); threads > 0)
    {
        executor->setThreads(threads, mExecutor->adaptiveThreads());
    }
    mExecutor = std::move(executor);
    mWeightsGeneration = mEngine.weightsGeneration();
    bindConstants();
    prepareLayers();
    mShapesValid = false;
    mAddressesPrepared = false;
}

void ExecutionContext::reportError(std::string const& message, nvinfer1::ErrorCode code)
{
    logError(message);
    if (mResources.recorder != nullptr)
    {
        mResources.recorder->reportError(code, message.c_str());
    }
}

bool ExecutionContext::setInputShape(char const* tensorName, nvinfer1::Dims const& dims) noexcept
{
    int32_t const index = mEngine.ioTensorIndex(tensorName, "IExecutionContext::setInputShape");
    if (index < 0)
    {
        return false;
    }
    auto const& record = mEngine.model().tensors[index];
    if (record.ioMode != nvinfer1::TensorIOMode::kINPUT)
    {
        reportError("IExecutionContext::setInputShape: \"" + record.name + "\" is an output");
        return false;
    }
    auto const& bounds = mEngine.model().profiles[mProfile].inputs[mEngine.inputPosition(index)];
    bool fits = dims.nbDims == bounds[0].nbDims;
    for (int32_t i = 0; fits && i < dims.nbDims; ++i)
    {
        fits = bounds[0].d[i] <= dims.d[i] && dims.d[i] <= bounds[2].d[i];
    }
    if (!fits)
    {
        reportError("IExecutionContext::setInputShape: " + dimsText(dims) + " for \"" + record.name
            + "\" is outside optimization profile " + std::to_string(mProfile) + " (min " + dimsText(bounds[0])
            + ", max " + dimsText(bounds[2]) + ")");
        return false;
    }
    nvinfer1::Dims& current = mInputShapes[index];
    // Applications set every input's shape before every run; evaluating the network's shapes again is only needed
    // when one changed (a transformer's take hundreds of microseconds).
    if (current.nbDims != dims.nbDims || !std::equal(dims.d, dims.d + dims.nbDims, current.d))
    {
        current = dims;
        mShapesValid = false;
    }
    return true;
}

bool ExecutionContext::setOutputAllocator(char const* tensorName, nvinfer1::IOutputAllocator* outputAllocator) noexcept
{
    int32_t const index = mEngine.ioTensorIndex(tensorName, "IExecutionContext::setOutputAllocator");
    if (index < 0)
    {
        return false;
    }
    if (mEngine.model().tensors[index].ioMode != nvinfer1::TensorIOMode::kOUTPUT)
    {
        reportError("IExecutionContext::setOutputAllocator: \"" + mEngine.model().tensors[index].name
                + "\" is an input; only outputs take an output allocator",
            nvinfer1::ErrorCode::kINVALID_ARGUMENT);
        return false;
    }
    mOutputAllocators[index] = outputAllocator;
    return true;
}

nvinfer1::IOutputAllocator* ExecutionContext::getOutputAllocator(char const* tensorName) const noexcept
{
    int32_t const index = mEngine.ioTensorIndex(tensorName, "IExecutionContext::getOutputAllocator");
    return index < 0 ? nullptr : mOutputAllocators[index];
}

int64_t ExecutionContext::getMaxOutputSize(char const* tensorName) const noexcept
{
    try
    {
        int32_t const index = mEngine.ioTensorIndex(tensorName, "IExecutionContext::getMaxOutputSize");
        if (index < 0)
        {
            return -1;
        }
        auto const& record = mEngine.model().tensors[index];
        std::string error;
        if (record.ioMode != nvinfer1::TensorIOMode::kOUTPUT)
        {
            error = "\"" + record.name + "\" is an input";
        }
        else if (const_cast<ExecutionContext*>(this)->resolveShapes(error))
        {
            return bytesOf(mCapacities[index], record.type);
        }
        const_cast<ExecutionContext*>(this)->reportError(
            "IExecutionContext::getMaxOutputSize: " + error, nvinfer1::ErrorCode::kINVALID_STATE);
        return -1;
    }
    catch (std::exception const& e)
    {
        const_cast<ExecutionContext*>(this)->reportError(
            std::string("IExecutionContext::getMaxOutputSize: internal error: ") + e.what(),
            nvinfer1::ErrorCode::kINTERNAL_ERROR);
        return -1;
    }
}

bool ExecutionContext::allInputDimensionsSpecified() const noexcept
{
    for (int32_t io : mEngine.model().ioTensors)
    {
        if (mEngine.model().tensors[io].ioMode == nvinfer1::TensorIOMode::kINPUT)
        {
            nvinfer1::Dims const& dims = mInputShapes[io];
            if (dims.nbDims < 0 || std::any_of(dims.d, dims.d + dims.nbDims, [](int64_t d) { return d < 0; }))
            {
                return false;
            }
        }
    }
    return true;
}

nvinfer1::Dims ExecutionContext::getTensorShape(char const* tensorName) const noexcept
{
    int32_t const index = mEngine.ioTensorIndex(tensorName, "IExecutionContext::getTensorShape");
    if (index < 0)
    {
        return nvinfer1::Dims{-1, {}};
    }
    if (mEngine.model().tensors[index].ioMode == nvinfer1::TensorIOMode::kINPUT)
    {
        return mInputShapes[index];
    }
    std::string error;
    if (!const_cast<ExecutionContext*>(this)->resolveShapes(error))
    {
        return mEngine.getTensorShape(tensorName); // -1 where not yet known
    }
    return mShapes[index];
}

bool ExecutionContext::setTensorAddress(char const* tensorName, void* data) noexcept
{
    int32_t const index = mEngine.ioTensorIndex(tensorName, "IExecutionContext::setTensorAddress");
    if (index < 0)
    {
        return false;
    }
    mAddresses[index] = data;
    return true;
}

void const* ExecutionContext::getTensorAddress(char const* tensorName) const noexcept
{
    int32_t const index = mEngine.ioTensorIndex(tensorName, "IExecutionContext::getTensorAddress");
    return index < 0 ? nullptr : mAddresses[index].value_or(nullptr);
}

bool ExecutionContext::setInputTensorAddress(char const* tensorName, void const* data) noexcept
{
    return setTensorAddress(tensorName, const_cast<void*>(data));
}

void* ExecutionContext::getOutputTensorAddress(char const* tensorName) const noexcept
{
    int32_t const index = mEngine.ioTensorIndex(tensorName, "IExecutionContext::getOutputTensorAddress");
    return index < 0 ? nullptr : mAddresses[index].value_or(nullptr);
}

bool ExecutionContext::setOptimizationProfileAsync(int32_t profileIndex, cudaStream_t) noexcept
{
    if (profileIndex < 0 || profileIndex >= mEngine.getNbOptimizationProfiles())
    {
        reportError("IExecutionContext::setOptimizationProfileAsync: profile " + std::to_string(profileIndex)
            + " does not exist (the engine has " + std::to_string(mEngine.getNbOptimizationProfiles()) + ")");
        return false;
    }
    mProfile = profileIndex;
    mShapesValid = false;
    return true;
}

bool ExecutionContext::run(cudaStream_t stream, std::string& error)
{
    auto const& model = mEngine.model();
    if (mWeightsGeneration != mEngine.weightsGeneration())
    {
        reloadWeights(); // the engine was refitted since the last run
    }
    if (mExecutor->contextMemory() == nullptr && mEngine.getDeviceMemorySizeV2() > 0)
    {
        error = "the context has no memory for its activations: it was created with "
                "ExecutionContextAllocationStrategy::kUSER_MANAGED, so give it at least "
            + std::to_string(mEngine.getDeviceMemorySizeV2()) + " bytes with setDeviceMemoryV2 first";
        return false;
    }
    if (!checkAddresses(error) || !prepareDeviceLocatedIo(stream, error))
    {
        return false;
    }
    // Data-dependent extents are learnt anew by every run.
    mShapesValid = mShapesValid && !mEngine.hasSizeTensors();
    if (!resolveShapes(error) || !checkNullAddresses(error))
    {
        return false;
    }
    for (int32_t io : model.ioTensors)
    {
        if (mOutputAllocators[io] != nullptr && model.tensors[io].arenaOffset < 0
            && !reallocateOutput(io, stream, error))
        {
            return false;
        }
    }
    mProfiledLayers = 0;
    mConditions.assign(model.tensors.size(), -1);
    mRan.assign(model.layers.size(), false);
    refreshAddresses(); // after the output allocators, which may have moved outputs
    // A CUDA plan's layers read shape-tensor inputs from device copies, which the builder placed in activation
    // memory; the application's host memory holds the values.
    for (int32_t io : model.ioTensors)
    {
        plan::TensorRecord const& record = model.tensors[io];
        if (mEngine.isShapeInput(io) && record.arenaOffset >= 0
            && !writeShapeValues(io, TensorView{record.type, toShape(mShapes[io]), addressOf(io)}, stream, error))
        {
            return false;
        }
    }
    if (!reportDebugTensors(mDebugInputs, stream, error))
    {
        return false;
    }
    mExecutor->beginRun();
    bool const ran = runLayers(0, model.layers.size(), -1, stream, error);
    mExecutor->endRun();
    if (!ran)
    {
        return false;
    }
    for (int32_t io : model.ioTensors)
    {
        if (mOutputAllocators[io] != nullptr && model.tensors[io].arenaOffset < 0)
        {
            mOutputAllocators[io]->notifyShape(model.tensors[io].name.c_str(), mShapes[io]);
        }
    }
    return true;
}

void ExecutionContext::bindConstants()
{
    plan::PlanModel const& model = mEngine.model();
    mBoundConstants.assign(model.tensors.size(), nullptr);
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        plan::LayerRecord const& layer = model.layers[l];
        if (!plan::outputsItsWeights(model, layer) || model.tensors[layer.outputs[0]].arenaOffset >= 0)
        {
            continue;
        }
        void const* weights = mExecutor->constantAddress(l);
        if (weights == nullptr && model.tensors[layer.outputs[0]].maxBytes > 0)
        {
            throw std::runtime_error("layer \"" + layer.name
                + "\": the plan gives its constant output no memory, "
                  "but this backend does not bind constants to their weights");
        }
        static std::byte const kNoElements{}; // an empty constant's address: read by no one, but not null
        mBoundConstants[layer.outputs[0]] = weights != nullptr ? weights : &kNoElements;
    }
}

void ExecutionContext::prepareLayers()
{
    plan::PlanModel const& model = mEngine.model();
    mPrepared.assign(model.layers.size(), PreparedLayer{});
    mViewsOf.assign(model.tensors.size(), {});
    mTensorAddresses.assign(model.tensors.size(), nullptr);
    mAliases.clear();
    mAliasesOf.assign(model.tensors.size(), {});
    mShapeValues.assign(model.tensors.size(), {});
    mShapeValuesVersion.assign(model.tensors.size(), 0);
    bool const shapesOnHost = mEngine.implementation().evaluatesShapesOnHost();
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        plan::LayerRecord const& layer = model.layers[l];
        PreparedLayer& prepared = mPrepared[l];
        if (plan::isView(model, layer))
        {
            prepared.work = PreparedLayer::Work::kVIEW;
            mAliasesOf[model.tensors[layer.outputs[0]].viewOf].push_back(mAliases.size());
            mAliases.push_back(PreparedAlias{layer.outputs[0], static_cast<uint32_t>(l), 0});
        }
        else if (layer.outputs.size() == 1 && mBoundConstants[layer.outputs[0]] != nullptr)
        {
            prepared.work = PreparedLayer::Work::kBOUND_CONSTANT;
        }
        else if (plan::isConditionalOutput(layer))
        {
            prepared.work = PreparedLayer::Work::kSELECT_BRANCH;
        }
        else if (plan::isLoopBoundary(layer))
        {
            prepared.work = PreparedLayer::Work::kLOOP_BOUNDARY;
        }
        else if (shapesOnHost && plan::computesShapesOnly(model, l))
        {
            bool const inMemory = std::any_of(layer.outputs.begin(), layer.outputs.end(), [&](int32_t t) {
                return model.tensors[t].arenaOffset >= 0 || model.tensors[t].ioMode != nvinfer1::TensorIOMode::kNONE;
            });
            prepared.work = inMemory ? PreparedLayer::Work::kSHAPE_VALUES : PreparedLayer::Work::kHOST_VALUES;
        }
        prepared.guarded = !layer.guards.empty();
        prepared.learnsSizes = !mEngine.sizeSymbolsOf(l).empty();
        auto const layerIndex = static_cast<uint32_t>(l);
        for (size_t i = 0; i < layer.inputs.size(); ++i)
        {
            int32_t const t = layer.inputs[i];
            if (t < 0)
            {
                prepared.inputs.emplace_back(); // an absent optional input
                continue;
            }
            plan::TensorRecord const& record = model.tensors[t];
            prepared.inputs.emplace_back(record.type, Shape(record.dims.size()), nullptr, record.format);
            mViewsOf[t].push_back(ViewSlot{layerIndex, static_cast<uint32_t>(i), false});
        }
        for (size_t o = 0; o < layer.outputs.size(); ++o)
        {
            int32_t const t = layer.outputs[o];
            plan::TensorRecord const& record = model.tensors[t];
            prepared.outputs.push_back(TensorView{record.type, Shape(record.dims.size()), nullptr, record.format});
            mViewsOf[t].push_back(ViewSlot{layerIndex, static_cast<uint32_t>(o), true});
            prepared.stagesOutputs = prepared.stagesOutputs
                || (record.ioMode == nvinfer1::TensorIOMode::kOUTPUT && record.arenaOffset >= 0);
        }
    }
}

void ExecutionContext::refreshAddresses()
{
    plan::PlanModel const& model = mEngine.model();
    std::byte* const memory = mExecutor->contextMemory();
    auto const ioAddress = [&](size_t t) { return static_cast<std::byte*>(mAddresses[t].value_or(nullptr)); };
    if (!mAddressesPrepared || memory != mPreparedMemory)
    {
        // The first run, or a kUSER_MANAGED context given other memory: every tensor moves.
        for (size_t t = 0; t < model.tensors.size(); ++t)
        {
            if (model.tensors[t].viewOf >= 0)
            {
                continue; // placed with the tensor it views
            }
            std::byte* address = nullptr;
            if (mBoundConstants[t] != nullptr)
            {
                // Layers only read a constant; its weights are never written.
                address = static_cast<std::byte*>(const_cast<void*>(mBoundConstants[t]));
            }
            else if (model.tensors[t].arenaOffset >= 0)
            {
                address = memory + model.tensors[t].arenaOffset;
            }
            else
            {
                address = ioAddress(t);
            }
            placeTensor(static_cast<int32_t>(t), address);
        }
        mPreparedMemory = memory;
        mAddressesPrepared = true;
        return;
    }
    // Only the application's tensors (and outputs an allocator placed) can have moved since the last run.
    for (int32_t io : model.ioTensors)
    {
        std::byte* const address = ioAddress(io);
        if (model.tensors[io].arenaOffset < 0 && address != mTensorAddresses[io])
        {
            placeTensor(io, address);
        }
    }
}

void ExecutionContext::placeTensor(int32_t t, std::byte* address)
{
    setViewAddresses(t, address);
    for (size_t a : mAliasesOf[static_cast<size_t>(t)])
    {
        PreparedAlias const& alias = mAliases[a];
        setViewAddresses(alias.tensor, address != nullptr ? address + alias.offsetBytes : nullptr);
    }
}

void ExecutionContext::setViewAddresses(int32_t t, std::byte* address)
{
    mTensorAddresses[t] = address;
    for (ViewSlot const& view : mViewsOf[t])
    {
        PreparedLayer& prepared = mPrepared[view.layer];
        if (view.output)
        {
            prepared.outputs[view.slot].data = address;
        }
        else
        {
            prepared.inputs[view.slot].data = address;
        }
    }
}

bool ExecutionContext::checkAddresses(std::string& error) const
{
    auto const& model = mEngine.model();
    for (int32_t io : model.ioTensors)
    {
        plan::TensorRecord const& record = model.tensors[io];
        if (mEngine.isShapeInput(io) || mOutputAllocators[io] != nullptr)
        {
            continue; // readShapeInputValues says what is missing; an allocator gives the memory
        }
        bool const staged = record.ioMode == nvinfer1::TensorIOMode::kOUTPUT && record.arenaOffset >= 0;
        if (staged || (record.ioMode == nvinfer1::TensorIOMode::kOUTPUT && mEngine.isDataDependent(io)))
        {
            error = "the shape of output \"" + record.name
                + "\" is data-dependent (known only once its layer has "
                  "run), so its memory must come from an IOutputAllocator: set one with "
                  "IExecutionContext::setOutputAllocator";
            return false;
        }
        if (!mAddresses[io].has_value()) // a null address is checked against the run's shapes (checkNullAddresses)
        {
            error = "no address was set for \"" + record.name + "\" (setTensorAddress)";
            return false;
        }
    }
    return true;
}

bool ExecutionContext::step(size_t l, cudaStream_t stream, std::string& error)
{
    PreparedLayer const& prepared = mPrepared[l];
    if (prepared.work == PreparedLayer::Work::kLOOP_BOUNDARY)
    {
        error = "a loop's boundary layer runs only with its loop";
        return false;
    }
    if (prepared.work == PreparedLayer::Work::kBOUND_CONSTANT || prepared.work == PreparedLayer::Work::kHOST_VALUES
        || prepared.work == PreparedLayer::Work::kVIEW)
    {
        // Its output is its weights, values nothing reads, or its input's memory: nothing runs, whether or not its
        // guards hold, and the profiler hears of nothing.
        return true;
    }
    if (prepared.guarded)
    {
        bool hold = true;
        if (!guardsHold(l, stream, hold, error))
        {
            return false;
        }
        if (!hold)
        {
            return true; // needed only by the side of a conditional that was not taken
        }
    }
    mRan[l] = true;
    bool const ran = prepared.work == PreparedLayer::Work::kSELECT_BRANCH
        ? selectBranch(l, stream, error)
        : runLayer(l, stream, error) && (!prepared.learnsSizes || learnSizes(l, stream, error));
    return ran && (!prepared.stagesOutputs || deliverStagedOutputs(l, stream, error));
}

bool ExecutionContext::wroteOutputs(size_t l) const
{
    PreparedLayer::Work const work = mPrepared[l].work;
    return mRan[l] || work == PreparedLayer::Work::kBOUND_CONSTANT || work == PreparedLayer::Work::kVIEW;
}

bool ExecutionContext::guardsHold(size_t l, cudaStream_t stream, bool& hold, std::string& error)
{
    hold = true;
    // Outer conditionals' guards come first: an inner condition is read only inside the branch that computes it.
    for (plan::Guard const& guard : mEngine.model().layers[l].guards)
    {
        bool value = false;
        if (!conditionValue(guard.condition, stream, value, error))
        {
            return false;
        }
        if (value != guard.value)
        {
            hold = false;
            return true;
        }
    }
    return true;
}

bool ExecutionContext::conditionValue(int32_t tensor, cudaStream_t stream, bool& value, std::string& error)
{
    int8_t& known = mConditions[tensor];
    if (known < 0)
    {
        plan::TensorRecord const& record = mEngine.model().tensors[tensor];
        if (record.values.has_value())
        {
            shape::EvalResult const result = shape::evaluate(mEngine.dimExpr(record.values->at(0)), mBoundValues);
            if (!result.ok())
            {
                error = "the condition \"" + record.name + "\": " + result.error;
                return false;
            }
            known = *result.value != 0 ? 1 : 0;
        }
        else
        {
            // On the CUDA backend the run waits here for the layers that compute the condition.
            known = mExecutor->readScalar(ConstTensorView(record.type, Shape{}, addressOf(tensor)), stream) != 0;
        }
    }
    value = known > 0;
    return true;
}

bool ExecutionContext::selectBranch(size_t l, cudaStream_t stream, std::string& error)
{
    auto const& model = mEngine.model();
    auto const& layer = model.layers[l];
    bool taken = false;
    if (!conditionValue(layer.inputs[2], stream, taken, error))
    {
        return false;
    }
    int32_t const branch = layer.inputs[taken ? 0 : 1];
    int32_t const output = layer.outputs[0];
    if (!checkShape(branch, error))
    {
        return false;
    }
    for (int32_t s : mEngine.sizeSymbolsOf(l))
    {
        // Output 1 + axis holds the extent of output 0's axis.
        auto const slot = std::find(layer.outputs.begin(), layer.outputs.end(), model.symbols[s].tensor);
        auto const axis = static_cast<int32_t>(slot - layer.outputs.begin()) - 1;
        mBoundValues.set(mEngine.symbolExpr(s).symbolId(), mShapes[branch].d[axis]);
    }
    if (!mEngine.sizeSymbolsOf(l).empty() && !updateShapesLearning(mEngine.sizeSymbolsOf(l), error))
    {
        return false;
    }
    plan::TensorRecord const& from = model.tensors[branch];
    plan::TensorRecord const& to = model.tensors[output];
    if (toShape(mShapes[branch]) != toShape(mShapes[output]))
    {
        // Only a plan whose output shape was not derived from its branches (a corrupted one) gets here.
        error
            = "layer \"" + layer.name + "\": the taken branch \"" + from.name + "\" has another shape than the output";
        return false;
    }
    mExecutor->copyTensor(ConstTensorView(from.type, toShape(mShapes[branch]), addressOf(branch), from.format),
        TensorView{to.type, toShape(mShapes[output]), addressOf(output), to.format}, stream);
    return true;
}

bool ExecutionContext::checkShape(int32_t t, std::string& error) const
{
    if (mShapeErrors[t].empty())
    {
        return true;
    }
    error = mShapeErrors[t];
    return false;
}

bool ExecutionContext::runLayer(size_t l, cudaStream_t stream, std::string& error)
{
    PreparedLayer const& prepared = mPrepared[l];
    if (prepared.unknownShape >= 0 && !checkShape(prepared.unknownShape, error))
    {
        return false;
    }
    if (mProfiler != nullptr)
    {
        mExecutor->beginTiming(l, stream);
    }
    bool const ok = prepared.work == PreparedLayer::Work::kSHAPE_VALUES
        ? writeShapeValues(l, prepared.outputs, stream, error)
        : mExecutor->runLayer(l, prepared.inputs, prepared.outputs, stream, error);
    if (mProfiler != nullptr)
    {
        mExecutor->endTiming(l, stream);
        mProfiledLayers = l + 1;
    }
    return ok;
}

bool ExecutionContext::learnSizes(size_t l, cudaStream_t stream, std::string& error)
{
    auto const& model = mEngine.model();
    for (int32_t s : mEngine.sizeSymbolsOf(l))
    {
        int32_t const tensor = model.symbols[s].tensor;
        plan::TensorRecord const& record = model.tensors[tensor];
        int64_t const value = mExecutor->readScalar(ConstTensorView(record.type, Shape{}, addressOf(tensor)), stream);
        shape::Expr const& size = mEngine.symbolExpr(s);
        shape::EvalResult const upper = shape::evaluate(size.sizeTensorUpper(), mBoundValues);
        if (!upper.ok() || value < 0 || value > *upper.value)
        {
            error = "the size tensor \"" + record.name + "\" holds " + std::to_string(value) + ", outside [0, "
                + (upper.ok() ? std::to_string(*upper.value) : upper.error) + "], the range its layer declared";
            return false;
        }
        mBoundValues.set(size.symbolId(), value);
    }
    return mEngine.sizeSymbolsOf(l).empty() || updateShapesLearning(mEngine.sizeSymbolsOf(l), error);
}

bool ExecutionContext::reallocateOutput(int32_t tensor, cudaStream_t stream, std::string& error)
{
    plan::TensorRecord const& record = mEngine.model().tensors[tensor];
    auto const bytes = static_cast<uint64_t>(bytesOf(mShapes[tensor], record.type));
    constexpr uint64_t kAlignment = 256; // as the plan aligns activations
    void* const memory = mOutputAllocators[tensor]->reallocateOutputAsync(
        record.name.c_str(), mAddresses[tensor].value_or(nullptr), bytes, kAlignment, stream);
    if (memory == nullptr && bytes > 0)
    {
        error = "the IOutputAllocator of \"" + record.name + "\" gave no memory for its " + std::to_string(bytes)
            + " bytes (reallocateOutputAsync returned null)";
        return false;
    }
    mAddresses[tensor] = memory;
    return true;
}

bool ExecutionContext::deliverStagedOutputs(size_t l, cudaStream_t stream, std::string& error)
{
    auto const& model = mEngine.model();
    for (int32_t t : model.layers[l].outputs)
    {
        plan::TensorRecord const& record = model.tensors[t];
        if (record.ioMode != nvinfer1::TensorIOMode::kOUTPUT || record.arenaOffset < 0)
        {
            continue;
        }
        if (!reallocateOutput(t, stream, error))
        {
            return false;
        }
        if (auto const bytes = static_cast<size_t>(bytesOf(mShapes[t], record.type)); bytes > 0)
        {
            mExecutor->copyBytes(*mAddresses[t], addressOf(t), bytes, stream);
        }
        mOutputAllocators[t]->notifyShape(record.name.c_str(), mShapes[t]);
    }
    return true;
}

bool ExecutionContext::writeShapeValues(
    size_t l, std::vector<TensorView> const& outputs, cudaStream_t stream, std::string& error)
{
    for (size_t o = 0; o < outputs.size(); ++o)
    {
        if (!writeShapeValues(mEngine.model().layers[l].outputs[o], outputs[o], stream, error))
        {
            return false;
        }
    }
    return true;
}

bool ExecutionContext::writeShapeValues(int32_t tensor, TensorView const& view, cudaStream_t stream, std::string& error)
{
    std::vector<int64_t>& values = mShapeValues[static_cast<size_t>(tensor)];
    uint64_t& version = mShapeValuesVersion[static_cast<size_t>(tensor)];
    if (version != mBoundValuesVersion) // else the values of the last run, whose bound values were these
    {
        plan::TensorRecord const& record = mEngine.model().tensors[tensor];
        values.clear();
        for (int32_t expr : *record.values)
        {
            shape::EvalResult const value = mValueEvaluator.evaluate(mEngine.dimExpr(expr));
            if (!value.ok())
            {
                error = "the values of \"" + record.name + "\": " + value.error;
                return false;
            }
            values.push_back(*value.value);
        }
        version = mBoundValuesVersion;
    }
    mExecutor->writeShapeValues(tensor, view, values, stream);
    return true;
}

bool ExecutionContext::reportToProfiler() const noexcept
{
    if (mProfiler == nullptr)
    {
        return false;
    }
    auto const& layers = mEngine.model().layers;
    size_t l = 0;
    try
    {
        for (; l < mProfiledLayers; ++l)
        {
            if (mRan[l]) // else a conditional's branch that was not taken
            {
                mProfiler->reportLayerTime(layers[l].name.c_str(), mExecutor->elapsedMs(l));
            }
        }
        return true;
    }
    catch (...) // the application's profiler may throw: IProfiler::reportLayerTime is not noexcept
    {
        const_cast<ExecutionContext*>(this)->reportError("IExecutionContext::reportToProfiler: the IProfiler's "
                                                         "reportLayerTime for layer \""
            + layers[l].name + "\" " + plugin::describeCurrentException() + "; the later layers were not reported");
        return false;
    }
}

bool ExecutionContext::enqueueV3(cudaStream_t stream) noexcept
{
    try
    {
        std::string error;
        if (!run(stream, error))
        {
            reportError("IExecutionContext::enqueueV3: " + error);
            return false;
        }
        if (mEnqueueEmitsProfile)
        {
            reportToProfiler();
        }
        return true;
    }
    catch (std::exception const& e)
    {
        reportError(std::string("IExecutionContext::enqueueV3: internal error: ") + e.what());
        return false;
    }
    catch (...) // an application's callback (an IOutputAllocator's, an IGpuAllocator's) may throw anything
    {
        reportError(
            "IExecutionContext::enqueueV3: a callback of the application " + plugin::describeCurrentException());
        return false;
    }
}

bool ExecutionContext::executeV2(void* const* bindings) noexcept
{
    if (bindings == nullptr)
    {
        reportError("IExecutionContext::executeV2: bindings is null");
        return false;
    }
    auto const& model = mEngine.model();
    for (size_t i = 0; i < model.ioTensors.size(); ++i)
    {
        mAddresses[model.ioTensors[i]] = bindings[i];
    }
    if (!enqueueV3(nullptr))
    {
        return false;
    }
    std::string error;
    if (!mExecutor->synchronize(nullptr, error))
    {
        reportError("IExecutionContext::executeV2: " + error);
        return false;
    }
    return true;
}

void ExecutionContext::setDeviceMemoryV2(void* memory, int64_t size) noexcept
{
    try
    {
        constexpr uintptr_t kAlignment = 256; // TensorRT's rule; the plan aligns its tensors to it too
        int64_t const needed = mEngine.getDeviceMemorySizeV2();
        std::string const caller = "IExecutionContext::setDeviceMemoryV2: ";
        if (mStrategy != nvinfer1::ExecutionContextAllocationStrategy::kUSER_MANAGED)
        {
            reportError(caller
                    + "the context allocates its own memory; only a context created with "
                      "ExecutionContextAllocationStrategy::kUSER_MANAGED takes memory from the application",
                nvinfer1::ErrorCode::kINVALID_STATE);
            return;
        }
        if (memory == nullptr && needed > 0)
        {
            reportError(caller + "the memory is null; the context needs " + std::to_string(needed) + " bytes",
                nvinfer1::ErrorCode::kINVALID_ARGUMENT);
            return;
        }
        if (size < needed)
        {
            reportError(caller + std::to_string(size) + " bytes are too few: the context needs "
                    + std::to_string(needed) + " (ICudaEngine::getDeviceMemorySizeV2)",
                nvinfer1::ErrorCode::kINVALID_ARGUMENT);
            return;
        }
        if (reinterpret_cast<uintptr_t>(memory) % kAlignment != 0)
        {
            reportError(caller + "the memory must be " + std::to_string(kAlignment) + "-byte aligned",
                nvinfer1::ErrorCode::kINVALID_ARGUMENT);
            return;
        }
        mExecutor->useContextMemory(static_cast<std::byte*>(memory));
    }
    catch (std::exception const& e)
    {
        reportError(std::string("IExecutionContext::setDeviceMemoryV2: internal error: ") + e.what(),
            nvinfer1::ErrorCode::kINTERNAL_ERROR);
    }
}

void ExecutionContext::setDeviceMemory(void* memory) noexcept
{
    // No size is given: the application promises what getDeviceMemorySize() asked for.
    setDeviceMemoryV2(memory, mEngine.getDeviceMemorySizeV2());
}

size_t ExecutionContext::updateDeviceMemorySizeForShapes() noexcept
{
    try
    {
        std::string error;
        if (!resolveShapes(error))
        {
            reportError(
                "IExecutionContext::updateDeviceMemorySizeForShapes: " + error, nvinfer1::ErrorCode::kINVALID_STATE);
            return 0;
        }
        // Every tensor has a fixed place in the plan's layout, sized for the profiles' largest shapes: smaller
        // shapes leave holes rather than a shorter block.
        return static_cast<size_t>(mEngine.getDeviceMemorySizeV2());
    }
    catch (std::exception const& e)
    {
        reportError(std::string("IExecutionContext::updateDeviceMemorySizeForShapes: internal error: ") + e.what(),
            nvinfer1::ErrorCode::kINTERNAL_ERROR);
        return 0;
    }
}

} // namespace kiln::runtime
