// Plugins of the TensorRT 7 era bring the base classes' overload sets into scope
// with using-declarations, unguarded. That compiles only if the obsolete overloads
// they name are accessible (protected, as TensorRT 7 had them).
#include <NvInfer.h>

#include <gtest/gtest.h>

namespace
{

class Trt7DynamicPlugin : public nvinfer1::IPluginV2DynamicExt
{
public:
    using nvinfer1::IPluginV2DynamicExt::configurePlugin;
    using nvinfer1::IPluginV2DynamicExt::enqueue;
    using nvinfer1::IPluginV2DynamicExt::getOutputDimensions;
    using nvinfer1::IPluginV2DynamicExt::getWorkspaceSize;
    using nvinfer1::IPluginV2DynamicExt::supportsFormat;

    IPluginV2DynamicExt* clone() const override
    {
        return new Trt7DynamicPlugin();
    }
    nvinfer1::DimsExprs getOutputDimensions(
        int, const nvinfer1::DimsExprs* inputs, int, nvinfer1::IExprBuilder&) override
    {
        return inputs[0];
    }
    bool supportsFormatCombination(int, const nvinfer1::PluginTensorDesc*, int, int) override
    {
        return true;
    }
    void configurePlugin(
        const nvinfer1::DynamicPluginTensorDesc*, int, const nvinfer1::DynamicPluginTensorDesc*, int) override
    {
    }
    size_t getWorkspaceSize(
        const nvinfer1::PluginTensorDesc*, int, const nvinfer1::PluginTensorDesc*, int) const override
    {
        return 0;
    }
    int enqueue(const nvinfer1::PluginTensorDesc*, const nvinfer1::PluginTensorDesc*, const void* const*, void* const*,
        void*, cudaStream_t) override
    {
        return 0;
    }
    nvinfer1::DataType getOutputDataType(int, const nvinfer1::DataType* types, int) const override
    {
        return types[0];
    }
    const char* getPluginType() const override
    {
        return "Trt7Dynamic";
    }
    const char* getPluginVersion() const override
    {
        return "1";
    }
    int getNbOutputs() const override
    {
        return 1;
    }
    int initialize() override
    {
        return 0;
    }
    void terminate() override { }
    size_t getSerializationSize() const override
    {
        return 0;
    }
    void serialize(void*) const override { }
    void destroy() override
    {
        delete this;
    }
    void setPluginNamespace(const char*) override { }
    const char* getPluginNamespace() const override
    {
        return "";
    }
};

class Trt7IOPlugin : public nvinfer1::IPluginV2IOExt
{
public:
    using nvinfer1::IPluginV2IOExt::configurePlugin;

    void configurePlugin(const nvinfer1::PluginTensorDesc*, int, const nvinfer1::PluginTensorDesc*, int) override { }
    bool supportsFormatCombination(int, const nvinfer1::PluginTensorDesc*, int, int) const override
    {
        return true;
    }
    nvinfer1::DataType getOutputDataType(int, const nvinfer1::DataType* types, int) const override
    {
        return types[0];
    }
    IPluginV2IOExt* clone() const override
    {
        return new Trt7IOPlugin();
    }
    const char* getPluginType() const override
    {
        return "Trt7IO";
    }
    const char* getPluginVersion() const override
    {
        return "1";
    }
    int getNbOutputs() const override
    {
        return 1;
    }
    nvinfer1::Dims getOutputDimensions(int, const nvinfer1::Dims* inputs, int) override
    {
        return inputs[0];
    }
    int initialize() override
    {
        return 0;
    }
    void terminate() override { }
    size_t getWorkspaceSize(int) const override
    {
        return 0;
    }
    int enqueue(int, const void* const*, void**, void*, cudaStream_t) override
    {
        return 0;
    }
    size_t getSerializationSize() const override
    {
        return 0;
    }
    void serialize(void*) const override { }
    void destroy() override
    {
        delete this;
    }
    void setPluginNamespace(const char*) override { }
    const char* getPluginNamespace() const override
    {
        return "";
    }
};

TEST(Trt7UsingDeclarations, PluginsCompileAndTheirOverridesAreReached)
{
    nvinfer1::IPluginV2DynamicExt* dynamic = new Trt7DynamicPlugin();
    EXPECT_EQ(dynamic->getNbOutputs(), 1);
    dynamic->destroy();
    nvinfer1::IPluginV2* io = new Trt7IOPlugin();
    void* outputs[1] = {nullptr};
    EXPECT_EQ(io->enqueue(1, nullptr, static_cast<void* const*>(outputs), nullptr, nullptr), 0);
    io->destroy();
}

} // namespace
