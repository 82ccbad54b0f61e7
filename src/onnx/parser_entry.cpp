// The C entry points behind nvonnxparser::createParser and createParserRefitter.
#include "onnx/parser.h"
#include "onnx/parser_refitter.h"

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

extern "C" TENSORRTAPI void* createNvOnnxParserRefitter_INTERNAL(void* refitter, void* logger, int32_t version) noexcept
{
    if (refitter == nullptr || logger == nullptr)
    {
        kiln::logError("createParserRefitter: the refitter and the logger must not be null");
        return nullptr;
    }
    if (version / 100 != NV_ONNX_PARSER_VERSION / 100)
    {
        kiln::logError("createParserRefitter: the application was compiled against NvOnnxParser.h version "
            + std::to_string(version) + "; this library is version " + std::to_string(NV_ONNX_PARSER_VERSION));
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
