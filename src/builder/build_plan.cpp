#include "builder/build_plan.h"

#include "backend/choice/backends.h"
#include "builder/calibration.h"
#include "builder/conditional_guards.h"
#include "builder/constant_folding.h"
#include "builder/fixed_slice_parameters.h"
#include "builder/implicit_quantization.h"
#include "builder/constant_storage.h"
#include "builder/memory_plan.h"
#include "builder/precision.h"
#include "builder/plugin_scales.h"
#include "builder/prepare_plugin.h"
#include "builder/repeated_layers.h"
#include "builder/residual_buffers.h"
#include "builder/view_layers.h"
#include "core/checked_size.h"
#include "core/data_type.h"
#include "core/dims_text.h"
#include "core/host_memory.h"
#include "core/logging.h"
#include "plan/expr_table.h"
#include "network/layers/loop.h"
#include "network/plugin_layer.h"
#include "network/shape_tensor_inputs.h"
#include "plan/plan_format.h"
#include "plan/plan_graph.h"
#include "plan/plan_loops.h"
#include "plugin/registry.h"
#include "shape/evaluate.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

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

//! One build: the network, the configuration, and what each pass leaves for the next.
class PlanBuilder
{
public:
    PlanBuilder(Network& network, BuilderConfig& config, nvinfer1::IGpuAllocator* allocator, bool calibration)
        : mNetwork(network)
        , mConfig(config)
        , mAllocator(allocator)
        , mCalibrationPlan(calibration)
        , mBackend(config.backend() == Backend::kDEFAULT ? defaultBackend() : config.backend())
        , mImplementation(backend::implementation(mBackend))
    {
    }

    std::unique_ptr<nvinfer1::IHostMemory> build()
    {
        if (!checkNetwork() || !quantizationScales())
        {
            return nullptr;
        }
        Progress progress(mConfig.getProgressMonitor(), "Building plan", 4);
        auto step = [&] {
            if (progress.step())
            {
                return true;
            }
            logError("IBuilder::buildSerializedNetwork: cancelled by the progress monitor");
            return false;
        };
        if (!inferShapes() || !step() || !evaluateShapes() || !step() || !recordTensors() || !recordLayers()
            || !orderLoops() || !step())
        {
            return nullptr;
        }
        foldConstantLayers();
        quantizeLayers();
        if (!optimizeForBackend() || !orderLoops())
        {
            return nullptr;
        }
        assignGuards(mModel);
        markViewLayers();
        if (!planActivationMemory())
        {
            return nullptr;
        }
        recordRefittableWeights();
        if (!recordDebugTensors() || !step())
        {
            return nullptr;
        }
        logInfo("Built a plan for the " + std::string(backendName(mBackend))
            + " backend: " + std::to_string(mModel.layers.size()) + " layers, " + std::to_string(mModel.arenaBytes)
            + " bytes of activation memory");
        return std::make_unique<HostMemory>(plan::writePlan(mModel));
    }

private:
    //! Pass 1: the backend exists in this build, and the network has outputs and unique I/O names.
    bool checkNetwork()
    {
        if (mConfig.backend() == Backend::kDEFAULT && !backend::environmentBackend())
        {
            logError(std::string("IBuilder::buildSerializedNetwork: the environment variable ")
                + backend::kBackendVariable + " is \"" + std::getenv(backend::kBackendVariable)
                + "\", which names no backend: set it to cpu or cuda, or leave it unset for the machine's default");
            return false;
        }
        if (mImplementation == nullptr)
        {
            logError("IBuilder::buildSerializedNetwork: this build of Kiln has no CUDA backend (it was built without "
                     "CUDA); build for the CPU backend (kiln::setBackend(config, kiln::Backend::kCPU))");
            return false;
        }
        if (mNetwork.outputs().empty())
        {
            logError("IBuilder::buildSerializedNetwork: the network has no outputs; mark at least one with markOutput");
            return false;
        }
        std::set<std::string> ioNames;
        for (auto const* list : {&mNetwork.inputs(), &mNetwork.outputs()})
        {
            for (Tensor const* tensor : *list)
            {
                if (tensor->isNetworkInput() && tensor->isNetworkOutput() && list == &mNetwork.outputs())
                {
                    continue;
                }
                if (!ioNames.insert(tensor->name()).second)
                {
                    logError("IBuilder::buildSerializedNetwork: two input/output tensors are named \"" + tensor->name()
                        + "\"; I/O tensor names must be unique");
                    return false;
                }
            }
        }
        if (mConfig.getFlag(nvinfer1::BuilderFlag::kSTRIP_PLAN))
        {
            logWarning("IBuilder::buildSerializedNetwork: BuilderFlag::kSTRIP_PLAN: Kiln's plans keep their weights "
                       "(it writes no weight-stripped plans yet); the plan is complete and can be refitted as a "
                       "stripped plan can");
        }
        return true;
    }

    //! Pass 2: every tensor's shape (symbolically) and type.
    bool inferShapes()
    {
        std::string error;
        if (!mNetwork.inferAll(mFacts, error, network::InferencePhase::kBUILDING))
        {
            logError("IBuilder::buildSerializedNetwork: " + error);
            return false;
        }
        return true;
    }

    //! Pass 3: the profiles, the layer order, the precisions, and every shape at each profile's min, opt and max,
    //! so that a shape error names its layer at build time.
    bool evaluateShapes()
    {
        mModel.backend = mBackend;
        mModel.networkName = mNetwork.getName();
        if (!resolveProfiles(mNetwork, mConfig, mModel.profiles) || !orderLayers())
        {
            return false;
        }
        mMaxBytes.assign(mTensors.size(), 0);
        mEvaluated.assign(mTensors.size(), std::vector<std::array<nvinfer1::Dims, 3>>(mModel.profiles.size()));
        for (size_t p = 0; p < mModel.profiles.size(); ++p)
        {
            for (int32_t select = 0; select < 3; ++select)
            {
                if (!evaluateShapesAt(p, select))
                {
                    return false;
                }
            }
        }
        return true;
    }

    //! The layers in topological order and their precisions; the plan's tensors in plan order, and their producers.
    bool orderLayers()
    {
        std::string error;
        for (Tensor const* input : mNetwork.inputs())
        {
            mTensors.push_back(input);
        }
        if (!mNetwork.topologicalOrder(mOrder, error))
        {
            logError("IBuilder::buildSerializedNetwork: " + error);
            return false;
        }
        if (!choosePrecisions(mNetwork, mOrder, mFacts, mConfig, mPrecision, error))
        {
            logError("IBuilder::buildSerializedNetwork: " + error);
            return false;
        }
        for (network::Layer const* layer : mOrder)
        {
            for (Tensor const* output : layer->outputs())
            {
                mTensors.push_back(output);
                mProducers[output] = layer;
            }
        }
        return true;
    }

    //! The values of the inputs' symbols at profile p's kMIN, kOPT or kMAX (`select`): their dimensions, and the
    //! shape values the profile gives. `unboundShapeInputs` lists the shape-tensor inputs it gives none for.
    shape::SymbolValues inputSymbolValues(size_t p, int32_t select, std::string& unboundShapeInputs) const
    {
        shape::SymbolValues values;
        for (size_t i = 0; i < mNetwork.inputs().size(); ++i)
        {
            Tensor const* input = mNetwork.inputs()[i];
            auto const& symbols = mFacts.inputSymbols.at(input);
            nvinfer1::Dims const& dims = mModel.profiles[p].inputs[i][select];
            for (size_t axis = 0; axis < symbols.size(); ++axis)
            {
                if (symbols[axis] != nullptr)
                {
                    values.set(symbols[axis]->symbolId(), dims.d[axis]);
                }
            }
            auto const valueSymbols = mFacts.inputValueSymbols.find(input);
            if (valueSymbols == mFacts.inputValueSymbols.end())
            {
                continue;
            }
            std::optional<std::vector<int64_t>> const given = shapeValuesOf(mConfig, p, input->name(), select);
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
        return values;
    }

    //! Every tensor's dimensions at profile p's kMIN, kOPT or kMAX (`select`), and the largest size of each so far.
    bool evaluateShapesAt(size_t p, int32_t select)
    {
        std::string unboundShapeInputs; // shape-tensor inputs this profile gives no values for
        shape::SymbolValues const values = inputSymbolValues(p, select, unboundShapeInputs);
        shape::Evaluator evaluator(values, shape::SizeTensorValue::kUPPER);
        for (size_t t = 0; t < mTensors.size(); ++t)
        {
            network::TensorFacts const& tf = mFacts.tensors.at(mTensors[t]);
            nvinfer1::Dims& concrete = mEvaluated[t][p][select];
            concrete.nbDims = tf.dims.nbDims;
            for (int32_t axis = 0; axis < tf.dims.nbDims; ++axis)
            {
                auto const& expr = *mFacts.exprs->adopt(tf.dims.d[axis]);
                shape::EvalResult extent = evaluator.evaluate(expr);
                if (!extent.ok() || *extent.value < 0)
                {
                    logBadExtent(t, axis, p, select, extent, unboundShapeInputs);
                    return false;
                }
                concrete.d[axis] = *extent.value;
            }
            std::optional<int64_t> const bytes = byteSizeOf(t, concrete);
            if (!bytes)
            {
                logOversized(t, p, select);
                return false;
            }
            mMaxBytes[t] = std::max(mMaxBytes[t], *bytes);
        }
        return true;
    }

    //! Tensor t's size in bytes at `dims`; none when the count or the size overflows (a model's extents, a
    //! profile's shapes): a wrapped size would plan a buffer smaller than what its layer writes.
    std::optional<int64_t> byteSizeOf(size_t t, nvinfer1::Dims const& dims) const
    {
        std::optional<int64_t> const elements = checkedElementCount(dims.d, dims.d + dims.nbDims);
        size_t const elementBytes = std::max<size_t>(elementSize(mPrecision.storage.at(mTensors[t])), 1);
        std::optional<size_t> const bytes = elements ? checkedByteSize(*elements, elementBytes) : std::nullopt;
        return bytes ? std::optional<int64_t>(static_cast<int64_t>(*bytes)) : std::nullopt;
    }

    void logOversized(size_t t, size_t p, int32_t select) const
    {
        static char const* const kSelectors[] = {"kMIN", "kOPT", "kMAX"};
        auto producer = mProducers.find(mTensors[t]);
        logError("IBuilder::buildSerializedNetwork: layer \""
            + (producer != mProducers.end() ? producer->second->name() : mTensors[t]->name()) + "\": \""
            + mTensors[t]->name() + "\" of shape " + dimsText(mEvaluated[t][p][select]) + " at profile "
            + std::to_string(p) + " " + kSelectors[select] + " holds more elements or bytes than a 64-bit size counts");
    }

    //! Reports dimension `axis` of tensor t at profile p's kMIN, kOPT or kMAX (`select`): it has no value, or a
    //! negative one.
    void logBadExtent(size_t t, int32_t axis, size_t p, int32_t select, shape::EvalResult const& extent,
        std::string const& unboundShapeInputs) const
    {
        static char const* const kSelectors[] = {"kMIN", "kOPT", "kMAX"};
        auto producer = mProducers.find(mTensors[t]);
        std::string const hint = unboundShapeInputs.empty() ? std::string()
                                                            : " (the shapes depend on the values of "
                + unboundShapeInputs + ": give them for every profile with IOptimizationProfile::setShapeValues)";
        logError("IBuilder::buildSerializedNetwork: layer \""
            + (producer != mProducers.end() ? producer->second->name() : mTensors[t]->name()) + "\": dimension "
            + std::to_string(axis) + " of \"" + mTensors[t]->name() + "\" at profile " + std::to_string(p) + " "
            + kSelectors[select] + ": "
            + (extent.ok() ? "negative (" + std::to_string(*extent.value) + ")" : extent.error) + hint);
    }

    //! The plan's tensors, their shape expressions and the symbols those use.
    bool recordTensors()
    {
        for (size_t t = 0; t < mTensors.size(); ++t)
        {
            mTensorIndex[mTensors[t]] = static_cast<int32_t>(t);
        }
        std::unordered_map<shape::SymbolId, int32_t> symbolIndex = recordDimensionSymbols();
        // An input's values are symbols of the plan only where some tensor's dimensions depend on them: then the
        // input is a shape tensor, read on the host (TensorRT's rule). An INT32/INT64 input that only feeds data
        // stays an ordinary input, read by layers from wherever its data lives, and values computed from it are
        // left to the layers (recordTensor).
        std::unordered_map<shape::SymbolId, std::pair<int32_t, int32_t>> valueSymbolOwners = inputValueOwners();
        // Those owning a value some dimension depends on: all their values count.
        std::unordered_set<Tensor const*> const shapeInputs = network::shapeTensorInputs(mFacts, mTensors);
        std::erase_if(valueSymbolOwners, [&](auto const& owner) {
            bool const dataInput = shapeInputs.count(mNetwork.inputs()[static_cast<size_t>(owner.second.first)]) == 0;
            if (dataInput)
            {
                mDataValueSymbols.insert(owner.first);
            }
            return dataInput;
        });
        plan::ExprTableWriter exprTable(mModel.exprs, [&](shape::SymbolId id) {
            if (auto it = symbolIndex.find(id); it != symbolIndex.end())
            {
                return it->second;
            }
            if (auto const source = mFacts.sizeTensorSources.find(id); source != mFacts.sizeTensorSources.end())
            {
                symbolIndex[id] = static_cast<int32_t>(mModel.symbols.size());
                mModel.symbols.push_back({mTensorIndex.at(source->second), 0, plan::SymbolRecord::Kind::kSIZE});
                return symbolIndex[id];
            }
            auto const owner = valueSymbolOwners.find(id);
            if (owner == valueSymbolOwners.end())
            {
                return -1;
            }
            symbolIndex[id] = static_cast<int32_t>(mModel.symbols.size());
            mModel.symbols.push_back({owner->second.first, owner->second.second, plan::SymbolRecord::Kind::kVALUE});
            return symbolIndex[id];
        });
        for (size_t t = 0; t < mTensors.size(); ++t)
        {
            if (!recordTensor(t, exprTable))
            {
                return false;
            }
        }
        recordIoTensors(exprTable);
        return true;
    }

    //! The plan's symbols for the inputs' dimensions; the index of each.
    std::unordered_map<shape::SymbolId, int32_t> recordDimensionSymbols()
    {
        std::unordered_map<shape::SymbolId, int32_t> symbolIndex;
        for (size_t i = 0; i < mNetwork.inputs().size(); ++i)
        {
            auto const& symbols = mFacts.inputSymbols.at(mNetwork.inputs()[i]);
            for (size_t axis = 0; axis < symbols.size(); ++axis)
            {
                if (symbols[axis] != nullptr)
                {
                    symbolIndex[symbols[axis]->symbolId()] = static_cast<int32_t>(mModel.symbols.size());
                    mModel.symbols.push_back({static_cast<int32_t>(i), static_cast<int32_t>(axis)});
                }
            }
        }
        return symbolIndex;
    }

    //! Adds to `found` the symbols among `candidates` that `expr` refers to.
    template <typename Candidates>
    static void collectSymbols(shape::Expr const& expr, Candidates const& candidates,
        std::unordered_set<shape::SymbolId>& found, std::unordered_set<shape::Expr const*>& visited)
    {
        if (!visited.insert(&expr).second)
        {
            return;
        }
        if (expr.kind() == shape::ExprKind::kSYMBOL && candidates.count(expr.symbolId()))
        {
            found.insert(expr.symbolId());
        }
        if (expr.kind() == shape::ExprKind::kOPERATION || expr.kind() == shape::ExprKind::kSIZE_TENSOR)
        {
            collectSymbols(expr.first(), candidates, found, visited);
            collectSymbols(expr.second(), candidates, found, visited);
        }
    }

    //! Whether `values` depend on no data input's values (only on shapes and shape-tensor inputs): else the plan
    //! leaves them to the layers that compute them.
    bool knownFromShapes(std::vector<nvinfer1::IDimensionExpr const*> const& values) const
    {
        std::unordered_set<shape::SymbolId> referenced;
        std::unordered_set<shape::Expr const*> visited;
        for (auto const* value : values)
        {
            collectSymbols(*mFacts.exprs->adopt(value), mDataValueSymbols, referenced, visited);
        }
        return referenced.empty();
    }

    //! The input, and the index among its values, of every shape-tensor input's value symbol.
    std::unordered_map<shape::SymbolId, std::pair<int32_t, int32_t>> inputValueOwners() const
    {
        std::unordered_map<shape::SymbolId, std::pair<int32_t, int32_t>> owners;
        for (size_t i = 0; i < mNetwork.inputs().size(); ++i)
        {
            auto const it = mFacts.inputValueSymbols.find(mNetwork.inputs()[i]);
            for (size_t v = 0; it != mFacts.inputValueSymbols.end() && v < it->second.size(); ++v)
            {
                owners[it->second[v]->symbolId()] = {static_cast<int32_t>(i), static_cast<int32_t>(v)};
            }
        }
        return owners;
    }

    bool recordTensor(size_t t, plan::ExprTableWriter& exprTable)
    {
        network::TensorFacts const& tf = mFacts.tensors.at(mTensors[t]);
        plan::TensorRecord record;
        record.name = mTensors[t]->name();
        record.type = mPrecision.storage.at(mTensors[t]);
        for (int32_t axis = 0; axis < tf.dims.nbDims; ++axis)
        {
            record.dims.push_back(exprTable.add(*mFacts.exprs->adopt(tf.dims.d[axis])));
        }
        // Inputs' values: recordIoTensors, once their use is known.
        if (tf.values && !mTensors[t]->isNetworkInput() && knownFromShapes(*tf.values))
        {
            record.values.emplace();
            for (auto const* value : *tf.values)
            {
                record.values->push_back(exprTable.add(*mFacts.exprs->adopt(value)));
            }
        }
        if (!exprTable.error().empty())
        {
            logError("IBuilder::buildSerializedNetwork: tensor \"" + record.name + "\": " + exprTable.error());
            return false;
        }
        record.ioMode = mTensors[t]->isNetworkInput() ? nvinfer1::TensorIOMode::kINPUT
            : mTensors[t]->isNetworkOutput()          ? nvinfer1::TensorIOMode::kOUTPUT
                                                      : nvinfer1::TensorIOMode::kNONE;
        record.debug = mTensors[t]->isDebug() ? plan::DebugMark::kMARKED : plan::DebugMark::kNONE;
        record.maxBytes = mMaxBytes[t];
        mModel.tensors.push_back(std::move(record));
        return true;
    }

    //! The I/O tensors, and the values of the inputs that are shape tensors.
    void recordIoTensors(plan::ExprTableWriter& exprTable)
    {
        for (size_t i = 0; i < mNetwork.inputs().size(); ++i)
        {
            bool const shapeInput
                = std::any_of(mModel.symbols.begin(), mModel.symbols.end(), [&](plan::SymbolRecord const& s) {
                      return s.kind == plan::SymbolRecord::Kind::kVALUE && s.tensor == static_cast<int32_t>(i);
                  });
            if (shapeInput)
            {
                auto& record = mModel.tensors[i];
                record.values.emplace();
                for (auto const* value : *mFacts.tensors.at(mNetwork.inputs()[i]).values)
                {
                    record.values->push_back(exprTable.add(*mFacts.exprs->adopt(value)));
                }
            }
            mModel.ioTensors.push_back(static_cast<int32_t>(i));
        }
        for (Tensor const* output : mNetwork.outputs())
        {
            if (!output->isNetworkInput())
            {
                mModel.ioTensors.push_back(mTensorIndex.at(output));
            }
        }
    }

    //! The plan's layers, each after the producers of its inputs; plugins are prepared here (format negotiation,
    //! configuration, workspace sizes).
    bool recordLayers()
    {
        for (network::Layer const* layer : mOrder)
        {
            if (layer->params().type() == nvinfer1::LayerType::kCONDITION)
            {
                continue; // the conditional's outputs read the condition
            }
            plan::LayerRecord record;
            record.type = layer->params().type();
            record.name = layer->name();
            for (Tensor const* input : layer->inputs())
            {
                record.inputs.push_back(input ? mTensorIndex.at(input) : -1);
            }
            for (Tensor const* output : layer->outputs())
            {
                record.outputs.push_back(mTensorIndex.at(output));
            }
            auto const* plugin = dynamic_cast<network::PluginParams const*>(&layer->params());
            if (auto const* recurrence = dynamic_cast<network::RecurrenceLayer const*>(layer);
                recurrence != nullptr && !recordNextValue(*recurrence, record))
            {
                return false;
            }
            if (plan::isConditionalOutput(record) || plan::isLoopBoundary(record))
            {
                record.params = layer->params().clone(); // run by the execution context, in the tensors' types
            }
            else if (plugin != nullptr ? !recordPluginLayer(*layer, *plugin, record)
                                       : !recordKernelLayer(*layer, record))
            {
                return false;
            }
            mModel.layers.push_back(std::move(record));
        }
        return true;
    }

    //! A recurrence's next value, which the network keeps out of its inputs (it is the loop's back edge), becomes its
    //! record's input 1; it must have the initial value's shape at every profile's min, opt and max.
    bool recordNextValue(network::RecurrenceLayer const& layer, plan::LayerRecord& record) const
    {
        Tensor const* next = layer.nextValue();
        if (next == nullptr)
        {
            logError("IBuilder::buildSerializedNetwork: recurrence \"" + layer.name()
                + "\" has no next value: set it with IRecurrenceLayer::setInput(1, ...)");
            return false;
        }
        int32_t const initial = mTensorIndex.at(layer.inputs()[0]);
        int32_t const nextIndex = mTensorIndex.at(next);
        for (size_t p = 0; p < mEvaluated[static_cast<size_t>(initial)].size(); ++p)
        {
            for (size_t select = 0; select < 3; ++select)
            {
                nvinfer1::Dims const& a = mEvaluated[static_cast<size_t>(initial)][p][select];
                nvinfer1::Dims const& b = mEvaluated[static_cast<size_t>(nextIndex)][p][select];
                if (dimsText(a) != dimsText(b) || next->getType() != layer.inputs()[0]->getType())
                {
                    logError("IBuilder::buildSerializedNetwork: recurrence \"" + layer.name() + "\": its next value \""
                        + next->name() + "\" (" + dataTypeName(next->getType()) + " " + dimsText(b)
                        + ") must have its initial value's type and shape ("
                        + dataTypeName(layer.inputs()[0]->getType()) + " " + dimsText(a) + ")");
                    return false;
                }
            }
        }
        record.inputs.push_back(nextIndex);
        return true;
    }

    //! Each loop's layers in one range, checked against TensorRT's rules for loops (plan/plan_loops.h): after
    //! recording, and again after the backend's passes, which know nothing of loops.
    bool orderLoops()
    {
        std::string error;
        if (!plan::orderLoops(mModel, error))
        {
            logError("IBuilder::buildSerializedNetwork: " + error);
            return false;
        }
        return true;
    }

    //! What a plugin learns of the tensors in `list` while it is prepared.
    std::vector<PluginTensorInfo> pluginTensorInfos(std::vector<Tensor*> const& list) const
    {
        std::vector<PluginTensorInfo> infos;
        for (Tensor const* tensor : list)
        {
            int32_t const t = mTensorIndex.at(tensor);
            network::TensorFacts const& tf = mFacts.tensors.at(tensor);
            nvinfer1::Dims dims{};
            dims.nbDims = tf.dims.nbDims;
            for (int32_t axis = 0; axis < dims.nbDims; ++axis)
            {
                dims.d[axis] = tf.dims.d[axis]->isConstant() ? tf.dims.d[axis]->getConstantValue() : -1;
            }
            nvinfer1::DataType const type = mPrecision.storage.at(tensor);
            infos.push_back({type, dims, mEvaluated[t], pluginTensorScale(*tensor, type, mOrder)});
        }
        return infos;
    }

    //! What times plugins' tactics in this build's backend, made when the first plugin is prepared; nullptr where the
    //! backend cannot run here.
    backend::PluginTimer* pluginTimer()
    {
        if (!mPluginTimerMade && mImplementation != nullptr)
        {
            std::string why;
            mPluginTimer = mImplementation->makePluginTimer(why);
            mPluginTimerMade = true;
        }
        return mPluginTimer.get();
    }

    //! Prepares the plugin (format negotiation, configuration, workspace size) and adds it to the plan's manifest.
    bool recordPluginLayer(network::Layer const& layer, network::PluginParams const& plugin, plan::LayerRecord& record)
    {
        network::PluginParams prepared = plugin;
        std::string pluginError;
        PluginBuildOptions options;
        options.preferHalf = mConfig.getFlag(nvinfer1::BuilderFlag::kFP16);
        options.backend = mBackend;
        options.aliasedIo = mConfig.getPreviewFeature(nvinfer1::PreviewFeature::kALIASED_PLUGIN_IO_10_03);
        options.timer = pluginTimer();
        if (!preparePlugin(
                prepared, pluginTensorInfos(layer.inputs()), pluginTensorInfos(layer.outputs()), options, pluginError))
        {
            logError("IBuilder::buildSerializedNetwork: layer \"" + layer.name() + "\": " + pluginError);
            return false;
        }
        uint64_t const workspaceLimit = mConfig.getMemoryPoolLimit(nvinfer1::MemoryPoolType::kWORKSPACE);
        if (static_cast<uint64_t>(prepared.workspaceBytes) > workspaceLimit)
        {
            logError("IBuilder::buildSerializedNetwork: layer \"" + layer.name() + "\": plugin "
                + prepared.adapter->description() + " needs " + std::to_string(prepared.workspaceBytes)
                + " bytes of workspace (getWorkspaceSize), more than the workspace pool's limit of "
                + std::to_string(workspaceLimit)
                + " bytes; raise it with IBuilderConfig::setMemoryPoolLimit(MemoryPoolType::kWORKSPACE, ...)");
            return false;
        }
        plugin::CreatorMatch const creator = plugin::globalPluginRegistry().findCreator(
            prepared.payload.name, prepared.payload.version, prepared.payload.pluginNamespace);
        prepared.library = creator.library;
        if (creator.creator == nullptr)
        {
            logWarning("layer \"" + layer.name() + "\": plugin " + prepared.adapter->description()
                + " has no registered creator; the plan will load only where one is registered");
        }
        mModel.manifest.push_back({prepared.payload.name, prepared.payload.version, prepared.payload.pluginNamespace,
            plugin::familyName(prepared.family), prepared.library});
        mModel.workspaceBytes = std::max(mModel.workspaceBytes, prepared.workspaceBytes);
        record.params = std::make_shared<network::PluginParams>(std::move(prepared));
        return true;
    }

    //! A layer the backend runs itself: its precision, parameters (weights stored in that precision) and I/O types.
    bool recordKernelLayer(network::Layer const& layer, plan::LayerRecord& record)
    {
        // Layers that only compute INT32/INT64 shape tensors (values known from the input shapes) need no kernel:
        // the runtime evaluates their values on the host (plan::computesShapesOnly).
        bool const computesShapesOnly
            = std::all_of(layer.outputs().begin(), layer.outputs().end(), [&](Tensor const* output) {
                  plan::TensorRecord const& tensor = mModel.tensors[static_cast<size_t>(mTensorIndex.at(output))];
                  return tensor.values.has_value() && isIndexType(tensor.type);
              });
        if (std::string const why = mImplementation->unsupportedReason(layer.params());
            !why.empty() && !computesShapesOnly)
        {
            logError("IBuilder::buildSerializedNetwork: layer \"" + layer.name() + "\": " + why);
            return false;
        }
        record.precision = mPrecision.precisionOf(layer);
        std::unique_ptr<network::LayerParams> params = layer.params().clone();
        if (record.precision == nvinfer1::DataType::kHALF || record.precision == nvinfer1::DataType::kBF16)
        {
            params->storeWeightsAs(*record.precision);
        }
        markRefittableWeights(layer, *params);
        record.params = std::move(params);
        record.ioTypes = mPrecision.ioTypes(layer);
        return true;
    }

    //! Marks the weights of `params` (layer's, copied for the plan) that a refitter may replace: every floating-point
    //! weight with BuilderFlag::kREFIT (or kREFIT_IDENTICAL, or kSTRIP_PLAN alone: TensorRT makes a weight-stripped
    //! plan refittable with the build's weights), those markWeightsRefittable named with kREFIT_INDIVIDUAL. Weights
    //! whose values the build computed with (some shape depends on them) are not.
    void markRefittableWeights(network::Layer const& layer, network::LayerParams& params) const
    {
        bool const individual = mConfig.getFlag(nvinfer1::BuilderFlag::kREFIT_INDIVIDUAL);
        bool const all = mConfig.getFlag(nvinfer1::BuilderFlag::kREFIT)
            || mConfig.getFlag(nvinfer1::BuilderFlag::kREFIT_IDENTICAL)
            || (mConfig.getFlag(nvinfer1::BuilderFlag::kSTRIP_PLAN) && !individual);
        if ((!all && !individual)
            || std::any_of(layer.outputs().begin(), layer.outputs().end(),
                [this](Tensor const* output) { return shapesMayDependOn(output); }))
        {
            return;
        }
        for (nvinfer1::WeightsRole role : network::kWeightsRoles)
        {
            network::WeightsBuffer* weights = params.weightsOfRole(role);
            if (weights == nullptr || weights->empty() || !isFloatType(weights->type()))
            {
                continue;
            }
            std::string const& name = mNetwork.weightsName(weights->source());
            if (all || (!name.empty() && mNetwork.weightsMarkedRefittable(name)))
            {
                weights->refit = network::RefitIdentity{name, layer.name(), role};
            }
        }
    }

    //! Whether some shape may depend on the values of `tensor`: they are read as a layer's parameter (a resize's
    //! scales), or flow, through layers the build computes values of, into integers (which shapes take) or such a
    //! parameter. Values that flow only into floats (a constant reshaped) leave every shape alone, and so does a shape
    //! layer, which reads its input's extents only (ViT's patch convolution is followed by one).
    bool shapesMayDependOn(Tensor const* tensor) const
    {
        for (network::Layer const* reader : mOrder)
        {
            for (size_t i = 0; i < reader->inputs().size(); ++i)
            {
                if (reader->inputs()[i] != tensor || reader->params().type() == nvinfer1::LayerType::kSHAPE)
                {
                    continue;
                }
                if (reader->params().isParameterInput(i))
                {
                    return true;
                }
                for (Tensor const* output : reader->outputs())
                {
                    network::TensorFacts const& facts = mFacts.tensors.at(output);
                    if (facts.values && (isIndexType(facts.type) || shapesMayDependOn(output)))
                    {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    //! The plan's list of refittable weights, once the passes have placed every layer.
    void recordRefittableWeights()
    {
        for (size_t l = 0; l < mModel.layers.size(); ++l)
        {
            for (nvinfer1::WeightsRole role : network::kWeightsRoles)
            {
                network::LayerParams const* params = mModel.layers[l].params.get();
                network::WeightsBuffer const* weights = params != nullptr ? params->weightsOfRole(role) : nullptr;
                if (weights != nullptr && weights->refit)
                {
                    mModel.refittable.push_back(
                        plan::RefitRecord{weights->refit->name, weights->refit->layer, static_cast<int32_t>(l), role});
                }
            }
        }
    }

    //! Pass 4: slices' constant starts and strides made parameters (fixed_slice_parameters.h), layers that read only
    //! constants replaced by the constants they compute (constant_folding.h), repeated layers merged
    //! (repeated_layers.h), and constants stored in the type their readers read (constant_storage.h), for every
    //! backend, before its own passes see the plan.
    void foldConstantLayers()
    {
        if (size_t const slices = fixSliceParameters(mModel); slices > 0)
        {
            logInfo("Slices: " + std::to_string(slices) + " take their constant start and stride as parameters");
        }
        FoldingResult const folding = foldConstants(mModel);
        if (folding.folded > 0)
        {
            logInfo("Constant folding: " + std::to_string(folding.folded) + " layers computed at build time, "
                + std::to_string(folding.removed) + " layers no longer read removed");
        }
        if (size_t const merged = mergeRepeatedLayers(mModel); merged > 0)
        {
            logInfo("Repeated layers: " + std::to_string(merged) + " merged into earlier layers computing the same");
        }
        if (size_t const converted = storeConstantsAsRead(mModel); converted > 0)
        {
            logInfo("Constants: " + std::to_string(converted) + " stored in the precision their readers compute in");
        }
    }

    //! Pass 1b: with kINT8, the tensors' INT8 scales for implicit quantization: the calibrator's (its cache, or a
    //! calibration run), overridden by the ranges set with setDynamicRange. A network of Q/DQ layers is explicitly
    //! quantized: dynamic ranges are refused with it, as TensorRT refuses them, and a calibrator is not called.
    bool quantizationScales()
    {
        if (mCalibrationPlan || !mConfig.getFlag(nvinfer1::BuilderFlag::kINT8))
        {
            return true;
        }
        std::vector<nvinfer1::ITensor const*> ranged;
        bool explicitlyQuantized = false;
        for (int32_t i = 0; i < mNetwork.getNbInputs(); ++i)
        {
            if (mNetwork.getInput(i)->dynamicRangeIsSet())
            {
                ranged.push_back(mNetwork.getInput(i));
            }
        }
        for (int32_t l = 0; l < mNetwork.getNbLayers(); ++l)
        {
            nvinfer1::ILayer const* layer = mNetwork.getLayer(l);
            explicitlyQuantized = explicitlyQuantized || layer->getType() == nvinfer1::LayerType::kQUANTIZE
                || layer->getType() == nvinfer1::LayerType::kDEQUANTIZE;
            for (int32_t o = 0; o < layer->getNbOutputs(); ++o)
            {
                if (layer->getOutput(o)->dynamicRangeIsSet())
                {
                    ranged.push_back(layer->getOutput(o));
                }
            }
        }
        if (explicitlyQuantized)
        {
            return checkExplicitQuantization(ranged);
        }
        std::unordered_map<std::string, float> scales;
        if (mConfig.getInt8Calibrator() != nullptr && !calibrate(mNetwork, mConfig, *mImplementation, scales))
        {
            return false;
        }
        for (nvinfer1::ITensor const* tensor : ranged)
        {
            float const range
                = std::max(std::fabs(tensor->getDynamicRangeMin()), std::fabs(tensor->getDynamicRangeMax()));
            scales[tensor->getName()] = range / 127.0F;
        }
        if (scales.empty())
        {
            logInfo("INT8: no tensor has a dynamic range (setDynamicRange or a calibrator): the network computes in "
                    "floating point");
            return true;
        }
        mScales = std::move(scales);
        return true;
    }

    //! A Q/DQ network with kINT8: no dynamic range may be set; a calibrator is left uncalled.
    bool checkExplicitQuantization(std::vector<nvinfer1::ITensor const*> const& ranged) const
    {
        if (!ranged.empty())
        {
            logError(std::string("IBuilder::buildSerializedNetwork: the network has quantize/dequantize layers "
                                 "(explicit quantization) and tensor \"")
                + ranged.front()->getName()
                + "\" has a dynamic range (implicit quantization); TensorRT refuses networks that mix them: remove "
                  "the ranges (ITensor::resetDynamicRange) or the quantize/dequantize layers");
            return false;
        }
        if (mConfig.getInt8Calibrator() != nullptr)
        {
            logWarning("IBuilder::buildSerializedNetwork: the network has quantize/dequantize layers (explicit "
                       "quantization); the INT8 calibrator is not used");
        }
        return true;
    }

    //! Pass 4b: implicit quantization (implicit_quantization.h), where pass 1b found scales.
    void quantizeLayers()
    {
        if (!mScales)
        {
            return;
        }
        ImplicitQuantization const result = quantizeImplicitly(mModel, *mScales);
        for (auto const& [added, shapedAs] : result.addedTensors)
        {
            // A scale is a scalar at every profile; the others have the shapes of the tensors they quantize.
            mEvaluated.resize(std::max(mEvaluated.size(), static_cast<size_t>(added) + 1));
            mEvaluated[static_cast<size_t>(added)] = shapedAs >= 0
                ? mEvaluated[static_cast<size_t>(shapedAs)]
                : std::vector<std::array<nvinfer1::Dims, 3>>(mModel.profiles.size());
        }
        for (std::string const& why : result.unquantized)
        {
            logWarning("INT8: layer " + why + "; it computes in floating point");
        }
        logInfo("INT8: " + std::to_string(result.quantizedLayers)
            + " convolutions and matrix multiplies quantized implicitly (Q/DQ of their inputs, weights per channel)");
    }

    //! Pass 5: the backend's own passes (the CUDA backend's fusions, storage formats and algorithm timing).
    bool optimizeForBackend()
    {
        std::string error;
        if (!mImplementation->optimize(mModel, passOptions(), error))
        {
            logError("IBuilder::buildSerializedNetwork: " + error);
            return false;
        }
        return true;
    }

    //! Pass 5b: the layers that only re-describe memory become views of their inputs (builder/view_layers.h), where
    //! the backend makes them.
    void markViewLayers()
    {
        if (!mImplementation->makesViews(passOptions()))
        {
            return;
        }
        if (size_t const views = markViews(mModel); views > 0)
        {
            logInfo(
                "Views: " + std::to_string(views) + " reshapes, slices and gathers read their input's memory in place");
        }
    }

    //! What the backend's passes may use besides the plan.
    backend::PassOptions passOptions() const
    {
        backend::PassOptions options;
        options.convolutionLayout = mConfig.convolutionLayout();
        options.cpuKernels = mConfig.cpuKernels();
        if (!mConfig.getFlag(nvinfer1::BuilderFlag::kDISABLE_TIMING_CACHE))
        {
            options.timingCache = mConfig.timingCache();
        }
        options.errorOnTimingCacheMiss = mConfig.getFlag(nvinfer1::BuilderFlag::kERROR_ON_TIMING_CACHE_MISS);
        options.workspaceLimit = mConfig.getMemoryPoolLimit(nvinfer1::MemoryPoolType::kWORKSPACE);
        options.allocator = mAllocator;
        options.optShape = [this](int32_t tensor) {
            if (static_cast<size_t>(tensor) >= mEvaluated.size())
            {
                throw std::logic_error("a backend pass asked the kOPT shape of a tensor it added");
            }
            nvinfer1::Dims const& dims = mEvaluated[tensor][0][1];
            return Shape(dims.d, dims.d + dims.nbDims);
        };
        options.networkTensors = static_cast<int32_t>(mEvaluated.size());
        options.unfusedTensorsObserved = mNetwork.unfusedTensorsAreDebugTensors() || mCalibrationPlan;
        return options;
    }

    //! Pass 6: activation memory. Step s is layer s; I/O tensors live in the application's buffers. A view has no
    //! memory: a layer reading it reads the viewed tensor, which lives until the last such read. A layer that adds its
    //! residual in place writes over it (builder/residual_buffers.h).
    bool planActivationMemory()
    {
        std::vector<BufferRequest> requests;
        std::vector<size_t> requestTensor;
        std::vector<bool> const bound = boundConstants();
        std::vector<std::vector<size_t>> const readers = plan::readersOf(mModel);
        std::vector<int64_t> const producers = plan::producersOf(mModel);
        for (size_t t = 0; t < mModel.tensors.size(); ++t)
        {
            if (bound[t] || mModel.tensors[t].viewOf >= 0)
            {
                continue;
            }
            // A shape-tensor input lives in host memory (as in TensorRT); a device backend's layers read a copy of
            // its values, which the context writes into activation memory before the first layer runs.
            bool const deviceCopyOfShapeInput = mImplementation->copiesShapeInputs()
                && mModel.tensors[t].values.has_value() && mModel.tensors[t].ioMode == nvinfer1::TensorIOMode::kINPUT;
            // An output whose size is known only once its layer has run is written here first, then copied to the
            // memory its IOutputAllocator gives for that size.
            bool const stagedOutput = mModel.tensors[t].ioMode == nvinfer1::TensorIOMode::kOUTPUT
                && isDataDependent(mTensors[t]);
            if (mModel.tensors[t].ioMode != nvinfer1::TensorIOMode::kNONE && !deviceCopyOfShapeInput && !stagedOutput)
            {
                continue;
            }
            // The record's size, not mMaxBytes: backend passes may have added tensors
            // (backend::Implementation::optimize).
            BufferRequest request{
                mModel.tensors[t].maxBytes, deviceCopyOfShapeInput ? 0 : -1, deviceCopyOfShapeInput ? 0 : -1};
            for (size_t s = 0; s < mModel.layers.size(); ++s)
            {
                auto const& layer = mModel.layers[s];
                bool const writes = std::count(layer.outputs.begin(), layer.outputs.end(), static_cast<int32_t>(t)) > 0;
                bool const reads = std::any_of(layer.inputs.begin(), layer.inputs.end(), [&](int32_t i) {
                    return i >= 0
                        && (i == static_cast<int32_t>(t) || mModel.tensors[i].viewOf == static_cast<int32_t>(t));
                });
                if (writes && request.firstStep < 0)
                {
                    request.firstStep = static_cast<int32_t>(s);
                }
                if (writes || reads)
                {
                    request.lastStep = static_cast<int32_t>(s);
                }
            }
            if (request.lastStep < 0 || valuesOnHostOnly(static_cast<int32_t>(t), readers, producers))
            {
                continue; // read and written by no layer (an intermediate tensor of a fused chain), or in no memory
            }
            requests.push_back(request);
            requestTensor.push_back(t);
        }
        if (!coverLoops(requests, requestTensor))
        {
            return false;
        }
        std::vector<SharedBuffer> const shared
            = shareResidualBuffers(mModel, *mImplementation, requests, requestTensor);
        std::optional<MemoryPlan> const memory = planMemory(requests);
        if (!memory)
        {
            logError("IBuilder::buildSerializedNetwork: the activations of the largest shapes of the optimization "
                     "profiles together take more bytes than a 64-bit size counts; lower the profiles' kMAX shapes");
            return false;
        }
        for (size_t r = 0; r < requests.size(); ++r)
        {
            mModel.tensors[requestTensor[r]].arenaOffset = memory->offsets[r];
        }
        for (SharedBuffer const& buffer : shared)
        {
            mModel.tensors[buffer.tensor].arenaOffset = mModel.tensors[buffer.owner].arenaOffset;
        }
        mModel.arenaBytes = memory->totalBytes;
        return true;
    }

    //! A loop runs its range of layers once per iteration, so a tensor its layers read or write that lives beyond
    //! the range keeps its bytes over the whole range, as do a recurrence's value and staged next value; the next
    //! value itself lives until the range ends, where the recurrence reads it. Inner loops first.
    bool coverLoops(std::vector<BufferRequest>& requests, std::vector<size_t> const& requestTensor) const
    {
        std::vector<plan::LoopRange> loops;
        std::vector<int32_t> innermost;
        std::string error;
        if (!plan::findLoops(mModel, true, loops, innermost, error))
        {
            logError("IBuilder::buildSerializedNetwork: " + error);
            return false;
        }
        std::vector<int64_t> requestOf(mModel.tensors.size(), -1);
        for (size_t r = 0; r < requests.size(); ++r)
        {
            requestOf[requestTensor[r]] = static_cast<int64_t>(r);
        }
        auto const requestFor = [&](int32_t t) -> BufferRequest* {
            int32_t const base = mModel.tensors[static_cast<size_t>(t)].viewOf >= 0
                ? mModel.tensors[static_cast<size_t>(t)].viewOf
                : t;
            int64_t const r = requestOf[static_cast<size_t>(base)];
            return r < 0 ? nullptr : &requests[static_cast<size_t>(r)];
        };
        for (auto loop = loops.rbegin(); loop != loops.rend(); ++loop)
        {
            auto const first = static_cast<int32_t>(loop->begin);
            auto const last = static_cast<int32_t>(loop->end) - 1;
            for (size_t l : loop->recurrences)
            {
                std::vector<int32_t> carried = mModel.layers[l].outputs;
                carried.push_back(mModel.layers[l].inputs[1]);
                for (int32_t t : carried)
                {
                    if (BufferRequest* request = requestFor(t))
                    {
                        request->firstStep = std::min(request->firstStep, first);
                        request->lastStep = std::max(request->lastStep, last);
                    }
                }
            }
            for (BufferRequest& request : requests)
            {
                bool const overlaps = request.firstStep <= last && request.lastStep >= first;
                if (overlaps)
                {
                    bool const within = request.firstStep >= first && request.lastStep <= last;
                    request.firstStep = within ? request.firstStep : std::min(request.firstStep, first);
                    request.lastStep = within ? request.lastStep : std::max(request.lastStep, last);
                }
            }
        }
        return true;
    }

    //! Debug tensors, once memory is planned. A tensor marked with markDebug must be in memory (the passes keep it).
    //! After markUnfusedTensorsAsDebugTensors, every other tensor left in memory, row-major, that is no I/O tensor
    //! becomes a debug tensor the context can turn on (IExecutionContext::setUnfusedTensorsDebugState). A debug
    //! listener gets no format, so tensors the backend stores in another layout are left out, as are shape values
    //! kept on the host.
    bool recordDebugTensors()
    {
        std::vector<bool> const bound = boundConstants();
        for (size_t t = 0; t < mModel.tensors.size(); ++t)
        {
            plan::TensorRecord& tensor = mModel.tensors[t];
            bool const inMemory = tensor.arenaOffset >= 0 || tensor.viewOf >= 0 || bound[t]
                || tensor.ioMode != nvinfer1::TensorIOMode::kNONE;
            if (tensor.debug == plan::DebugMark::kMARKED && !inMemory)
            {
                logError("IBuilder::buildSerializedNetwork: internal error: debug tensor \"" + tensor.name
                    + "\" was left without memory");
                return false;
            }
            if ((mNetwork.unfusedTensorsAreDebugTensors() || mCalibrationPlan) && inMemory
                && tensor.debug == plan::DebugMark::kNONE && tensor.ioMode == nvinfer1::TensorIOMode::kNONE
                && tensor.format == nvinfer1::TensorFormat::kLINEAR)
            {
                tensor.debug = plan::DebugMark::kUNFUSED;
            }
        }
        return true;
    }

    //! Whether shape tensor `t` lives on the host only: the backend evaluates the layer that computes it there, and no
    //! layer reads it in memory (BERT's Unsqueeze and Concat layers that make a Reshape's dimensions). `readers` and
    //! `producers` are plan::readersOf and plan::producersOf of the plan.
    bool valuesOnHostOnly(
        int32_t t, std::vector<std::vector<size_t>> const& readers, std::vector<int64_t> const& producers) const
    {
        plan::TensorRecord const& tensor = mModel.tensors[static_cast<size_t>(t)];
        int64_t const producer = producers[static_cast<size_t>(t)];
        if (!tensor.values.has_value() || !isIndexType(tensor.type) || plan::isObserved(tensor) || producer < 0
            || !mImplementation->evaluatesShapesOnHost()
            || !plan::computesShapesOnly(mModel, static_cast<size_t>(producer)))
        {
            return false;
        }
        for (size_t l : readers[static_cast<size_t>(t)])
        {
            if (plan::isView(mModel, mModel.layers[l]))
            {
                continue; // runs nothing, so reads nothing: a reshape's dimensions, a slice's start
            }
            std::vector<int32_t> const& inputs = mModel.layers[l].inputs;
            for (size_t i = 0; i < inputs.size(); ++i)
            {
                if (inputs[i] == t && mImplementation->readsInputData(mModel, l, i))
                {
                    return false;
                }
            }
        }
        return true;
    }

    //! By tensor: whether it is a constant's output that the backend binds to the weights, needing no memory.
    std::vector<bool> boundConstants() const
    {
        std::vector<bool> bound(mModel.tensors.size(), false);
        for (plan::LayerRecord const& layer : mModel.layers)
        {
            if (mImplementation->bindsConstants() && plan::outputsItsWeights(mModel, layer))
            {
                bound[layer.outputs[0]] = true;
            }
        }
        return bound;
    }

    //! Whether some extent of `tensor` is data-dependent (depends on a size tensor).
    bool isDataDependent(Tensor const* tensor) const
    {
        nvinfer1::DimsExprs const& dims = mFacts.tensors.at(tensor).dims;
        return std::any_of(dims.d, dims.d + dims.nbDims,
            [&](nvinfer1::IDimensionExpr const* d) { return shape::dependsOnSizeTensor(*mFacts.exprs->adopt(d)); });
    }

    Network& mNetwork;
    BuilderConfig& mConfig;
    nvinfer1::IGpuAllocator* mAllocator;
    bool mCalibrationPlan; //!< a plan for INT8 calibration (calibration.h): every tensor a debug tensor
    //! With kINT8 and no Q/DQ layers: the INT8 scale (range / 127) of each tensor with a dynamic range, by name.
    std::optional<std::unordered_map<std::string, float>> mScales;
    Backend mBackend;
    backend::Implementation const* mImplementation; //!< nullptr where this build lacks the backend
    std::unique_ptr<backend::PluginTimer> mPluginTimer;
    bool mPluginTimerMade{false};
    network::NetworkFacts mFacts;
    plan::PlanModel mModel;
    std::vector<Tensor const*> mTensors; //!< plan order: inputs, then layer outputs in layer order
    std::vector<network::Layer const*> mOrder;
    PrecisionChoice mPrecision;
    std::unordered_map<Tensor const*, network::Layer const*> mProducers;
    std::unordered_map<Tensor const*, int32_t> mTensorIndex;
    //! The value symbols of the INT32/INT64 inputs that no tensor's dimensions depend on: those inputs are data.
    std::unordered_set<shape::SymbolId> mDataValueSymbols;
    std::vector<int64_t> mMaxBytes; //!< by tensor: its largest size over every profile
    //! mEvaluated[t][p][select]: tensor t's dimensions at profile p's kMIN, kOPT or kMAX.
    std::vector<std::vector<std::array<nvinfer1::Dims, 3>>> mEvaluated;
};

} // namespace

std::unique_ptr<nvinfer1::IHostMemory> buildPlan(
    Network& network, BuilderConfig& config, nvinfer1::IGpuAllocator* allocator, bool calibration)
{
    return PlanBuilder(network, config, allocator, calibration).build();
}

} // namespace kiln::builder
