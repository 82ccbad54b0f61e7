#include "SwishPlugin.h"

#include <cmath>
#include <exception>
#include <iostream>
#include <stdexcept>

using namespace nvinfer1;
using dialect::plugin::SwishPlugin;
using dialect::plugin::SwishPluginCreator;

namespace
{
constexpr char const* kSWISH_PLUGIN_NAME{"DialectSwish"};
constexpr char const* kSWISH_PLUGIN_VERSION{"1"};

inline float swish(float x, float beta) noexcept
{
    return x / (1.F + std::exp(-beta * x));
}
} // namespace

PluginFieldCollection SwishPluginCreator::mFC{};
std::vector<PluginField> SwishPluginCreator::mPluginAttributes;

SwishPlugin::SwishPlugin(std::string const& name, float beta)
    : mLayerName(name)
    , mBeta(beta)
{
}

SwishPlugin::SwishPlugin(std::string const& name, void const* data, size_t length)
    : mLayerName(name)
{
    if (data == nullptr || length != sizeof(mBeta))
    {
        throw std::invalid_argument("DialectSwish: bad serialized length");
    }
    char const* d = static_cast<char const*>(data);
    mBeta = read<float>(d);
}

IPluginV2DynamicExt* SwishPlugin::clone() const noexcept
{
    try
    {
        auto* plugin = new SwishPlugin(mLayerName, mBeta);
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    catch (std::exception const& e)
    {
        std::cerr << e.what() << std::endl;
    }
    return nullptr;
}

DimsExprs SwishPlugin::getOutputDimensions(
    int32_t outputIndex, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& exprBuilder) noexcept
{
    (void) exprBuilder;
    if (outputIndex != 0 || nbInputs != 1)
    {
        return DimsExprs{};
    }
    return inputs[0];
}

bool SwishPlugin::supportsFormatCombination(
    int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept
{
    if (nbInputs != 1 || nbOutputs != 1 || pos < 0 || pos >= 2)
    {
        return false;
    }
    PluginTensorDesc const& desc = inOut[pos];
    if (desc.format != TensorFormat::kLINEAR)
    {
        return false;
    }
    if (pos == 0)
    {
        return desc.type == DataType::kFLOAT || desc.type == DataType::kHALF;
    }
    return desc.type == inOut[0].type;
}

void SwishPlugin::configurePlugin(
    DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept
{
    (void) in;
    (void) out;
    (void) nbInputs;
    (void) nbOutputs;
}

size_t SwishPlugin::getWorkspaceSize(
    PluginTensorDesc const* inputs, int32_t nbInputs, PluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept
{
    (void) inputs;
    (void) outputs;
    (void) nbInputs;
    (void) nbOutputs;
    return 0;
}

int32_t SwishPlugin::enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept
{
    // This test library carries no device code; Kiln's CPU backend calls enqueueHost.
    (void) inputDesc;
    (void) outputDesc;
    (void) inputs;
    (void) outputs;
    (void) workspace;
    (void) stream;
    return 1;
}

int32_t SwishPlugin::enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace) noexcept
{
    (void) workspace;
    int64_t const n = volume(inputDesc[0].dims);
    if (outputDesc[0].type != inputDesc[0].type || volume(outputDesc[0].dims) != n)
    {
        return 1;
    }
    switch (inputDesc[0].type)
    {
    case DataType::kFLOAT:
    {
        auto const* x = static_cast<float const*>(inputs[0]);
        auto* y = static_cast<float*>(outputs[0]);
        for (int64_t i = 0; i < n; ++i)
        {
            y[i] = swish(x[i], mBeta);
        }
        return 0;
    }
    case DataType::kHALF:
    {
        auto const* x = static_cast<uint16_t const*>(inputs[0]);
        auto* y = static_cast<uint16_t*>(outputs[0]);
        for (int64_t i = 0; i < n; ++i)
        {
            y[i] = floatToHalf(swish(halfToFloat(x[i]), mBeta));
        }
        return 0;
    }
    default: return 1;
    }
}

DataType SwishPlugin::getOutputDataType(int32_t index, DataType const* inputTypes, int32_t nbInputs) const noexcept
{
    (void) index;
    (void) nbInputs;
    return inputTypes[0];
}

AsciiChar const* SwishPlugin::getPluginType() const noexcept
{
    return kSWISH_PLUGIN_NAME;
}

AsciiChar const* SwishPlugin::getPluginVersion() const noexcept
{
    return kSWISH_PLUGIN_VERSION;
}

int32_t SwishPlugin::getNbOutputs() const noexcept
{
    return 1;
}

int32_t SwishPlugin::initialize() noexcept
{
    return 0;
}

void SwishPlugin::terminate() noexcept { }

size_t SwishPlugin::getSerializationSize() const noexcept
{
    return sizeof(mBeta);
}

void SwishPlugin::serialize(void* buffer) const noexcept
{
    char* d = static_cast<char*>(buffer);
    write(d, mBeta);
}

void SwishPlugin::destroy() noexcept
{
    delete this;
}

void SwishPlugin::setPluginNamespace(AsciiChar const* pluginNamespace) noexcept
{
    mNamespace = pluginNamespace;
}

AsciiChar const* SwishPlugin::getPluginNamespace() const noexcept
{
    return mNamespace.c_str();
}

SwishPluginCreator::SwishPluginCreator()
{
    mPluginAttributes.clear();
    mPluginAttributes.emplace_back(PluginField("beta", nullptr, PluginFieldType::kFLOAT32, 1));
    mFC.nbFields = static_cast<int32_t>(mPluginAttributes.size());
    mFC.fields = mPluginAttributes.data();
}

AsciiChar const* SwishPluginCreator::getPluginName() const noexcept
{
    return kSWISH_PLUGIN_NAME;
}

AsciiChar const* SwishPluginCreator::getPluginVersion() const noexcept
{
    return kSWISH_PLUGIN_VERSION;
}

PluginFieldCollection const* SwishPluginCreator::getFieldNames() noexcept
{
    return &mFC;
}

IPluginV2DynamicExt* SwishPluginCreator::createPlugin(AsciiChar const* name, PluginFieldCollection const* fc) noexcept
{
    try
    {
        float beta = 1.F;
        for (int32_t i = 0; i < fc->nbFields; ++i)
        {
            PluginField const& f = fc->fields[i];
            if (!std::strcmp(f.name, "beta"))
            {
                if (f.type != PluginFieldType::kFLOAT32 || f.length != 1)
                {
                    return nullptr;
                }
                beta = *static_cast<float const*>(f.data);
            }
        }
        auto* plugin = new SwishPlugin(name, beta);
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    catch (std::exception const& e)
    {
        std::cerr << e.what() << std::endl;
    }
    return nullptr;
}

IPluginV2DynamicExt* SwishPluginCreator::deserializePlugin(
    AsciiChar const* name, void const* serialData, size_t serialLength) noexcept
{
    try
    {
        auto* plugin = new SwishPlugin(name, serialData, serialLength);
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    catch (std::exception const& e)
    {
        std::cerr << e.what() << std::endl;
    }
    return nullptr;
}

namespace dialect
{
namespace plugin
{
REGISTER_TENSORRT_PLUGIN(SwishPluginCreator);
} // namespace plugin
} // namespace dialect
