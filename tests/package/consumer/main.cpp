// A program that knows Kiln only as an installed CMake package. It uses the
// TensorRT headers by their usual names and registers a creator of its own.
#include <NvInfer.h>
#include <NvInferPlugin.h>
#include <NvInferRuntime.h>

#include <cstdio>
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
    return 0;
}
