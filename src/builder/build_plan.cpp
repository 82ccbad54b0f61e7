#include "builder/build_plan.h"

#include "backend/backend_support.h"
#include "backend/cpu/tensor_view.h"
#include "builder/convolution_fusion.h"
#include "builder/convolution_tuning.h"
#include "builder/memory_plan.h"
#include "builder/precision.h"
#include "builder/prepare_plugin.h"
#include "core/host_memory.h"
#include "core/logging.h"
#include "plan/expr_table.h"
#include "network/plugin_layer.h"
#include "plan/plan_format.h"
#include "plugin/registry.h"
#include "shape/evaluate.h"

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>

namespace kiln::builder
{
namespace
{

using network::Network;
using network::Tensor;

//! Reports build progress to the application's IProgressMonitor, if it set one.
class Progress
{
public:
    Progress(nvinfer1::IProgressMonitor* monitor, char const* phase, int32_t steps)
        : mMonitor(monitor)
        , mPhase(phase)
    {
        if (mMonitor)
        {
            mMonitor->phaseStart(mPhase, nullptr, steps);
        }
    }
    ~Progress()
    {
        if (mMonitor)
        {
            mMonitor->phaseFinish(mPhase);
        }
    }
    //! False if the application cancelled the build.
    bool step()
    {
        return mMonitor == nullptr || mMonitor->stepComplete(mPhase, mStep++);
    }

private:
    nvinfer1::IProgressMonitor* mMonitor;
    char const* mPhase;
    int32_t mStep{0};
};

std::string dimsText(nvinfer1::Dims const& dims)
{
    std::string text = "(";
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        text += (i ? ", " : "") + std::to_string(dims.d[i]);
    }
    return text + ")";
}

bool hasRuntimeDims(Tensor const& input)
{
    nvinfer1::Dims const dims = input.getDimensions();
    return std::any_of(dims.d, dims.d + dims.nbDims, [](int64_t d) { return d < 0; });
}

//! The profiles to build for: the application's, or one made of the fixed input shapes.
bool resolveProfiles(Network const& network, BuilderConfig const& config, std::vector<plan::ProfileRecord>& profiles)
{
    bool const dynamic = std::any_of(
        network.inputs().begin(), network.inputs().end(), [](Tensor const* input) { return hasRuntimeDims(*input); });
    if (config.profiles().empty())
    {
        if (dynamic)
        {
            logError("IBuilder::buildSerializedNetwork: the network has inputs with runtime dimensions (-1) but the "
                     "configuration has no optimization profile; add one with IBuilderConfig::addOptimizationProfile");
            return false;
        }
        plan::ProfileRecord fixed;
        for (Tensor const* input : network.inputs())
        {
            nvinfer1::Dims const dims = input->getDimensions();
            fixed.inputs.push_back({dims, dims, dims});
        }
        profiles.push_back(std::move(fixed));
        return true;
    }
    for (size_t p = 0; p < config.profiles().size(); ++p)
    {
        ProfileShapes const& profile = config.profiles()[p];
        plan::ProfileRecord record;
        for (Tensor const* input : network.inputs())
        {
            nvinfer1::Dims const declared = input->getDimensions();
            auto it = profile.inputs.find(input->name());
            if (it == profile.inputs.end())
            {
                if (hasRuntimeDims(*input))
                {
                    logError("IBuilder::buildSerializedNetwork: optimization profile " + std::to_string(p)
                        + " gives no dimensions for input \"" + input->name() + "\" " + dimsText(declared));
                    return false;
                }
                record.inputs.push_back({declared, declared, declared});
                continue;
            }
            for (nvinfer1::Dims const& dims : it->second)
            {
                bool matches = dims.nbDims == declared.nbDims;
                for (int32_t i = 0; matches && i < dims.nbDims; ++i)
                {
                    matches = declared.d[i] < 0 || declared.d[i] == dims.d[i];
                }
                if (!matches)
                {
                    logError("IBuilder::buildSerializedNetwork: optimization profile " + std::to_string(p)
                        + " gives input \"" + input->name() + "\" the dimensions " + dimsText(dims)
                        + ", which do not fit its declared dimensions " + dimsText(declared));
                    return false;
                }
            }
            record.inputs.push_back(it->second);
        }
        for (auto const& entry : profile.inputs)
        {
            std::string const& name = entry.first; // not a structured binding: C++17 lambdas cannot capture those
            bool const known = std::any_of(network.inputs().begin(), network.inputs().end(),
                [&](Tensor const* input) { return input->name() == name; });
            if (!known)
            {
                logWarning("optimization profile " + std::to_string(p) + " names \"" + name
                    + "\", which is not an input of the network; ignored");
            }
        }
        profiles.push_back(std::move(record));
    }
    return true;
}

//! Profile `p`'s shape values for input `name` at `select` (setShapeValues), if it gives them.
std::optional<std::vector<int64_t>> shapeValuesOf(
    BuilderConfig const& config, size_t p, std::string const& name, int32_t select)
{
    if (p >= config.profiles().size())
    {
        return std::nullopt;
    }
    auto const& given = config.profiles()[p].shapeValues;
    auto const it = given.find(name);
    if (it == given.end() || it->second[select].empty())
    {
        return std::nullopt;
    }
    return std::vector<int64_t>(it->second[select].begin(), it->second[select].end());
}

} // namespace

std::unique_ptr<nvinfer1::IHostMemory> buildPlan(Network& network, BuilderConfig& config, nvinfer1::IGpuAllocator* allocator)
{
    Backend backend = config.backend() == Backend::kDEFAULT ? defaultBackend() : config.backend();
    if (backend == Backend::kCUDA && !cudaBackendBuilt())
    {
        logError("IBuilder::buildSerializedNetwork: this build of Kiln has no CUDA backend (it was built without "
                 "CUDA); build for the CPU backend (kiln::setBackend(config, kiln::Backend::kCPU))");
        return nullptr;
    }
    if (network.outputs().empty())
    {
        logError("IBuilder::buildSerializedNetwork: the network has no outputs; mark at least one with markOutput");
        return nullptr;
    }
    std::set<std::string> ioNames;
    for (auto const* list : {&network.inputs(), &network.outputs()})
    {
        for (Tensor const* tensor : *list)
        {
            if (tensor->isNetworkInput() && tensor->isNetworkOutput() && list == &network.outputs())
            {
                continue;
            }
            if (!ioNames.insert(tensor->name()).second)
            {
                logError("IBuilder::buildSerializedNetwork: two input/output tensors are named \"" + tensor->name()
                    + "\"; I/O tensor names must be unique");
                return nullptr;
            }
        }
    }

    Progress progress(config.getProgressMonitor(), "Building plan", 4);

    // Pass 2: symbolic shapes and types.
    network::NetworkFacts facts;
    std::string error;
    if (!network.inferAll(facts, error))
    {
        logError("IBuilder::buildSerializedNetwork: " + error);
        return nullptr;
    }
    if (!progress.step())
    {
        logError("IBuilder::buildSerializedNetwork: cancelled by the progress monitor");
        return nullptr;
    }

    // Pass 3: profiles, and every shape at each profile's min, opt and max.
    plan::PlanModel model;
    model.backend = backend;
    model.networkName = network.getName();
    if (!resolveProfiles(network, config, model.profiles))
    {
        return nullptr;
    }
    std::vector<Tensor const*> tensors; // plan order: inputs, then layer outputs in layer order
    for (Tensor const* input : network.inputs())
    {
        tensors.push_back(input);
    }
    std::vector<network::Layer const*> order;
    if (!network.topologicalOrder(order, error))
    {
        logError("IBuilder::buildSerializedNetwork: " + error);
        return nullptr;
    }
    PrecisionChoice precision;
    if (!choosePrecisions(network, order, facts, config, precision, error))
    {
        logError("IBuilder::buildSerializedNetwork: " + error);
        return nullptr;
    }
    std::unordered_map<Tensor const*, network::Layer const*> producers;
    for (network::Layer const* layer : order)
    {
        for (Tensor const* output : layer->outputs())
        {
            tensors.push_back(output);
            producers[output] = layer;
        }
    }
    std::vector<int64_t> maxBytes(tensors.size(), 0);
    // evaluated[t][p][select]: tensor t's dimensions at profile p's kMIN, kOPT or kMAX.
    std::vector<std::vector<std::array<nvinfer1::Dims, 3>>> evaluated(
        tensors.size(), std::vector<std::array<nvinfer1::Dims, 3>>(model.profiles.size()));
    for (size_t p = 0; p < model.profiles.size(); ++p)
    {
        for (int32_t select = 0; select < 3; ++select)
        {
            shape::SymbolValues values;
            std::string unboundShapeInputs; // shape-tensor inputs this profile gives no values for
            for (size_t i = 0; i < network.inputs().size(); ++i)
            {
                Tensor const* input = network.inputs()[i];
                auto const& symbols = facts.inputSymbols.at(input);
                nvinfer1::Dims const& dims = model.profiles[p].inputs[i][select];
                for (size_t axis = 0; axis < symbols.size(); ++axis)
                {
                    if (symbols[axis] != nullptr)
                    {
                        values.set(symbols[axis]->symbolId(), dims.d[axis]);
                    }
                }
                auto const valueSymbols = facts.inputValueSymbols.find(input);
                if (valueSymbols == facts.inputValueSymbols.end())
                {
                    continue;
                }
                std::optional<std::vector<int64_t>> const given = shapeValuesOf(config, p, input->name(), select);
                if (!given || given->size() != valueSymbols->second.size())
                {
                    unboundShapeInputs += (unboundShapeInputs.empty() ? "\"" : ", \"") + input->name() + "\"";
                    continue;
                }
                for (size_t v = 0; v < given->size(); ++v)
                {
                    values.set(valueSymbols->second[v]->symbolId(), (*given)[v]);
                }
            }
            shape::Evaluator evaluator(values, shape::SizeTensorValue::kUPPER);
            for (size_t t = 0; t < tensors.size(); ++t)
            {
                network::TensorFacts const& tf = facts.tensors.at(tensors[t]);
                int64_t elements = 1;
                nvinfer1::Dims& concrete = evaluated[t][p][select];
                concrete.nbDims = tf.dims.nbDims;
                for (int32_t axis = 0; axis < tf.dims.nbDims; ++axis)
                {
                    auto const& expr = *facts.exprs->adopt(tf.dims.d[axis]);
                    shape::EvalResult extent = evaluator.evaluate(expr);
                    if (!extent.ok() || *extent.value < 0)
                    {
                        static char const* const kSelectors[] = {"kMIN", "kOPT", "kMAX"};
                        auto producer = producers.find(tensors[t]);
                        std::string const hint = unboundShapeInputs.empty() ? std::string()
                            : " (the shapes depend on the values of " + unboundShapeInputs
                                + ": give them for every profile with IOptimizationProfile::setShapeValues)";
                        logError("IBuilder::buildSerializedNetwork: layer \""
                            + (producer != producers.end() ? producer->second->name() : tensors[t]->name())
                            + "\": dimension " + std::to_string(axis) + " of \"" + tensors[t]->name()
                            + "\" at profile " + std::to_string(p) + " " + kSelectors[select] + ": "
                            + (extent.ok() ? "negative (" + std::to_string(*extent.value) + ")" : extent.error)
                            + hint);
                        return nullptr;
                    }
                    elements *= *extent.value;
                    concrete.d[axis] = *extent.value;
                }
                int64_t const bytes = elements * static_cast<int64_t>(cpu::elementSize(precision.storage.at(tensors[t])));
                maxBytes[t] = std::max(maxBytes[t], bytes);
            }
        }
    }
    if (!progress.step())
    {
        logError("IBuilder::buildSerializedNetwork: cancelled by the progress monitor");
        return nullptr;
    }

    // The plan's tensors and shape expressions.
    std::unordered_map<Tensor const*, int32_t> tensorIndex;
    for (size_t t = 0; t < tensors.size(); ++t)
    {
        tensorIndex[tensors[t]] = static_cast<int32_t>(t);
    }
    std::unordered_map<shape::SymbolId, int32_t> symbolIndex;
    for (size_t i = 0; i < network.inputs().size(); ++i)
    {
        auto const& symbols = facts.inputSymbols.at(network.inputs()[i]);
        for (size_t axis = 0; axis < symbols.size(); ++axis)
        {
            if (symbols[axis] != nullptr)
            {
                symbolIndex[symbols[axis]->symbolId()] = static_cast<int32_t>(model.symbols.size());
                model.symbols.push_back({static_cast<int32_t>(i), static_cast<int32_t>(axis)});
            }
        }
    }
    // A shape-tensor input's value symbols enter the plan only where some expression uses them: an INT32/INT64
    // input that no shape depends on stays an ordinary input, read by layers from wherever its data lives.
    std::unordered_map<shape::SymbolId, std::pair<int32_t, int32_t>> valueSymbolOwners; // input, value index
    for (size_t i = 0; i < network.inputs().size(); ++i)
    {
        auto const it = facts.inputValueSymbols.find(network.inputs()[i]);
        for (size_t v = 0; it != facts.inputValueSymbols.end() && v < it->second.size(); ++v)
        {
            valueSymbolOwners[it->second[v]->symbolId()] = {static_cast<int32_t>(i), static_cast<int32_t>(v)};
        }
    }
    plan::ExprTableWriter exprTable(model.exprs, [&](shape::SymbolId id) {
        if (auto it = symbolIndex.find(id); it != symbolIndex.end())
        {
            return it->second;
        }
        auto const owner = valueSymbolOwners.find(id);
        if (owner == valueSymbolOwners.end())
        {
            return -1;
        }
        symbolIndex[id] = static_cast<int32_t>(model.symbols.size());
        model.symbols.push_back({owner->second.first, owner->second.second, plan::SymbolRecord::Kind::kVALUE});
        return symbolIndex[id];
    });
    for (size_t t = 0; t < tensors.size(); ++t)
    {
        network::TensorFacts const& tf = facts.tensors.at(tensors[t]);
        plan::TensorRecord record;
        record.name = tensors[t]->name();
        record.type = precision.storage.at(tensors[t]);
        for (int32_t axis = 0; axis < tf.dims.nbDims; ++axis)
        {
            record.dims.push_back(exprTable.add(*facts.exprs->adopt(tf.dims.d[axis])));
        }
        if (tf.values && !tensors[t]->isNetworkInput()) // inputs' values: below, once their use is known
        {
            record.values.emplace();
            for (auto const* value : *tf.values)
            {
                record.values->push_back(exprTable.add(*facts.exprs->adopt(value)));
            }
        }
        if (!exprTable.error().empty())
        {
            logError("IBuilder::buildSerializedNetwork: tensor \"" + record.name + "\": " + exprTable.error());
            return nullptr;
        }
        record.ioMode = tensors[t]->isNetworkInput() ? nvinfer1::TensorIOMode::kINPUT
            : tensors[t]->isNetworkOutput()          ? nvinfer1::TensorIOMode::kOUTPUT
                                                     : nvinfer1::TensorIOMode::kNONE;
        record.maxBytes = maxBytes[t];
        model.tensors.push_back(std::move(record));
    }
    for (size_t i = 0; i < network.inputs().size(); ++i)
    {
        bool const shapeInput = std::any_of(model.symbols.begin(), model.symbols.end(), [&](plan::SymbolRecord const& s) {
            return s.kind == plan::SymbolRecord::Kind::kVALUE && s.tensor == static_cast<int32_t>(i);
        });
        if (shapeInput)
        {
            auto& record = model.tensors[i];
            record.values.emplace();
            for (auto const* value : *facts.tensors.at(network.inputs()[i]).values)
            {
                record.values->push_back(exprTable.add(*facts.exprs->adopt(value)));
            }
        }
        model.ioTensors.push_back(static_cast<int32_t>(i));
    }
    for (Tensor const* output : network.outputs())
    {
        if (!output->isNetworkInput())
        {
            model.ioTensors.push_back(tensorIndex.at(output));
        }
    }

    // Layers, each after the producers of its inputs.
    for (network::Layer const* layer : order)
    {
        plan::LayerRecord record;
        record.type = layer->params().type();
        record.name = layer->name();
        for (Tensor const* input : layer->inputs())
        {
            record.inputs.push_back(input ? tensorIndex.at(input) : -1);
        }
        for (Tensor const* output : layer->outputs())
        {
            record.outputs.push_back(tensorIndex.at(output));
        }
        plan::ByteWriter params;
        if (auto const* plugin = dynamic_cast<network::PluginParams const*>(&layer->params()))
        {
            network::PluginParams prepared = *plugin;
            auto describeTensors = [&](std::vector<Tensor*> const& list) {
                std::vector<PluginTensorInfo> infos;
                for (Tensor const* tensor : list)
                {
                    int32_t const t = tensorIndex.at(tensor);
                    network::TensorFacts const& tf = facts.tensors.at(tensor);
                    nvinfer1::Dims dims{};
                    dims.nbDims = tf.dims.nbDims;
                    for (int32_t axis = 0; axis < dims.nbDims; ++axis)
                    {
                        dims.d[axis] = tf.dims.d[axis]->isConstant() ? tf.dims.d[axis]->getConstantValue() : -1;
                    }
                    infos.push_back({precision.storage.at(tensor), dims, evaluated[t]});
                }
                return infos;
            };
            std::string pluginError;
            if (!preparePlugin(prepared, describeTensors(layer->inputs()), describeTensors(layer->outputs()),
                    config.getFlag(nvinfer1::BuilderFlag::kFP16), backend, pluginError))
            {
                logError("IBuilder::buildSerializedNetwork: layer \"" + layer->name() + "\": " + pluginError);
                return nullptr;
            }
            uint64_t const workspaceLimit = config.getMemoryPoolLimit(nvinfer1::MemoryPoolType::kWORKSPACE);
            if (static_cast<uint64_t>(prepared.workspaceBytes) > workspaceLimit)
            {
                logError("IBuilder::buildSerializedNetwork: layer \"" + layer->name() + "\": plugin "
                    + prepared.adapter->description() + " needs " + std::to_string(prepared.workspaceBytes)
                    + " bytes of workspace (getWorkspaceSize), more than the workspace pool's limit of "
                    + std::to_string(workspaceLimit)
                    + " bytes; raise it with IBuilderConfig::setMemoryPoolLimit(MemoryPoolType::kWORKSPACE, ...)");
                return nullptr;
            }
            plugin::CreatorMatch const creator = plugin::globalPluginRegistry().findCreator(
                prepared.payload.name, prepared.payload.version, prepared.payload.pluginNamespace);
            prepared.library = creator.library;
            if (creator.creator == nullptr)
            {
                logWarning("layer \"" + layer->name() + "\": plugin " + prepared.adapter->description()
                    + " has no registered creator; the plan will load only where one is registered");
            }
            model.manifest.push_back({prepared.payload.name, prepared.payload.version, prepared.payload.pluginNamespace,
                plugin::familyName(prepared.family), prepared.library});
            model.workspaceBytes = std::max(model.workspaceBytes, prepared.workspaceBytes);
            prepared.write(params);
        }
        else
        {
            // Layers that only compute shape tensors (values known from the input shapes) need no kernel: the
            // runtime evaluates their values on the host.
            bool const computesShapesOnly = std::all_of(layer->outputs().begin(), layer->outputs().end(),
                [&](Tensor const* output) { return facts.tensors.at(output).values.has_value(); });
            if (std::string const why = unsupportedOnBackend(layer->params(), backend);
                !why.empty() && !computesShapesOnly)
            {
                logError("IBuilder::buildSerializedNetwork: layer \"" + layer->name() + "\": " + why);
                return nullptr;
            }
            record.precision = precision.precisionOf(*layer);
            if (record.precision == nvinfer1::DataType::kHALF || record.precision == nvinfer1::DataType::kBF16)
            {
                std::unique_ptr<network::LayerParams> reduced = layer->params().clone();
                reduced->storeWeightsAs(*record.precision);
                reduced->write(params);
            }
            else
            {
                layer->params().write(params);
            }
            record.ioTypes = precision.ioTypes(*layer);
        }
        record.params = params.take();
        model.layers.push_back(std::move(record));
    }
    if (!progress.step())
    {
        logError("IBuilder::buildSerializedNetwork: cancelled by the progress monitor");
        return nullptr;
    }

    if (backend == Backend::kCUDA)
    {
        fuseConvolutionEpilogues(model);
        std::string const device = cudaDeviceIdentity();
        TimingCache buildCache(device); // this build's own, where the application gave none or disabled sharing
        bool const shared = config.timingCache() != nullptr && !config.getFlag(nvinfer1::BuilderFlag::kDISABLE_TIMING_CACHE);
        std::string noTimer;
        std::unique_ptr<CudaConvolutionTimer> const timer = makeCudaConvolutionTimer(allocator, noTimer);
        if (timer == nullptr)
        {
            logInfo("Convolution algorithms are not timed (" + noTimer
                + "); cuDNN's heuristics choose them when a context first runs");
        }
        ConvolutionTuning const tuning{shared ? *config.timingCache() : buildCache, timer.get(), device,
            config.getMemoryPoolLimit(nvinfer1::MemoryPoolType::kWORKSPACE),
            config.getFlag(nvinfer1::BuilderFlag::kERROR_ON_TIMING_CACHE_MISS)};
        auto optShape = [&](int32_t tensor) {
            nvinfer1::Dims const& dims = evaluated[tensor][0][1];
            return cpu::Shape(dims.d, dims.d + dims.nbDims);
        };
        std::string tuningError;
        if (!tuneConvolutions(model, optShape, tuning, tuningError))
        {
            logError("IBuilder::buildSerializedNetwork: " + tuningError);
            return nullptr;
        }
    }

    // Pass 5: activation memory. Step s is layer s; I/O tensors live in the application's buffers.
    std::vector<BufferRequest> requests;
    std::vector<size_t> requestTensor;
    for (size_t t = 0; t < model.tensors.size(); ++t)
    {
        // A shape-tensor input lives in host memory (as in TensorRT); a CUDA plan's layers read a device copy of its
        // values, which the context writes into activation memory before the first layer runs.
        bool const deviceCopyOfShapeInput = backend == Backend::kCUDA && model.tensors[t].values.has_value()
            && model.tensors[t].ioMode == nvinfer1::TensorIOMode::kINPUT;
        if (model.tensors[t].ioMode != nvinfer1::TensorIOMode::kNONE && !deviceCopyOfShapeInput)
        {
            continue;
        }
        BufferRequest request{maxBytes[t], deviceCopyOfShapeInput ? 0 : -1, deviceCopyOfShapeInput ? 0 : -1};
        for (size_t s = 0; s < model.layers.size(); ++s)
        {
            auto const& layer = model.layers[s];
            bool const writes = std::count(layer.outputs.begin(), layer.outputs.end(), static_cast<int32_t>(t)) > 0;
            bool const reads = std::count(layer.inputs.begin(), layer.inputs.end(), static_cast<int32_t>(t)) > 0;
            if (writes && request.firstStep < 0)
            {
                request.firstStep = static_cast<int32_t>(s);
            }
            if (writes || reads)
            {
                request.lastStep = static_cast<int32_t>(s);
            }
        }
        if (request.lastStep < 0)
        {
            continue; // read and written by no layer: an intermediate tensor of a fused chain
        }
        requests.push_back(request);
        requestTensor.push_back(t);
    }
    MemoryPlan const memory = planMemory(requests);
    for (size_t r = 0; r < requests.size(); ++r)
    {
        model.tensors[requestTensor[r]].arenaOffset = memory.offsets[r];
    }
    model.arenaBytes = memory.totalBytes;
    if (!progress.step())
    {
        logError("IBuilder::buildSerializedNetwork: cancelled by the progress monitor");
        return nullptr;
    }

    logInfo("Built a plan for the " + std::string(backendName(backend)) + " backend: "
        + std::to_string(model.layers.size()) + " layers, " + std::to_string(model.arenaBytes)
        + " bytes of activation memory");
    return std::make_unique<HostMemory>(plan::writePlan(model));
}

} // namespace kiln::builder
