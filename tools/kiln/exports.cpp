#include "exports.h"

#include "cli_logger.h"
#include "spec_parsing.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

namespace kiln::cli
{
namespace
{

bool writeFile(std::string const& path, std::string const& text, char const* flag, std::string& error)
{
    std::ofstream file(path);
    if (!(file << text))
    {
        error = std::string(flag) + ": cannot write \"" + path + "\"";
        return false;
    }
    return true;
}

//! An element as JSON: integers stay integers.
nlohmann::ordered_json jsonValue(HostTensor const& t, int64_t i)
{
    double const v = t.value(i);
    bool const floating = isFloatType(t.type) || t.type == nvinfer1::DataType::kFP8;
    if (!floating)
    {
        return static_cast<int64_t>(v);
    }
    return v;
}

} // namespace

bool exportTimes(std::string const& path, std::vector<InferenceTrace> const& traces, std::string& error)
{
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (InferenceTrace const& t : traces)
    {
        all.push_back({{"startEnqMs", t.enqStart}, {"endEnqMs", t.enqEnd}, {"startH2dMs", t.h2dStart},
            {"endH2dMs", t.h2dEnd}, {"startComputeMs", t.computeStart}, {"endComputeMs", t.computeEnd},
            {"startD2hMs", t.d2hStart}, {"endD2hMs", t.d2hEnd}, {"h2dMs", t.h2dMs()}, {"computeMs", t.computeMs()},
            {"d2hMs", t.d2hMs()}, {"latencyMs", t.latencyMs()}});
    }
    return writeFile(path, all.dump(2) + "\n", "--exportTimes", error);
}

bool exportOutputs(std::string const& path, std::vector<HostTensor> const& outputs, std::string& error)
{
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (HostTensor const& t : outputs)
    {
        nlohmann::ordered_json values = nlohmann::ordered_json::array();
        for (int64_t i = 0; i < t.elementCount(); ++i)
        {
            values.push_back(jsonValue(t, i));
        }
        all.push_back({{"name", t.name}, {"dimensions", dimsSpec(t.dims)}, {"values", std::move(values)}});
    }
    return writeFile(path, all.dump(2) + "\n", "--exportOutput", error);
}

void dumpOutputs(std::vector<HostTensor> const& outputs)
{
    logInfo("Output Tensors:");
    for (HostTensor const& t : outputs)
    {
        logInfo(t.name + ": (" + dimsSpec(t.dims) + ")");
        std::ostringstream values;
        for (int64_t i = 0; i < t.elementCount(); ++i)
        {
            values << (i == 0 ? "" : " ") << t.value(i);
        }
        logInfo(values.str());
    }
}

namespace
{

//! The engine inspector's JSON (with the context's shapes where given); false with `error` naming `flag`.
bool layerInformation(char const* flag, nvinfer1::ICudaEngine const& engine, nvinfer1::IExecutionContext const* context,
    std::string& info, std::string& error)
{
    std::unique_ptr<nvinfer1::IEngineInspector> inspector(engine.createEngineInspector());
    if (inspector == nullptr)
    {
        error = std::string(flag) + ": the engine cannot be inspected (see the error above)";
        return false;
    }
    if (context != nullptr)
    {
        inspector->setExecutionContext(context);
    }
    char const* text = inspector->getEngineInformation(nvinfer1::LayerInformationFormat::kJSON);
    if (text == nullptr)
    {
        error = std::string(flag) + ": the engine information is not available (see the error above)";
        return false;
    }
    info = text;
    return true;
}

} // namespace

bool exportLayerInfo(std::string const& path, nvinfer1::ICudaEngine const& engine,
    nvinfer1::IExecutionContext const* context, std::string& error)
{
    std::string info;
    return layerInformation("--exportLayerInfo", engine, context, info, error)
        && writeFile(path, info + "\n", "--exportLayerInfo", error);
}

bool dumpLayerInfo(nvinfer1::ICudaEngine const& engine, nvinfer1::IExecutionContext const* context, std::string& error)
{
    std::string info;
    if (!layerInformation("--dumpLayerInfo", engine, context, info, error))
    {
        return false;
    }
    logInfo("Layer Information:");
    std::printf("%s\n", info.c_str());
    return true;
}

} // namespace kiln::cli
