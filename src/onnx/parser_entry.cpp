// The C entry points behind nvonnxparser::createParser and createParserRefitter.
#include "onnx/parser.h"

#include "core/logging.h"

#include <new>
#include <string>

extern "C" TENSORRTAPI void* createNvOnnxParser_INTERNAL(void* network, void* logger, int version) noexcept
{
    if (network == nullptr || logger == nullptr)
    {
        kiln::logError("createParser: the network and the logger must not be null");
        return nullptr;
    }
    if (version / 100 != NV_ONNX_PARSER_VERSION / 100)
    {
        kiln::logError("createParser: the application was compiled against NvOnnxParser.h version "
            + std::to_string(version) + "; this library is version " + std::to_string(NV_ONNX_PARSER_VERSION));
        return nullptr;
    }
    auto* parser = new (std::nothrow) kiln::onnxparser::Parser(
        *static_cast<nvinfer1::INetworkDefinition*>(network), *static_cast<nvinfer1::ILogger*>(logger));
    return static_cast<nvonnxparser::IParser*>(parser);
}

extern "C" TENSORRTAPI void* createNvOnnxParserRefitter_INTERNAL(
    void* /*refitter*/, void* logger, int32_t /*version*/) noexcept
{
    // No IRefitter can exist (createInferRefitter refuses), but the call is answered as TensorRT's would be.
    std::string const message = "createParserRefitter: Kiln cannot refit engines yet, so there is no ONNX refitter";
    if (logger != nullptr)
    {
        static_cast<nvinfer1::ILogger*>(logger)->log(nvinfer1::ILogger::Severity::kERROR, message.c_str());
    }
    else
    {
        kiln::logError(message);
    }
    return nullptr;
}

extern "C" TENSORRTAPI int getNvOnnxParserVersion() noexcept
{
    return NV_ONNX_PARSER_VERSION;
}
