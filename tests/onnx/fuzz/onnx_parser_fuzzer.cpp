// libFuzzer entry point for the ONNX parser: any byte string given to IParser::parse must end in true or in
// parser errors, never in a crash, a hang or (under the sanitizers) undefined behaviour. Models that parse are not
// built: the builder has its own tests, and building would slow the fuzzer down by orders of magnitude.
#include <NvInfer.h>
#include <NvOnnxParser.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace
{

class SilentLogger : public nvinfer1::ILogger
{
public:
    void log(Severity, char const*) noexcept override { }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(uint8_t const* data, size_t size)
{
    static SilentLogger logger;
    static std::unique_ptr<nvinfer1::IBuilder> const builder{nvinfer1::createInferBuilder(logger)};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    std::unique_ptr<nvonnxparser::IParser> parser{nvonnxparser::createParser(*network, logger)};
    bool const parsed = parser->parse(data, size, nullptr);
    // Reading every error back exercises the error records too.
    for (int32_t i = 0; !parsed && i < parser->getNbErrors(); ++i)
    {
        nvonnxparser::IParserError const* error = parser->getError(i);
        (void) error->desc();
        (void) error->nodeName();
    }
    return 0;
}
