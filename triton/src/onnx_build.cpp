#include "onnx_build.h"

#include "backend_error.h"
#include "model_files.h"
#include "server_log.h"

#include <NvOnnxParser.h>

#include <algorithm>
#include <cstdio>
#include <memory>

namespace kiln::triton
{
namespace
{

using nvinfer1::Dims;
using nvinfer1::OptProfileSelector;

struct ShapeRange
{
    std::vector<int64_t> min;
    std::vector<int64_t> opt;
    std::vector<int64_t> max;
};

Dims toDims(std::vector<int64_t> const& values)
{
    Dims dims{};
    dims.nbDims = static_cast<int32_t>(values.size());
    std::copy(values.begin(), values.end(), dims.d);
    return dims;
}

//! The range of one dynamic input: the parameters' shapes, else the batch rule and the configuration's dims.
ShapeRange rangeOf(nvinfer1::ITensor const& input, OnnxBuildRequest const& request)
{
    std::string const name = input.getName();
    Dims const declared = input.getDimensions();
    ModelParameters const& p = request.parameters;
    if (p.minShapes.count(name) != 0)
    {
        ShapeRange range{p.minShapes.at(name), p.optShapes.at(name), p.maxShapes.at(name)};
        for (auto const* shape : {&range.min, &range.opt, &range.max})
        {
            if (shape->size() != static_cast<size_t>(declared.nbDims))
            {
                throw BackendError(TRITONSERVER_ERROR_INVALID_ARG,
                    "the shapes of input \"" + name + "\" in min_shapes etc. need " + std::to_string(declared.nbDims)
                        + " dimensions, as the ONNX model's input has");
            }
        }
        return range;
    }
    auto const config = request.configDims.find(name);
    ShapeRange range;
    for (int32_t j = 0; j < declared.nbDims; ++j)
    {
        int64_t const fromConfig = config != request.configDims.end()
                && config->second.size() == static_cast<size_t>(declared.nbDims)
            ? config->second[j]
            : -1;
        if (declared.d[j] >= 0 || fromConfig >= 0)
        {
            int64_t const size = declared.d[j] >= 0 ? declared.d[j] : fromConfig;
            range.min.push_back(size);
            range.opt.push_back(size);
            range.max.push_back(size);
        }
        else if (j == 0 && request.batchMax > 0)
        {
            range.min.push_back(1);
            range.opt.push_back(request.batchMax);
            range.max.push_back(request.batchMax);
        }
        else
        {
            throw BackendError(TRITONSERVER_ERROR_INVALID_ARG,
                "dimension " + std::to_string(j) + " of input \"" + name
                    + "\" is dynamic in the ONNX model and neither the configuration's dims nor the batch fix it; "
                      "give the input's range with the min_shapes, opt_shapes and max_shapes parameters");
        }
    }
    return range;
}

void addProfile(nvinfer1::IBuilder& builder, nvinfer1::INetworkDefinition& network, nvinfer1::IBuilderConfig& config,
    OnnxBuildRequest const& request)
{
    for (auto const& [name, dims] : request.parameters.minShapes)
    {
        bool found = false;
        for (int32_t i = 0; i < network.getNbInputs(); ++i)
        {
            found = found || name == network.getInput(i)->getName();
        }
        if (!found)
        {
            throw BackendError(TRITONSERVER_ERROR_INVALID_ARG,
                "min_shapes etc. name \"" + name + "\", which is not an input of " + request.onnxPath);
        }
    }
    nvinfer1::IOptimizationProfile* profile = builder.createOptimizationProfile();
    bool needed = false;
    for (int32_t i = 0; i < network.getNbInputs(); ++i)
    {
        nvinfer1::ITensor const& input = *network.getInput(i);
        Dims const declared = input.getDimensions();
        if (std::none_of(declared.d, declared.d + declared.nbDims, [](int64_t d) { return d < 0; }))
        {
            continue;
        }
        ShapeRange const range = rangeOf(input, request);
        profile->setDimensions(input.getName(), OptProfileSelector::kMIN, toDims(range.min));
        profile->setDimensions(input.getName(), OptProfileSelector::kOPT, toDims(range.opt));
        profile->setDimensions(input.getName(), OptProfileSelector::kMAX, toDims(range.max));
        logVerbose("Kiln: input \"" + std::string(input.getName()) + "\" built for " + shapeText("min", range.min) + " "
            + shapeText("opt", range.opt) + " " + shapeText("max", range.max));
        needed = true;
    }
    if (needed && config.addOptimizationProfile(profile) < 0)
    {
        throw BackendError(TRITONSERVER_ERROR_INVALID_ARG, "the inputs' shape ranges make no valid profile");
    }
}

std::string buildPlan(OnnxBuildRequest const& request, std::string const& onnxBytes)
{
    KilnErrorCapture errors;
    std::unique_ptr<nvinfer1::IBuilder> builder(nvinfer1::createInferBuilder(serverLogger()));
    std::unique_ptr<nvinfer1::INetworkDefinition> network(builder ? builder->createNetworkV2(0) : nullptr);
    std::unique_ptr<nvonnxparser::IParser> parser(
        network ? nvonnxparser::createParser(*network, serverLogger()) : nullptr);
    if (parser == nullptr)
    {
        throw BackendError(TRITONSERVER_ERROR_INTERNAL, errors.explain("cannot create Kiln's builder"));
    }
    if (!parser->parse(onnxBytes.data(), onnxBytes.size(), request.onnxPath.c_str()))
    {
        std::string why;
        for (int32_t i = 0; i < parser->getNbErrors(); ++i)
        {
            why += (i == 0 ? "" : "; ") + std::string(parser->getError(i)->desc());
        }
        throw BackendError(TRITONSERVER_ERROR_INVALID_ARG,
            "cannot parse " + request.onnxPath + ": " + why
                + " (a plugin's op needs its library in the plugins parameter)");
    }
    std::unique_ptr<nvinfer1::IBuilderConfig> config(builder->createBuilderConfig());
    setBackend(*config, request.backend);
    if (request.parameters.precision == "FP16")
    {
        config->setFlag(nvinfer1::BuilderFlag::kFP16);
    }
    else if (request.parameters.precision == "BF16")
    {
        config->setFlag(nvinfer1::BuilderFlag::kBF16);
    }
    addProfile(*builder, *network, *config, request);
    std::unique_ptr<nvinfer1::IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    if (plan == nullptr)
    {
        throw BackendError(TRITONSERVER_ERROR_INVALID_ARG, errors.explain("Kiln cannot build " + request.onnxPath));
    }
    return std::string(static_cast<char const*>(plan->data()), plan->size());
}

//! FNV-1a, 64 bits: enough to notice that a file changed (not a defence against crafted collisions).
std::string fingerprint(std::string const& bytes)
{
    uint64_t hash = 14695981039346656037ULL;
    for (char c : bytes)
    {
        hash = (hash ^ static_cast<uint8_t>(c)) * 1099511628211ULL;
    }
    char text[17];
    std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(hash));
    return text;
}

std::string shapesText(ShapeMap const& shapes)
{
    std::string text;
    for (auto const& [name, dims] : shapes)
    {
        text += " " + shapeText(name, dims);
    }
    return text;
}

//! Everything the plan depends on, one line each, so that the key file says why a plan was rebuilt.
std::string cacheKey(OnnxBuildRequest const& request, std::string const& onnxBytes)
{
    ModelParameters const& p = request.parameters;
    std::string key = "onnx " + fingerprint(onnxBytes) + " " + std::to_string(onnxBytes.size()) + " bytes\n";
    key += "kiln " + std::to_string(getInferLibVersion()) + "\n";
    key += std::string("backend ") + backendName(request.backend) + "\n";
    key += "precision " + p.precision + "\n";
    key += "batch " + std::to_string(request.batchMax) + "\n";
    key += "dims" + shapesText(request.configDims) + "\n";
    key += "min" + shapesText(p.minShapes) + "\nopt" + shapesText(p.optShapes) + "\nmax" + shapesText(p.maxShapes);
    key += "\nplugins";
    for (std::string const& library : p.pluginLibraries)
    {
        key += " " + library;
    }
    return key + "\n";
}

} // namespace

BuiltPlan planForOnnx(OnnxBuildRequest const& request, bool rebuild)
{
    std::string const onnxBytes = readWholeFile(request.onnxPath);
    std::string const planPath = request.onnxPath + "." + backendName(request.backend) + ".plan";
    std::string const keyPath = planPath + ".key";
    std::string const key = cacheKey(request, onnxBytes);
    if (!rebuild)
    {
        try
        {
            if (readWholeFile(keyPath) == key)
            {
                logInfo("Kiln: " + request.onnxPath + " unchanged; using the plan built before, " + planPath);
                return BuiltPlan{readWholeFile(planPath), true};
            }
        }
        catch (BackendError const&)
        {
            // No cached plan (or an unreadable one): build.
        }
    }
    logInfo("Kiln: building " + request.onnxPath + " for the " + backendName(request.backend) + " backend");
    BuiltPlan built{buildPlan(request, onnxBytes), false};
    // The old key goes first and the new one last: while the plan is replaced, no key matches it.
    std::remove(keyPath.c_str());
    if (!writeFileAtomically(planPath, built.bytes.data(), built.bytes.size())
        || !writeFileAtomically(keyPath, key.data(), key.size()))
    {
        logWarning("Kiln: cannot write " + planPath + "; the plan is built again at the next load");
    }
    return built;
}

} // namespace kiln::triton
