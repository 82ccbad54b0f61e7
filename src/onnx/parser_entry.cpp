// The C entry points behind nvonnxparser::createParser and createParserRefitter.
#include "onnx/parser.h"
#include "onnx/parser_refitter.h"

#include <NvInferRuntime.h>

#include <new>
#include <string>

namespace
{

//! Reports to the logger getLogger() returns: an entry point given no logger has none of its own.
void logError(std::string const& message) noexcept
{
    try
    {
        getLogger()->log(nvinfer1::ILogger::Severity::kERROR, message.c_str());
    }
    catch (...)
    {
        // A logger that throws must not take the parser down with it.
    }
}

//! Whether the arguments of `call` (an entry point) can make an object: both set, and a header of this major version.
bool acceptable(char const* call, char const* what, void const* object, void const* logger, int32_t version)
{
    if (object == nullptr || logger == nullptr)
    {
        logError(std::string(call) + ": the " + what + " and the logger must not be null");
        return false;
    }
    if (version / 100 != NV_ONNX_PARSER_VERSION / 100)
    {
        logError(std::string(call) + ": the application was compiled against NvOnnxParser.h version "
            + std::to_string(version) + "; this library is version " + std::to_string(NV_ONNX_PARSER_VERSION));
        return false;
    }
    return true;
}

} // namespace

extern "C" TENSORRTAPI void* createNvOnnxParser_INTERNAL(void* network, void* logger, int version) noexcept
{
    if (!acceptable("createParser", "network", network, logger, version))
    {
        return nullptr;
    }
    auto* parser = new (std::nothrow) kiln::onnxparser::Parser(
        *static_cast<nvinfer1::INetworkDefinition*>(network), *static_cast<nvinfer1::ILogger*>(logger));
    return static_cast<nvonnxparser::IParser*>(parser);
}

extern "C" TENSORRTAPI void* createNvOnnxParserRefitter_INTERNAL(void* refitter, void* logger, int32_t version) noexcept
{
    if (!acceptable("createParserRefitter", "refitter", refitter, logger, version))
    {
        return nullptr;
    }
    auto* ours = new (std::nothrow) kiln::onnxparser::ParserRefitter(
        *static_cast<nvinfer1::IRefitter*>(refitter), *static_cast<nvinfer1::ILogger*>(logger));
    return static_cast<nvonnxparser::IParserRefitter*>(ours);
}

extern "C" TENSORRTAPI int getNvOnnxParserVersion() noexcept
{
    return NV_ONNX_PARSER_VERSION;
}
