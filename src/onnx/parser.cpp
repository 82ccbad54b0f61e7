#include "onnx/parser.h"

#include "onnx/graph_importer.h"
#include "onnx/import_error.h"
#include "onnx/importer_table.h"
#include "onnx/model_reader.h"

#include <fstream>
#include <iterator>

namespace kiln::onnxparser
{

using nvonnxparser::OnnxParserFlag;
using Severity = nvinfer1::ILogger::Severity;

namespace
{

uint32_t bit(OnnxParserFlag flag)
{
    return 1U << static_cast<uint32_t>(flag);
}

//! Forwards messages up to a verbosity (parseFromFile's argument) to the application's logger.
class FilteringLogger final : public nvinfer1::ILogger
{
public:
    FilteringLogger(nvinfer1::ILogger& target, int verbosity)
        : mTarget(target)
        , mVerbosity(verbosity)
    {
    }
    void log(Severity severity, char const* msg) noexcept override
    {
        if (static_cast<int>(severity) <= mVerbosity)
        {
            mTarget.log(severity, msg);
        }
    }

private:
    nvinfer1::ILogger& mTarget;
    int mVerbosity;
};

ErrorRecord modelError(ImportError const& e)
{
    ErrorRecord record;
    record.code = e.code();
    record.description = e.what();
    record.function = "parse";
    return record;
}

} // namespace

Parser::Parser(nvinfer1::INetworkDefinition& network, nvinfer1::ILogger& logger)
    : mNetwork(network)
    , mLogger(logger)
{
}

void Parser::addError(ErrorRecord record)
{
    mErrors.emplace_back(std::move(record));
}

void Parser::logErrorsFrom(size_t first, nvinfer1::ILogger& logger)
{
    for (size_t i = first; i < mErrors.size(); ++i)
    {
        std::string const message
            = std::string("ONNX parser: ") + nvonnxparser::errorCodeStr(mErrors[i].code()) + ": " + mErrors[i].desc();
        logger.log(Severity::kERROR, message.c_str());
    }
}

bool Parser::parse(void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath) noexcept
{
    return parseWith(serializedOnnxModel, serializedOnnxModelSize, modelPath, mLogger);
}

bool Parser::parseWith(void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath,
    nvinfer1::ILogger& logger) noexcept
{
    size_t const firstError = mErrors.size();
    try
    {
        ::onnx::ModelProto model;
        try
        {
            decodeModel(serializedOnnxModel, serializedOnnxModelSize, model);
        }
        catch (ImportError const& e)
        {
            addError(modelError(e));
            logErrorsFrom(firstError, logger);
            return false;
        }
        return importDecoded(model, folderOf(modelPath), logger);
    }
    catch (std::exception const& e)
    {
        addError(ErrorRecord{nvonnxparser::ErrorCode::kINTERNAL_ERROR, e.what(), -1, {}, {}, "parse"});
    }
    logErrorsFrom(firstError, logger);
    return false;
}

bool Parser::importDecoded(::onnx::ModelProto const& model, std::string const& folder, nvinfer1::ILogger& logger)
{
    size_t const firstError = mErrors.size();
    if (refusedForDla())
    {
        logErrorsFrom(firstError, logger);
        return false;
    }
    try
    {
        int64_t opset = 0;
        try
        {
            opset = defaultOpset(model);
        }
        catch (ImportError const& e)
        {
            addError(modelError(e));
            logErrorsFrom(firstError, logger);
            return false;
        }
        ImportContext ctx(mNetwork, logger, mFlags, opset, mStore, mPlugins, folder);
        ImportResult result;
        importGraph(ctx, model, result);
        for (auto& [name, tensors] : result.nodeOutputs)
        {
            mNodeOutputs[name] = tensors;
        }
        for (ErrorRecord& record : result.errors)
        {
            addError(std::move(record));
        }
    }
    catch (std::exception const& e)
    {
        addError(ErrorRecord{nvonnxparser::ErrorCode::kINTERNAL_ERROR, e.what(), -1, {}, {}, "parse"});
    }
    logErrorsFrom(firstError, logger);
    return mErrors.size() == firstError;
}

bool Parser::parseFromFile(char const* onnxModelFile, int verbosity) noexcept
{
    try
    {
        if (onnxModelFile == nullptr)
        {
            addError(ErrorRecord{
                nvonnxparser::ErrorCode::kINVALID_VALUE, "no model file given", -1, {}, {}, "parseFromFile"});
            return false;
        }
        FilteringLogger filtered(mLogger, verbosity);
        std::ifstream file(onnxModelFile, std::ios::binary);
        if (!file)
        {
            addError(ErrorRecord{nvonnxparser::ErrorCode::kINVALID_VALUE,
                std::string("cannot open the model file \"") + onnxModelFile + "\"", -1, {}, {}, "parseFromFile"});
            logErrorsFrom(mErrors.size() - 1, filtered);
            return false;
        }
        std::vector<char> const bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        filtered.log(Severity::kINFO, (std::string("Parsing ONNX model ") + onnxModelFile).c_str());
        return parseWith(bytes.data(), bytes.size(), onnxModelFile, filtered);
    }
    catch (std::exception const& e)
    {
        addError(ErrorRecord{nvonnxparser::ErrorCode::kINTERNAL_ERROR, e.what(), -1, {}, {}, "parseFromFile"});
        return false;
    }
}

bool Parser::supportsModel(void const* serializedOnnxModel, size_t serializedOnnxModelSize,
    SubGraphCollection_t& subGraphCollection, char const* modelPath) noexcept
{
    bool const supported = supportsModelV2(serializedOnnxModel, serializedOnnxModelSize, modelPath);
    subGraphCollection.clear();
    for (auto const& [nodes, ok] : mSubgraphs)
    {
        subGraphCollection.emplace_back(std::vector<size_t>(nodes.begin(), nodes.end()), ok);
    }
    return supported;
}

bool Parser::supportsModelV2(
    void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* /*modelPath*/) noexcept
{
    mSubgraphs.clear();
    try
    {
        ::onnx::ModelProto model;
        decodeModel(serializedOnnxModel, serializedOnnxModelSize, model);
        defaultOpset(model);
        bool const reportsForDla = getFlag(OnnxParserFlag::kREPORT_CAPABILITY_DLA);
        bool all = true;
        for (int32_t i = 0; i < model.graph().node_size(); ++i)
        {
            // With kREPORT_CAPABILITY_DLA a node is supported only where DLA runs it, and Kiln has no DLA.
            bool const ok = !reportsForDla && nodeSupported(mNetwork, model.graph().node(i));
            all = all && ok;
            if (mSubgraphs.empty() || mSubgraphs.back().second != ok)
            {
                mSubgraphs.push_back({{}, ok});
            }
            mSubgraphs.back().first.push_back(i);
        }
        return all;
    }
    catch (ImportError const& e)
    {
        addError(modelError(e));
        logErrorsFrom(mErrors.size() - 1, mLogger);
    }
    catch (std::exception const& e)
    {
        addError(ErrorRecord{nvonnxparser::ErrorCode::kINTERNAL_ERROR, e.what(), -1, {}, {}, "supportsModel"});
    }
    return false;
}

bool Parser::parseWithWeightDescriptors(void const* serializedOnnxModel, size_t serializedOnnxModelSize) noexcept
{
    return parse(serializedOnnxModel, serializedOnnxModelSize, nullptr);
}

bool Parser::supportsOperator(char const* opName) const noexcept
{
    return opName != nullptr && builtinImporters().find(opName) != nullptr;
}

int Parser::getNbErrors() const noexcept
{
    return static_cast<int>(mErrors.size());
}

nvonnxparser::IParserError const* Parser::getError(int index) const noexcept
{
    return index >= 0 && index < getNbErrors() ? &mErrors[static_cast<size_t>(index)] : nullptr;
}

void Parser::clearErrors() noexcept
{
    mErrors.clear();
}

char const* const* Parser::getUsedVCPluginLibraries(int64_t& nbPluginLibs) const noexcept
{
    nbPluginLibs = 0;
    return nullptr;
}

bool Parser::setBuilderConfig(nvinfer1::IBuilderConfig const* const /*builderConfig*/) noexcept
{
    return true;
}

bool Parser::refusedForDla()
{
    if (!getFlag(OnnxParserFlag::kREPORT_CAPABILITY_DLA))
    {
        return false;
    }
    addError(ErrorRecord{nvonnxparser::ErrorCode::kUNSUPPORTED_GRAPH,
        "OnnxParserFlag::kREPORT_CAPABILITY_DLA asks that every node run on DLA, and Kiln has no DLA: clear the flag "
        "to parse for Kiln's GPU and CPU backends",
        -1, {}, {}, "parse"});
    return true;
}

void Parser::setFlags(nvonnxparser::OnnxParserFlags onnxParserFlags) noexcept
{
    mFlags = onnxParserFlags;
}

nvonnxparser::OnnxParserFlags Parser::getFlags() const noexcept
{
    return mFlags;
}

void Parser::clearFlag(OnnxParserFlag onnxParserFlag) noexcept
{
    mFlags &= ~bit(onnxParserFlag);
}

void Parser::setFlag(OnnxParserFlag onnxParserFlag) noexcept
{
    mFlags |= bit(onnxParserFlag);
}

bool Parser::getFlag(OnnxParserFlag onnxParserFlag) const noexcept
{
    return (mFlags & bit(onnxParserFlag)) != 0;
}

nvinfer1::ITensor const* Parser::getLayerOutputTensor(char const* name, int64_t i) noexcept
{
    if (name == nullptr)
    {
        return nullptr;
    }
    auto it = mNodeOutputs.find(name);
    if (it == mNodeOutputs.end() || i < 0 || i >= static_cast<int64_t>(it->second.size()))
    {
        return nullptr;
    }
    return it->second[static_cast<size_t>(i)];
}

int64_t Parser::getNbSubgraphs() noexcept
{
    return static_cast<int64_t>(mSubgraphs.size());
}

bool Parser::isSubgraphSupported(int64_t const index) noexcept
{
    return index >= 0 && index < getNbSubgraphs() && mSubgraphs[static_cast<size_t>(index)].second;
}

int64_t* Parser::getSubgraphNodes(int64_t const index, int64_t& subgraphLength) noexcept
{
    if (index < 0 || index >= getNbSubgraphs())
    {
        subgraphLength = 0;
        return nullptr;
    }
    auto& nodes = mSubgraphs[static_cast<size_t>(index)].first;
    subgraphLength = static_cast<int64_t>(nodes.size());
    return nodes.data();
}

} // namespace kiln::onnxparser
