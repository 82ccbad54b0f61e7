#include "onnx/parser_refitter.h"

#include "core/data_type.h"
#include "onnx/import_error.h"
#include "onnx/model_reader.h"
#include "onnx/tensor_reader.h"

#include <fstream>
#include <iterator>
#include <map>
#include <new>

namespace kiln::onnxparser
{
namespace
{

//! The graph's tensors by name that the parser can name as weights: initializers, and Constant nodes' tensors.
std::map<std::string, ::onnx::TensorProto const*> namedTensors(::onnx::GraphProto const& graph)
{
    std::map<std::string, ::onnx::TensorProto const*> tensors;
    for (::onnx::TensorProto const& initializer : graph.initializer())
    {
        tensors[initializer.name()] = &initializer;
    }
    for (::onnx::NodeProto const& node : graph.node())
    {
        if (node.op_type() != "Constant" || node.output_size() != 1)
        {
            continue;
        }
        for (::onnx::AttributeProto const& attribute : node.attribute())
        {
            if (attribute.name() == "value" && attribute.has_t())
            {
                tensors[node.output(0)] = &attribute.t();
            }
        }
    }
    return tensors;
}

} // namespace

ParserRefitter::ParserRefitter(nvinfer1::IRefitter& refitter, nvinfer1::ILogger& logger)
    : mRefitter(refitter)
    , mLogger(logger)
{
}

nvonnxparser::IParserError const* ParserRefitter::getError(int32_t index) const noexcept
{
    return index >= 0 && index < getNbErrors() ? &mErrors[static_cast<size_t>(index)] : nullptr;
}

bool ParserRefitter::fail(nvonnxparser::ErrorCode code, std::string const& what, char const* call)
{
    std::string const message = std::string("IParserRefitter::") + call + ": " + what;
    mErrors.emplace_back(ErrorRecord{code, message, -1, {}, {}, call});
    mLogger.log(nvinfer1::ILogger::Severity::kERROR, message.c_str());
    return false;
}

bool ParserRefitter::refitFrom(::onnx::ModelProto const& model, std::string const& folder, char const* call)
{
    int32_t const count = mRefitter.getAllWeights(0, nullptr);
    std::vector<char const*> names(static_cast<size_t>(count));
    mRefitter.getAllWeights(count, names.data());
    std::map<std::string, ::onnx::TensorProto const*> const tensors = namedTensors(model.graph());
    ConstantStore store;
    std::string missing;
    for (char const* name : names)
    {
        auto const found = tensors.find(name);
        if (found == tensors.end())
        {
            missing += (missing.empty() ? "\"" : ", \"") + std::string(name) + "\"";
            continue;
        }
        ConstantData const values = readTensor(*found->second, folder, store);
        if (!isFloatType(values.type) || !mRefitter.setNamedWeights(name, values.weights()))
        {
            return fail(nvonnxparser::ErrorCode::kREFIT_FAILED,
                "the engine did not take the values of \"" + std::string(name) + "\" (its logger says why)", call);
        }
    }
    if (!missing.empty())
    {
        return fail(nvonnxparser::ErrorCode::kREFIT_FAILED,
            "the model has no initializer or Constant node for the engine's weights " + missing, call);
    }
    return true;
}

bool ParserRefitter::refitFromBytes(
    void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath) noexcept
{
    try
    {
        ::onnx::ModelProto model;
        decodeModel(serializedOnnxModel, serializedOnnxModelSize, model);
        return refitFrom(model, folderOf(modelPath), "refitFromBytes");
    }
    catch (ImportError const& e)
    {
        return fail(e.code(), e.what(), "refitFromBytes");
    }
    catch (std::exception const& e)
    {
        return fail(nvonnxparser::ErrorCode::kINTERNAL_ERROR, e.what(), "refitFromBytes");
    }
}

bool ParserRefitter::refitFromFile(char const* onnxModelFile) noexcept
{
    try
    {
        std::ifstream file(onnxModelFile != nullptr ? onnxModelFile : "", std::ios::binary);
        if (!file)
        {
            return fail(nvonnxparser::ErrorCode::kINVALID_VALUE,
                std::string("cannot open the model file \"") + (onnxModelFile != nullptr ? onnxModelFile : "") + "\"",
                "refitFromFile");
        }
        std::vector<char> const bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        ::onnx::ModelProto model;
        decodeModel(bytes.data(), bytes.size(), model);
        return refitFrom(model, folderOf(onnxModelFile), "refitFromFile");
    }
    catch (ImportError const& e)
    {
        return fail(e.code(), e.what(), "refitFromFile");
    }
    catch (std::exception const& e)
    {
        return fail(nvonnxparser::ErrorCode::kINTERNAL_ERROR, e.what(), "refitFromFile");
    }
}

bool ParserRefitter::loadModelProto(
    void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath) noexcept
{
    try
    {
        std::string const error
            = mLoaded.load(serializedOnnxModel, serializedOnnxModelSize, modelPath, "refitModelProto refits from it");
        return error.empty() || fail(nvonnxparser::ErrorCode::kINVALID_VALUE, error, "loadModelProto");
    }
    catch (ImportError const& e)
    {
        return fail(e.code(), e.what(), "loadModelProto");
    }
    catch (std::exception const& e)
    {
        return fail(nvonnxparser::ErrorCode::kINTERNAL_ERROR, e.what(), "loadModelProto");
    }
}

bool ParserRefitter::loadInitializer(char const* name, void const* data, size_t size) noexcept
{
    try
    {
        std::string const error = mLoaded.replaceInitializer(name, data, size);
        return error.empty() || fail(nvonnxparser::ErrorCode::kINVALID_VALUE, error, "loadInitializer");
    }
    catch (std::exception const& e)
    {
        return fail(nvonnxparser::ErrorCode::kINTERNAL_ERROR, e.what(), "loadInitializer");
    }
}

bool ParserRefitter::refitModelProto() noexcept
{
    try
    {
        std::string folder;
        std::string error;
        std::unique_ptr<::onnx::ModelProto> const model = mLoaded.take(folder, error);
        return model ? refitFrom(*model, folder, "refitModelProto")
                     : fail(nvonnxparser::ErrorCode::kINVALID_VALUE, error, "refitModelProto");
    }
    catch (ImportError const& e)
    {
        return fail(e.code(), e.what(), "refitModelProto");
    }
    catch (std::exception const& e)
    {
        return fail(nvonnxparser::ErrorCode::kINTERNAL_ERROR, e.what(), "refitModelProto");
    }
}

} // namespace kiln::onnxparser
