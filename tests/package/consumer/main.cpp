// A program that knows Kiln only as an installed CMake package. It uses the
// TensorRT headers by their usual names, registers a creator of its own, and
// makes an ONNX parser and its configuration object.
#include <NvInfer.h>
#include <NvInferPlugin.h>
#include <NvInferRuntime.h>
#include <NvOnnxConfig.h>
#include <NvOnnxParser.h>

#include <cstdio>
#include <memory>
#include <string>

namespace
{

class ConsumerCreator final : public nvinfer1::IPluginCreator
{
public:
    char const* getPluginName() const noexcept override
    {
        return "ConsumerPlugin";
    }
    char const* getPluginVersion() const noexcept override
    {
        return "2";
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override
    {
        return &mFields;
    }
    nvinfer1::IPluginV2* createPlugin(char const*, nvinfer1::PluginFieldCollection const*) noexcept override
    {
        return nullptr;
    }
    nvinfer1::IPluginV2* deserializePlugin(char const*, void const*, size_t) noexcept override
    {
        return nullptr;
    }
    void setPluginNamespace(char const* ns) noexcept override
    {
        mNamespace = ns ? ns : "";
    }
    char const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }

private:
    nvinfer1::PluginFieldCollection mFields{};
    std::string mNamespace; // a copy: the caller's string need not outlive the call
};

class QuietLogger final : public nvinfer1::ILogger
{
public:
    void log(Severity, char const*) noexcept override { }
};

//! An ONNX parser for an empty network, and a configuration naming a model: both made by the installed library.
bool makeParserAndConfig()
{
    QuietLogger logger;
    std::unique_ptr<nvinfer1::IBuilder> builder(nvinfer1::createInferBuilder(logger));
    std::unique_ptr<nvinfer1::INetworkDefinition> network(builder ? builder->createNetworkV2(0) : nullptr);
    std::unique_ptr<nvonnxparser::IParser> parser(network ? nvonnxparser::createParser(*network, logger) : nullptr);
    std::unique_ptr<nvonnxparser::IOnnxConfig> config(nvonnxparser::createONNXConfig());
    if (!parser || !config)
    {
        return false;
    }
    config->setModelFileName("model.onnx");
    return std::string(config->getModelFileName()) == "model.onnx";
}

} // namespace

int main()
{
    static ConsumerCreator creator;
    if (!initLibNvInferPlugins(nullptr, "") || !getPluginRegistry()->registerCreator(creator, "consumer"))
    {
        return 1;
    }
    nvinfer1::IPluginCreator* found = getPluginRegistry()->getPluginCreator("ConsumerPlugin", "2", "consumer");
    if (found != &creator)
    {
        return 2;
    }
    std::printf("found %s version %s in namespace %s (API %d)\n", found->getPluginName(), found->getPluginVersion(),
        found->getPluginNamespace(), getInferLibVersion());
    if (!makeParserAndConfig())
    {
        return 3;
    }
    std::printf("made an ONNX parser and its configuration (ONNX parser version %d)\n", getNvOnnxParserVersion());
    return 0;
}
