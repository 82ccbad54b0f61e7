// IParser::loadModelProto, loadInitializer and parseModelProto (TensorRT 10.11+): a model decoded first, some of its
// initializers replaced by the application's bytes, then imported as parse() imports.
#include "onnx/import_error.h"
#include "onnx/parser.h"

#include <memory>
#include <string>

namespace kiln::onnxparser
{

bool Parser::refuseLoaded(nvonnxparser::ErrorCode code, std::string const& what, char const* call)
{
    size_t const firstError = mErrors.size();
    addError(ErrorRecord{code, std::string("IParser::") + call + ": " + what, -1, {}, {}, call});
    logErrorsFrom(firstError, mLogger);
    return false;
}

bool Parser::loadModelProto(
    void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath) noexcept
{
    try
    {
        std::string const error = mLoaded.load(serializedOnnxModel, serializedOnnxModelSize, modelPath,
            "parseModelProto imports it, and a parser takes one model");
        return error.empty() || refuseLoaded(nvonnxparser::ErrorCode::kINVALID_VALUE, error, "loadModelProto");
    }
    catch (ImportError const& e)
    {
        return refuseLoaded(nvonnxparser::ErrorCode::kMODEL_DESERIALIZE_FAILED, e.what(), "loadModelProto");
    }
    catch (std::exception const& e)
    {
        return refuseLoaded(nvonnxparser::ErrorCode::kINTERNAL_ERROR, e.what(), "loadModelProto");
    }
}

bool Parser::loadInitializer(char const* name, void const* data, size_t size) noexcept
{
    try
    {
        std::string const error = mLoaded.replaceInitializer(name, data, size);
        return error.empty() || refuseLoaded(nvonnxparser::ErrorCode::kINVALID_VALUE, error, "loadInitializer");
    }
    catch (std::exception const& e)
    {
        return refuseLoaded(nvonnxparser::ErrorCode::kINTERNAL_ERROR, e.what(), "loadInitializer");
    }
}

bool Parser::parseModelProto() noexcept
{
    std::string folder;
    std::string error;
    std::unique_ptr<::onnx::ModelProto> const model = mLoaded.take(folder, error);
    return model ? importDecoded(*model, folder, mLogger)
                 : refuseLoaded(nvonnxparser::ErrorCode::kINVALID_VALUE, error, "parseModelProto");
}

} // namespace kiln::onnxparser
