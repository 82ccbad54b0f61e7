#include "engine_build.h"

#include "bounded_io.h"
#include "build_progress.h"
#include "cache_calibrator.h"
#include "cli_logger.h"
#include "host_tensor.h"
#include "timing_cache_file.h"

#include <NvOnnxParser.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <numeric>
#include <set>
#include <unistd.h>

namespace kiln::cli
{
namespace
{

using nvinfer1::Dims;
using nvinfer1::OptProfileSelector;

//! Protobuf's limit on one message: an ONNX file itself is never larger.
constexpr size_t kMaxOnnxBytes = size_t{2} << 30U;

bool parseModel(std::string const& path, nvinfer1::INetworkDefinition& network, bool verbose)
{
    // The parser reads the file whole: refuse a directory, a device (/dev/zero never ends) or a pipe here, and a
    // file beyond protobuf's 2 GiB (larger models keep their weights in external data files).
    std::string error;
    if (!checkRegularFile(path, "--onnx", kMaxOnnxBytes, error))
    {
        logError(error);
        return false;
    }
    std::unique_ptr<nvonnxparser::IParser> parser(nvonnxparser::createParser(network, logger()));
    if (parser == nullptr)
    {
        logError("cannot create the ONNX parser");
        return false;
    }
    logInfo("Parsing ONNX model " + path);
    int const verbosity
        = static_cast<int>(verbose ? nvinfer1::ILogger::Severity::kVERBOSE : nvinfer1::ILogger::Severity::kWARNING);
    if (parser->parseFromFile(path.c_str(), verbosity))
    {
        return true;
    }
    // The parser has logged each error with its node; add only what to do about a missing plugin.
    bool unsupportedNode = false;
    for (int i = 0; i < parser->getNbErrors(); ++i)
    {
        unsupportedNode = unsupportedNode || parser->getError(i)->code() == nvonnxparser::ErrorCode::kUNSUPPORTED_NODE;
    }
    logError("Failed to parse the ONNX model " + path
        + (unsupportedNode ? "; if an unsupported op is a plugin, load its library with --staticPlugins or "
                             "--dynamicPlugins"
                           : ""));
    return false;
}

bool checkSpecNames(std::vector<ShapeSpec> const& specs, char const* flag, nvinfer1::INetworkDefinition& network)
{
    for (ShapeSpec const& spec : specs)
    {
        bool found = false;
        std::string names;
        for (int32_t i = 0; i < network.getNbInputs(); ++i)
        {
            found = found || spec.name == network.getInput(i)->getName();
            names += (i == 0 ? "" : ", ") + std::string(network.getInput(i)->getName());
        }
        if (!found)
        {
            logError(
                std::string(flag) + ": \"" + spec.name + "\" is not an input of the network; its inputs are " + names);
            return false;
        }
    }
    return true;
}

//! What the shape flags give input `name`: [kMIN, kOPT, kMAX] from --minShapes/--optShapes/--maxShapes, else --shapes
//! for all three. false (none given, or an error logged) leaves `shapes` alone; `error` says which.
bool shapeFlags(Options const& options, char const* name, Dims (&shapes)[3], bool& error)
{
    error = false;
    if (ShapeSpec const* min = findSpec(options.minShapes, name))
    {
        ShapeSpec const* opt = findSpec(options.optShapes, name);
        ShapeSpec const* max = findSpec(options.maxShapes, name);
        if (opt == nullptr || max == nullptr)
        {
            logError("input \"" + std::string(name)
                + "\" needs a shape in each of --minShapes, --optShapes and "
                  "--maxShapes");
            error = true;
            return false;
        }
        shapes[0] = min->dims;
        shapes[1] = opt->dims;
        shapes[2] = max->dims;
        return true;
    }
    if (ShapeSpec const* fixed = findSpec(options.shapes, name))
    {
        shapes[0] = shapes[1] = shapes[2] = fixed->dims;
        return true;
    }
    return false;
}

//! A shape-tensor input's values in the profile. trtexec reads them from the shape flags, where other inputs give
//! their shape: --shapes=S:2x3 gives shape tensor S the values {2, 3}. Where no flag names the input, `given` is
//! false and the profile has no values for it: the build then fails naming what needs them, and kiln names the flag.
bool profileShapeValues(
    nvinfer1::IOptimizationProfile& profile, nvinfer1::ITensor const& input, Options const& options, bool& given)
{
    std::string const name = input.getName();
    Dims values[3];
    bool error = false;
    given = shapeFlags(options, name.c_str(), values, error);
    if (!given)
    {
        return !error;
    }
    Dims const dims = input.getDimensions();
    int64_t const count = std::accumulate(dims.d, dims.d + dims.nbDims, int64_t{1}, std::multiplies<>());
    OptProfileSelector const selectors[3]
        = {OptProfileSelector::kMIN, OptProfileSelector::kOPT, OptProfileSelector::kMAX};
    for (int k = 0; k < 3; ++k)
    {
        if (values[k].nbDims != count)
        {
            logError("input \"" + name + "\" is a shape tensor of " + std::to_string(count) + " values, and the shape "
                + "flags give it " + std::to_string(values[k].nbDims) + " (" + dimsSpec(values[k]) + ")");
            return false;
        }
        std::vector<int32_t> const bounded(values[k].d, values[k].d + values[k].nbDims);
        if (!std::equal(bounded.begin(), bounded.end(), values[k].d)
            || !profile.setShapeValues(name.c_str(), selectors[k], bounded.data(), values[k].nbDims))
        {
            logError("input \"" + name + "\": the profile refuses the values " + dimsSpec(values[k])
                + " (see the error above; they must fit 32 bits)");
            return false;
        }
    }
    return true;
}

//! One optimization profile from --minShapes/--optShapes/--maxShapes, else --shapes, else the inputs'
//! dynamic dimensions set to 1 (as trtexec does, with a warning). Shape-tensor inputs take their values from the same
//! flags.
//! `valuesNotGiven` lists the inputs that report themselves as shape tensors and that no flag gives values.
bool addProfile(nvinfer1::IBuilder& builder, nvinfer1::INetworkDefinition& network, nvinfer1::IBuilderConfig& config,
    Options const& options, std::vector<std::string>& valuesNotGiven)
{
    for (auto const& [specs, flag] :
        {std::pair{&options.shapes, "--shapes"}, std::pair{&options.minShapes, "--minShapes"},
            std::pair{&options.optShapes, "--optShapes"}, std::pair{&options.maxShapes, "--maxShapes"}})
    {
        if (!checkSpecNames(*specs, flag, network))
        {
            return false;
        }
    }
    nvinfer1::IOptimizationProfile* profile = builder.createOptimizationProfile();
    bool needed = false;
    for (int32_t i = 0; i < network.getNbInputs(); ++i)
    {
        nvinfer1::ITensor* input = network.getInput(i);
        char const* name = input->getName();
        if (input->isShapeTensor())
        {
            bool given = false;
            if (!profileShapeValues(*profile, *input, options, given))
            {
                return false;
            }
            needed = needed || given;
            if (!given)
            {
                valuesNotGiven.emplace_back(name);
            }
            continue;
        }
        Dims const declared = input->getDimensions();
        bool const dynamic = std::any_of(declared.d, declared.d + declared.nbDims, [](int64_t d) { return d < 0; });
        if (!dynamic)
        {
            continue;
        }
        needed = true;
        Dims shapes[3];
        bool error = false;
        if (!shapeFlags(options, name, shapes, error))
        {
            if (error)
            {
                return false;
            }
            Dims ones = declared;
            std::replace_if(
                ones.d, ones.d + ones.nbDims, [](int64_t d) { return d < 0; }, int64_t{1});
            logWarning("Dynamic dimensions required for input: " + std::string(name)
                + ", but no shapes were provided. Automatically overriding shape to: " + dimsSpec(ones));
            shapes[0] = shapes[1] = shapes[2] = ones;
        }
        profile->setDimensions(name, OptProfileSelector::kMIN, shapes[0]);
        profile->setDimensions(name, OptProfileSelector::kOPT, shapes[1]);
        profile->setDimensions(name, OptProfileSelector::kMAX, shapes[2]);
    }
    if (needed && config.addOptimizationProfile(profile) < 0)
    {
        logError("the optimization profile from the shape flags is invalid (see the error above)");
        return false;
    }
    return true;
}

void configure(nvinfer1::IBuilderConfig& config, Options const& options, BuildRequest const& request)
{
    setBackend(config, request.backend);
    setConvolutionLayout(config, options.convolutionLayout);
    setCpuKernels(config, request.cpuKernels);
    if (request.fp16)
    {
        config.setFlag(nvinfer1::BuilderFlag::kFP16);
    }
    for (PoolSize const& pool : options.memPoolSizes)
    {
        if (pool.pool == "workspace")
        {
            config.setMemoryPoolLimit(nvinfer1::MemoryPoolType::kWORKSPACE, pool.bytes);
        }
    }
    // trtexec's flags beyond Kiln's own, with their meaning in the configuration.
    if (options.builderOptimizationLevel >= 0)
    {
        config.setBuilderOptimizationLevel(options.builderOptimizationLevel);
    }
    if (options.profilingVerbosity.has_value())
    {
        config.setProfilingVerbosity(*options.profilingVerbosity);
    }
    if (!options.tacticSourceChanges.empty())
    {
        nvinfer1::TacticSources sources = config.getTacticSources();
        for (TacticSourceChange const& change : options.tacticSourceChanges)
        {
            auto const bit = nvinfer1::TacticSources{1U} << static_cast<uint32_t>(change.source);
            sources = change.allow ? (sources | bit) : (sources & ~bit);
        }
        config.setTacticSources(sources);
    }
    // The builder flags that a bool of the options sets. A Q/DQ model runs the same with or without kINT8 and kFP8:
    // its quantize and dequantize layers as written, and on the CPU backend its quantized convolutions fused on INT8
    // (docs/quantization.md).
    std::pair<bool, nvinfer1::BuilderFlag> const flags[]
        = {{options.noBuilderCache, nvinfer1::BuilderFlag::kDISABLE_TIMING_CACHE},
            {options.refit, nvinfer1::BuilderFlag::kREFIT}, {options.int8, nvinfer1::BuilderFlag::kINT8},
            {options.fp8, nvinfer1::BuilderFlag::kFP8}, {options.bf16, nvinfer1::BuilderFlag::kBF16},
            {options.sparseWeights, nvinfer1::BuilderFlag::kSPARSE_WEIGHTS}};
    for (auto const& [given, flag] : flags)
    {
        if (given)
        {
            config.setFlag(flag);
        }
    }
    if (options.noTF32)
    {
        config.clearFlag(nvinfer1::BuilderFlag::kTF32);
    }
    if (options.avgTimingIterations > 0)
    {
        config.setAvgTimingIterations(options.avgTimingIterations);
    }
}

//! The tensors that plugin layers read or write.
std::set<nvinfer1::ITensor const*> tensorsOfPlugins(nvinfer1::INetworkDefinition& network)
{
    std::set<nvinfer1::ITensor const*> tensors;
    for (int32_t l = 0; l < network.getNbLayers(); ++l)
    {
        nvinfer1::ILayer* layer = network.getLayer(l);
        nvinfer1::LayerType const type = layer->getType();
        if (type != nvinfer1::LayerType::kPLUGIN && type != nvinfer1::LayerType::kPLUGIN_V2
            && type != nvinfer1::LayerType::kPLUGIN_V3)
        {
            continue;
        }
        for (int32_t i = 0; i < layer->getNbInputs(); ++i)
        {
            tensors.insert(layer->getInput(i));
        }
        for (int32_t o = 0; o < layer->getNbOutputs(); ++o)
        {
            tensors.insert(layer->getOutput(o));
        }
    }
    return tensors;
}

//! Marks every output of every layer (except shape computations) as a network output. A built-in layer computes
//! in FP16 whatever its output's type (its FP32 output holds the FP16 results), but a plugin's types are
//! negotiated with its tensors': with reduced precision, the marked FP32 tensors a plugin reads or writes become
//! FP16 outputs, so that an FP32 output does not make the plugin run in FP32 and hide what it does in FP16. Other
//! tensors keep their types: the layers reading them may need them as they are (an element-wise layer's operands
//! share one type).
void markLayerOutputs(nvinfer1::INetworkDefinition& network, bool fp16, std::vector<LayerOutputs>& layers)
{
    layers.clear();
    std::set<nvinfer1::ITensor const*> const pluginTensors = tensorsOfPlugins(network);
    for (int32_t l = 0; l < network.getNbLayers(); ++l)
    {
        nvinfer1::ILayer* layer = network.getLayer(l);
        if (layer->getType() == nvinfer1::LayerType::kSHAPE || layer->getType() == nvinfer1::LayerType::kCONSTANT)
        {
            continue;
        }
        LayerOutputs entry{layer->getName(), {}};
        for (int32_t o = 0; o < layer->getNbOutputs(); ++o)
        {
            nvinfer1::ITensor* tensor = layer->getOutput(o);
            if (tensor == nullptr || tensor->isShapeTensor())
            {
                continue;
            }
            if (!tensor->isNetworkOutput())
            {
                network.markOutput(*tensor);
                if (fp16 && pluginTensors.count(tensor) != 0 && tensor->getType() == nvinfer1::DataType::kFLOAT)
                {
                    tensor->setType(nvinfer1::DataType::kHALF);
                }
            }
            entry.tensors.emplace_back(tensor->getName());
        }
        if (!entry.tensors.empty())
        {
            layers.push_back(std::move(entry));
        }
    }
}

} // namespace

std::unique_ptr<nvinfer1::IHostMemory> buildFromOnnx(
    Options const& options, BuildRequest const& request, std::vector<LayerOutputs>* layers)
{
    std::unique_ptr<nvinfer1::IBuilder> builder(nvinfer1::createInferBuilder(logger()));
    auto const networkFlags = options.stronglyTyped
        ? 1U << static_cast<uint32_t>(nvinfer1::NetworkDefinitionCreationFlag::kSTRONGLY_TYPED)
        : 0U;
    std::unique_ptr<nvinfer1::INetworkDefinition> network(builder->createNetworkV2(networkFlags));
    if (!parseModel(options.onnx, *network, options.verbose))
    {
        return nullptr;
    }
    if (request.markLayerOutputs && layers != nullptr)
    {
        markLayerOutputs(*network, request.fp16, *layers);
    }
    std::unique_ptr<nvinfer1::IBuilderConfig> config(builder->createBuilderConfig());
    configure(*config, options, request);
    std::unique_ptr<CacheCalibrator> calibrator;
    if (!options.calib.empty())
    {
        std::string error;
        calibrator = loadCalibrationCache(options.calib, error);
        if (calibrator == nullptr)
        {
            logError(error);
            return nullptr;
        }
        config->setInt8Calibrator(calibrator.get());
    }
    std::vector<std::string> valuesNotGiven;
    if (!addProfile(*builder, *network, *config, options, valuesNotGiven))
    {
        return nullptr;
    }
    // Only the CUDA backend times tactics; a --compare=cpu reference build leaves the cache alone.
    std::unique_ptr<nvinfer1::ITimingCache> timingCache;
    if (!options.timingCacheFile.empty() && request.backend == Backend::kCUDA)
    {
        timingCache = attachTimingCache(*config, options.timingCacheFile);
        if (timingCache == nullptr)
        {
            return nullptr;
        }
    }
    BuildProgress progress(isatty(STDOUT_FILENO) != 0);
    if (request.showProgress)
    {
        config->setProgressMonitor(&progress);
    }
    std::unique_ptr<nvinfer1::IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    if (plan == nullptr)
    {
        for (std::string const& name : valuesNotGiven)
        {
            logError("input \"" + name
                + "\" is a shape tensor that no shape flag gives values: where the build needs "
                  "them (see the error above), give them with --shapes="
                + name + ":v0xv1... (or in each of --minShapes, --optShapes and --maxShapes), as trtexec takes them");
        }
        logError("Engine could not be created from network (see the error above)");
        return nullptr;
    }
    if (timingCache != nullptr && !saveTimingCache(*timingCache, options.timingCacheFile))
    {
        return nullptr;
    }
    return plan;
}

} // namespace kiln::cli
