// Minimal plugin creators for the registry tests, used by the test program and by the
// plugin libraries it loads. They never create plugins: the registry only needs
// their names, versions and namespaces. TestCreatorV2's getters have no noexcept
// (TensorRT 7 style) so that tests can derive creators that throw.
#pragma once

#include <NvInferRuntime.h>

#include <string>
#include <utility>

namespace kiln_test
{

class TestCreatorV2 : public nvinfer1::IPluginCreator
{
public:
    TestCreatorV2(std::string name, std::string version, std::string pluginNamespace = "")
        : mName(std::move(name))
        , mVersion(std::move(version))
        , mNamespace(std::move(pluginNamespace))
    {
    }

    char const* getPluginName() const override
    {
        return mName.c_str();
    }
    char const* getPluginVersion() const override
    {
        return mVersion.c_str();
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
    void setPluginNamespace(char const* pluginNamespace) override
    {
        mNamespace = pluginNamespace;
        ++setNamespaceCalls;
    }
    char const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }

    int setNamespaceCalls{0};

private:
    std::string mName;
    std::string mVersion;
    std::string mNamespace;
    nvinfer1::PluginFieldCollection mFields{};
};

class TestCreatorV3 : public nvinfer1::IPluginCreatorV3One
{
public:
    TestCreatorV3(std::string name, std::string version, std::string pluginNamespace = "")
        : mName(std::move(name))
        , mVersion(std::move(version))
        , mNamespace(std::move(pluginNamespace))
    {
    }

    nvinfer1::IPluginV3* createPlugin(
        char const*, nvinfer1::PluginFieldCollection const*, nvinfer1::TensorRTPhase) noexcept override
    {
        return nullptr;
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override
    {
        return &mFields;
    }
    char const* getPluginName() const noexcept override
    {
        return mName.c_str();
    }
    char const* getPluginVersion() const noexcept override
    {
        return mVersion.c_str();
    }
    char const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }

private:
    std::string mName;
    std::string mVersion;
    std::string mNamespace;
    nvinfer1::PluginFieldCollection mFields{};
};

} // namespace kiln_test
