#include "runtime/engine.h"

#include "backend/choice/backends.h"
#include "core/host_memory.h"
#include "core/logging.h"
#include "network/plugin_layer.h"
#include "plan/expr_table.h"
#include "plan/plan_format.h"
#include "plan/plan_graph.h"
#include "runtime/engine_inspector.h"
#include "runtime/execution_context.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace kiln::runtime
{
namespace
{

//! Recreates a plan's plugin through the registry and initialises it, as TensorRT
//! does when it deserializes an engine.
bool instantiatePlugin(network::PluginParams& params, std::string const& layerName, std::string& error)
{
    std::unique_ptr<plugin::PluginAdapter> adapter
        = plugin::recreatePlugin(params.payload, layerName, params.library, error);
    if (adapter == nullptr)
    {
        return false;
    }
    if (!adapter->initialize(error))
    {
        error = "layer \"" + layerName + "\": plugin " + adapter->description() + ": " + error;
        return false;
    }
    params.adapter = std::move(adapter);
    return true;
}

} // namespace

Engine::Engine(plan::PlanModel model)
    : mModel(std::move(model))
    , mBuilder(std::make_unique<shape::ExprBuilder>())
    , mShapeInputs(mModel.tensors.size(), false)
{
    for (plan::SymbolRecord const& symbol : mModel.symbols)
    {
        if (symbol.kind == plan::SymbolRecord::Kind::kVALUE)
        {
            mShapeInputs[static_cast<size_t>(symbol.tensor)] = true; // readPlan checked the index
        }
    }
}

std::unique_ptr<Engine> Engine::create(plan::PlanModel model, nvinfer1::IGpuAllocator* allocator, std::string& error)
{
    std::unique_ptr<Engine> engine(new Engine(std::move(model)));
    engine->mAllocator = allocator;
    plan::PlanModel const& m = engine->mModel;
    engine->mImplementation = backend::implementation(m.backend);
    if (engine->mImplementation == nullptr)
    {
        error = m.backend == Backend::kCUDA
            ? "the plan was built for the CUDA backend, which this build of Kiln does not have (it was built without "
              "CUDA)"
            : "the plan names an unknown backend (" + std::to_string(static_cast<int32_t>(m.backend)) + ")";
        return nullptr;
    }
    if (std::string why; !engine->mImplementation->usable(why))
    {
        error = std::string("the plan was built for the ") + backendName(m.backend)
            + " backend, which cannot run here: " + why;
        return nullptr;
    }
    if (m.backend == Backend::kCPU && !engine->chooseCpuIoLocation(error))
    {
        return nullptr;
    }
    if (!plan::rebuildExprTable(m, *engine->mBuilder, engine->mSymbols, engine->mExprs, error))
    {
        error = "the plan is malformed: " + error;
        return nullptr;
    }
    for (plan::LayerRecord const& layer : m.layers)
    {
        if (std::string const why = engine->mImplementation->refusedLayer(m, layer); !why.empty())
        {
            error = "the plan cannot run on the " + std::string(backendName(m.backend)) + " backend: " + why;
            return nullptr;
        }
    }
    engine->indexDataDependence();
    // Each plugin is recreated through the registry, as TensorRT does when it deserializes an engine.
    for (plan::LayerRecord& layer : engine->mModel.layers)
    {
        if (auto const* plugin = dynamic_cast<network::PluginParams const*>(layer.params.get()))
        {
            auto instantiated = std::make_shared<network::PluginParams>(*plugin);
            if (!instantiatePlugin(*instantiated, layer.name, error)
                || !engine->pluginMatchesPlan(layer, *instantiated, error))
            {
                return nullptr;
            }
            layer.params = std::move(instantiated);
        }
    }
    return engine;
}

int32_t Engine::ioTensorIndex(char const* name, char const* caller) const
{
    if (name != nullptr)
    {
        for (int32_t index : mModel.ioTensors)
        {
            if (mModel.tensors[index].name == name)
            {
                return index;
            }
        }
    }
    std::string known;
    for (int32_t index : mModel.ioTensors)
    {
        known += (known.empty() ? "\"" : ", \"") + mModel.tensors[index].name + "\"";
    }
    logError(std::string(caller) + ": no input or output is named \"" + (name ? name : "(null)") + "\" (the engine has "
        + known + ")");
    return -1;
}

int32_t Engine::inputPosition(int32_t tensorIndex) const
{
    return plan::inputPosition(mModel, tensorIndex);
}

std::vector<int32_t> Engine::sizeSymbolsIn(int32_t exprIndex) const
{
    std::vector<int32_t> symbols;
    for (shape::SymbolId id : shape::sizeTensorsIn(dimExpr(exprIndex)))
    {
        symbols.push_back(mPlanSymbolOfId[static_cast<size_t>(id)]); // the plan declares every size tensor's symbol
    }
    return symbols;
}

void Engine::indexDataDependence()
{
    mSizeSymbolsByLayer.resize(mModel.layers.size());
    for (size_t l = 0; l < mModel.layers.size(); ++l)
    {
        std::vector<int32_t> const& outputs = mModel.layers[l].outputs;
        for (size_t s = 0; s < mModel.symbols.size(); ++s)
        {
            plan::SymbolRecord const& symbol = mModel.symbols[s];
            if (symbol.kind == plan::SymbolRecord::Kind::kSIZE
                && std::find(outputs.begin(), outputs.end(), symbol.tensor) != outputs.end())
            {
                mSizeSymbolsByLayer[l].push_back(static_cast<int32_t>(s));
            }
        }
    }
    for (size_t s = 0; s < mModel.symbols.size(); ++s)
    {
        auto const id = static_cast<size_t>(mSymbols[s]->symbolId());
        mPlanSymbolOfId.resize(std::max(mPlanSymbolOfId.size(), id + 1), -1);
        mPlanSymbolOfId[id] = static_cast<int32_t>(s);
    }
    mDataDependent.assign(mModel.tensors.size(), false);
    mTensorsShapedBy.assign(mModel.symbols.size(), {});
    for (size_t t = 0; t < mModel.tensors.size(); ++t)
    {
        for (int32_t expr : mModel.tensors[t].dims)
        {
            for (int32_t s : sizeSymbolsIn(expr))
            {
                mDataDependent[t] = true;
                std::vector<int32_t>& shaped = mTensorsShapedBy[static_cast<size_t>(s)];
                if (shaped.empty() || shaped.back() != static_cast<int32_t>(t))
                {
                    shaped.push_back(static_cast<int32_t>(t));
                }
            }
        }
    }
    mConditional.assign(mModel.tensors.size(), false);
    for (plan::LayerRecord const& layer : mModel.layers)
    {
        for (int32_t t : layer.outputs)
        {
            mConditional[t] = !layer.guards.empty();
        }
    }
    std::vector<int32_t> innermost;
    std::string error;
    if (!plan::findLoops(mModel, true, mLoops, innermost, error))
    {
        throw std::runtime_error(error); // the plan's validation has checked its loops
    }
}

void Engine::bindSymbols(std::vector<nvinfer1::Dims> const& inputShapes,
    std::vector<std::vector<int64_t>> const& shapeInputValues, shape::SymbolValues& values) const
{
    for (size_t i = 0; i < mModel.symbols.size(); ++i)
    {
        plan::SymbolRecord const& symbol = mModel.symbols[i];
        if (symbol.kind == plan::SymbolRecord::Kind::kSIZE)
        {
            continue; // bound by the context once the layer writing it has run
        }
        if (symbol.kind == plan::SymbolRecord::Kind::kVALUE)
        {
            auto const& given = shapeInputValues[symbol.tensor];
            if (static_cast<size_t>(symbol.axis) < given.size())
            {
                values.set(mSymbols[i]->symbolId(), given[symbol.axis]);
            }
            continue;
        }
        values.set(mSymbols[i]->symbolId(), inputShapes[symbol.tensor].d[symbol.axis]);
    }
}

bool Engine::isShapeInput(int32_t tensor) const
{
    return mShapeInputs[static_cast<size_t>(tensor)];
}

int32_t Engine::getNbIOTensors() const noexcept
{
    return static_cast<int32_t>(mModel.ioTensors.size());
}

char const* Engine::getIOTensorName(int32_t index) const noexcept
{
    if (index < 0 || index >= getNbIOTensors())
    {
        return nullptr;
    }
    return mModel.tensors[mModel.ioTensors[index]].name.c_str();
}

nvinfer1::Dims Engine::getTensorShape(char const* tensorName) const noexcept
{
    int32_t const index = ioTensorIndex(tensorName, "ICudaEngine::getTensorShape");
    if (index < 0)
    {
        return nvinfer1::Dims{-1, {}};
    }
    nvinfer1::Dims dims{};
    auto const& record = mModel.tensors[index];
    dims.nbDims = static_cast<int32_t>(record.dims.size());
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        shape::Expr const& expr = dimExpr(record.dims[i]);
        dims.d[i] = expr.isConstant() ? expr.getConstantValue() : -1;
    }
    return dims;
}

nvinfer1::DataType Engine::getTensorDataType(char const* tensorName) const noexcept
{
    int32_t const index = ioTensorIndex(tensorName, "ICudaEngine::getTensorDataType");
    return index < 0 ? nvinfer1::DataType::kFLOAT : mModel.tensors[index].type;
}

nvinfer1::TensorIOMode Engine::getTensorIOMode(char const* tensorName) const noexcept
{
    // Not an error to ask about another name: TensorRT answers kNONE.
    if (tensorName != nullptr)
    {
        for (int32_t index : mModel.ioTensors)
        {
            if (mModel.tensors[index].name == tensorName)
            {
                return mModel.tensors[index].ioMode;
            }
        }
    }
    return nvinfer1::TensorIOMode::kNONE;
}

nvinfer1::TensorFormat Engine::getTensorFormat(char const* tensorName) const noexcept
{
    int32_t const index = ioTensorIndex(tensorName, "ICudaEngine::getTensorFormat");
    return index < 0 ? nvinfer1::TensorFormat::kLINEAR : mModel.tensors[index].format;
}

int32_t Engine::getNbOptimizationProfiles() const noexcept
{
    return static_cast<int32_t>(mModel.profiles.size());
}

nvinfer1::Dims Engine::getProfileShape(
    char const* tensorName, int32_t profileIndex, nvinfer1::OptProfileSelector select) const noexcept
{
    int32_t const index = ioTensorIndex(tensorName, "ICudaEngine::getProfileShape");
    int32_t const position = index < 0 ? -1 : inputPosition(index);
    auto const selector = static_cast<int32_t>(select);
    if (position < 0 || profileIndex < 0 || profileIndex >= getNbOptimizationProfiles() || selector < 0 || selector > 2)
    {
        return nvinfer1::Dims{-1, {}};
    }
    return mModel.profiles[profileIndex].inputs[position][selector];
}

int32_t Engine::getNbLayers() const noexcept
{
    return static_cast<int32_t>(mModel.layers.size());
}

nvinfer1::IHostMemory* Engine::serialize() const noexcept
{
    try
    {
        return new HostMemory(plan::writePlan(mModel));
    }
    catch (std::exception const& e)
    {
        logError(std::string("ICudaEngine::serialize: ") + e.what());
        return nullptr;
    }
}

nvinfer1::IExecutionContext* Engine::createExecutionContext(
    nvinfer1::ExecutionContextAllocationStrategy strategy) noexcept
{
    auto const value = static_cast<int32_t>(strategy);
    if (value < 0 || value >= nvinfer1::EnumMax<nvinfer1::ExecutionContextAllocationStrategy>())
    {
        logError("ICudaEngine::createExecutionContext: " + std::to_string(value)
            + " is not an ExecutionContextAllocationStrategy");
        return nullptr;
    }
    try
    {
        // A context that cannot be made leaves nothing behind: the engine holds no memory of its contexts. It
        // reports to the engine's error recorder until it is given another, as TensorRT's contexts do.
        auto* context = new ExecutionContext(*this, strategy);
        context->setErrorRecorder(mRecorder);
        return context;
    }
    catch (std::exception const& e)
    {
        logError(std::string("ICudaEngine::createExecutionContext: ") + e.what());
        return nullptr;
    }
}

char const* Engine::getName() const noexcept
{
    return mModel.networkName.c_str();
}

bool Engine::isShapeInferenceIO(char const* tensorName) const noexcept
{
    int32_t const index = ioTensorIndex(tensorName, "ICudaEngine::isShapeInferenceIO");
    // Kiln also keeps the values of other tensors on their way to a shape tensor (Pad's pads as [rank, 2], whole
    // FLOAT numbers); TensorRT's shape-tensor I/O is 0-D or 1-D and INT32 or INT64.
    plan::TensorRecord const* record = index >= 0 ? &mModel.tensors[index] : nullptr;
    return record != nullptr && record->values && record->dims.size() <= 1 && isIndexType(record->type);
}

nvinfer1::TensorLocation Engine::getTensorLocation(char const* tensorName) const noexcept
{
    int32_t const index = ioTensorIndex(tensorName, "ICudaEngine::getTensorLocation");
    // A shape-tensor input is read from host memory, as in TensorRT.
    if (index >= 0 && isShapeInput(index))
    {
        return nvinfer1::TensorLocation::kHOST;
    }
    return mDeviceOfHostIo != nullptr ? nvinfer1::TensorLocation::kDEVICE : memoryLocation();
}

nvinfer1::TensorLocation Engine::memoryLocation() const
{
    return mModel.backend == Backend::kCPU ? nvinfer1::TensorLocation::kHOST : nvinfer1::TensorLocation::kDEVICE;
}

network::WeightsBuffer const& Engine::refittableWeights(size_t record) const
{
    plan::RefitRecord const& r = mModel.refittable.at(record);
    return *mModel.layers[r.layer].params->weightsOfRole(r.role); // the plan reader checked it exists
}

void Engine::replaceWeights(size_t record, network::WeightsBuffer const& values)
{
    plan::RefitRecord const& r = mModel.refittable.at(record);
    // The plan reader made these parameters, so they are not const objects: the plan model shares them as const
    // because nothing but a refit changes them, and a refit changes only the values, in place.
    auto& params = const_cast<network::LayerParams&>(*mModel.layers[r.layer].params);
    params.weightsOfRole(r.role)->overwrite(values);
    ++mWeightsGeneration;
}

int32_t Engine::markedDebugTensor(char const* name) const
{
    for (size_t t = 0; name != nullptr && t < mModel.tensors.size(); ++t)
    {
        if (mModel.tensors[t].debug == plan::DebugMark::kMARKED && mModel.tensors[t].name == name)
        {
            return static_cast<int32_t>(t);
        }
    }
    return -1;
}

int64_t Engine::workspaceOffset() const
{
    constexpr int64_t kAlignment = 256; // as the builder's memory plan aligns each tensor
    return (mModel.arenaBytes + kAlignment - 1) / kAlignment * kAlignment;
}

int64_t Engine::getDeviceMemorySizeV2() const noexcept
{
    return workspaceOffset() + mModel.workspaceBytes;
}

int64_t Engine::getDeviceMemorySizeForProfileV2(int32_t profileIndex) const noexcept
{
    if (profileIndex < 0 || profileIndex >= getNbOptimizationProfiles())
    {
        logError("ICudaEngine::getDeviceMemorySizeForProfileV2: profile " + std::to_string(profileIndex)
            + " does not exist (the engine has " + std::to_string(getNbOptimizationProfiles()) + ")");
        return -1;
    }
    // The plan places every tensor once, sized for the largest shapes of every profile: one size fits them all.
    return getDeviceMemorySizeV2();
}

nvinfer1::IEngineInspector* Engine::createEngineInspector() const noexcept
{
    return new (std::nothrow) EngineInspector(*this);
}

} // namespace kiln::runtime
