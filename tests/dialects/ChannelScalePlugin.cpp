#include "ChannelScalePlugin.h"

#include <exception>
#include <iostream>
#include <stdexcept>
#include <utility>

using namespace nvinfer1;

namespace dialect
{
namespace plugin
{

namespace
{
char const* const kCHANNEL_SCALE_NAME{"DialectChannelScale"};
char const* const kCHANNEL_SCALE_VERSION{"1"};
} // namespace

ChannelScalePlugin::ChannelScalePlugin(std::vector<float> scales)
    : mScales(std::move(scales))
{
}

ChannelScalePlugin::ChannelScalePlugin(void const* data, size_t length)
{
    char const* d = static_cast<char const*>(data);
    char const* const end = d + length;
    if (data == nullptr || length < sizeof(int32_t))
    {
        throw std::invalid_argument("DialectChannelScale: truncated data");
    }
    int32_t const count = read<int32_t>(d);
    size_t const expected
        = sizeof(int32_t) + count * sizeof(float) + sizeof(int32_t) + sizeof(int32_t) + sizeof(mInputDims.d);
    if (count < 0 || length != expected)
    {
        throw std::invalid_argument("DialectChannelScale: bad serialized length");
    }
    mScales.resize(count);
    for (auto& s : mScales)
    {
        s = read<float>(d);
    }
    mDataType = static_cast<DataType>(read<int32_t>(d));
    mInputDims.nbDims = read<int32_t>(d);
    for (auto& e : mInputDims.d)
    {
        e = read<int64_t>(d);
    }
    if (d != end)
    {
        throw std::invalid_argument("DialectChannelScale: bad serialized data");
    }
}

AsciiChar const* ChannelScalePlugin::getPluginType() const noexcept
{
    return kCHANNEL_SCALE_NAME;
}

AsciiChar const* ChannelScalePlugin::getPluginVersion() const noexcept
{
    return kCHANNEL_SCALE_VERSION;
}

int32_t ChannelScalePlugin::getNbOutputs() const noexcept
{
    return 1;
}

Dims ChannelScalePlugin::getOutputDimensions(int32_t index, Dims const* inputs, int32_t nbInputDims) noexcept
{
    if (index != 0 || nbInputDims != 1 || inputs[0].nbDims < 1
        || inputs[0].d[0] != static_cast<int64_t>(mScales.size()))
    {
        return Dims{-1, {}};
    }
    return inputs[0];
}

bool ChannelScalePlugin::supportsFormat(DataType type, PluginFormat format) const noexcept
{
    return (type == DataType::kFLOAT || type == DataType::kHALF) && format == PluginFormat::kLINEAR;
}

int32_t ChannelScalePlugin::initialize() noexcept
{
    return 0;
}

void ChannelScalePlugin::terminate() noexcept { }

size_t ChannelScalePlugin::getWorkspaceSize(int32_t maxBatchSize) const noexcept
{
    (void) maxBatchSize;
    return 0;
}

int32_t ChannelScalePlugin::enqueue(
    int32_t batchSize, void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept
{
    // No device code in this test library; Kiln's CPU backend calls enqueueHost.
    (void) batchSize;
    (void) inputs;
    (void) outputs;
    (void) workspace;
    (void) stream;
    return 1;
}

int32_t ChannelScalePlugin::enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace) noexcept
{
    (void) workspace;
    Dims const& dims = inputDesc[0].dims; // batch dimension first
    int64_t const channels = static_cast<int64_t>(mScales.size());
    if (dims.nbDims < 2 || dims.d[1] != channels || outputDesc[0].type != inputDesc[0].type
        || volume(outputDesc[0].dims) != volume(dims))
    {
        return 1;
    }
    int64_t inner = 1;
    for (int32_t i = 2; i < dims.nbDims; ++i)
    {
        inner *= dims.d[i];
    }
    int64_t const n = volume(dims);
    for (int64_t i = 0; i < n; ++i)
    {
        float const s = mScales[static_cast<size_t>((i / inner) % channels)];
        if (inputDesc[0].type == DataType::kFLOAT)
        {
            static_cast<float*>(outputs[0])[i] = static_cast<float const*>(inputs[0])[i] * s;
        }
        else if (inputDesc[0].type == DataType::kHALF)
        {
            static_cast<uint16_t*>(outputs[0])[i]
                = floatToHalf(halfToFloat(static_cast<uint16_t const*>(inputs[0])[i]) * s);
        }
        else
        {
            return 1;
        }
    }
    return 0;
}

size_t ChannelScalePlugin::getSerializationSize() const noexcept
{
    return sizeof(int32_t) + mScales.size() * sizeof(float) + sizeof(int32_t) + sizeof(int32_t) + sizeof(mInputDims.d);
}

void ChannelScalePlugin::serialize(void* buffer) const noexcept
{
    char* d = static_cast<char*>(buffer);
    write(d, static_cast<int32_t>(mScales.size()));
    for (float s : mScales)
    {
        write(d, s);
    }
    write(d, static_cast<int32_t>(mDataType));
    write(d, mInputDims.nbDims);
    for (int64_t e : mInputDims.d)
    {
        write(d, e);
    }
}

void ChannelScalePlugin::destroy() noexcept
{
    delete this;
}

void ChannelScalePlugin::setPluginNamespace(AsciiChar const* pluginNamespace) noexcept
{
    mNamespace = pluginNamespace;
}

AsciiChar const* ChannelScalePlugin::getPluginNamespace() const noexcept
{
    return mNamespace.c_str();
}

DataType ChannelScalePlugin::getOutputDataType(
    int32_t index, DataType const* inputTypes, int32_t nbInputs) const noexcept
{
    (void) index;
    (void) nbInputs;
    return inputTypes[0];
}

bool ChannelScalePlugin::isOutputBroadcastAcrossBatch(
    int32_t outputIndex, bool const* inputIsBroadcasted, int32_t nbInputs) const noexcept
{
    (void) outputIndex;
    (void) inputIsBroadcasted;
    (void) nbInputs;
    return false;
}

bool ChannelScalePlugin::canBroadcastInputAcrossBatch(int32_t inputIndex) const noexcept
{
    (void) inputIndex;
    return false;
}

void ChannelScalePlugin::configurePlugin(Dims const* inputDims, int32_t nbInputs, Dims const* outputDims,
    int32_t nbOutputs, DataType const* inputTypes, DataType const* outputTypes, bool const* inputIsBroadcast,
    bool const* outputIsBroadcast, PluginFormat floatFormat, int32_t maxBatchSize) noexcept
{
    (void) outputDims;
    (void) nbOutputs;
    (void) outputTypes;
    (void) inputIsBroadcast;
    (void) outputIsBroadcast;
    (void) floatFormat;
    (void) maxBatchSize;
    if (nbInputs == 1)
    {
        mInputDims = inputDims[0];
        mDataType = inputTypes[0];
    }
}

void ChannelScalePlugin::attachToContext(
    cudnnContext* cudnn, cublasContext* cublas, IGpuAllocator* gpuAllocator) noexcept
{
    (void) cudnn;
    (void) cublas;
    (void) gpuAllocator;
}

void ChannelScalePlugin::detachFromContext() noexcept { }

IPluginV2Ext* ChannelScalePlugin::clone() const noexcept
{
    try
    {
        auto* plugin = new ChannelScalePlugin(*this);
        return plugin;
    }
    catch (std::exception const& e)
    {
        std::cerr << e.what() << std::endl;
    }
    return nullptr;
}

ChannelScalePluginCreator::ChannelScalePluginCreator()
{
    mPluginAttributes.emplace_back(PluginField("scales", nullptr, PluginFieldType::kFLOAT32, 0));
    mFC.nbFields = static_cast<int32_t>(mPluginAttributes.size());
    mFC.fields = mPluginAttributes.data();
}

AsciiChar const* ChannelScalePluginCreator::getPluginName() const noexcept
{
    return kCHANNEL_SCALE_NAME;
}

AsciiChar const* ChannelScalePluginCreator::getPluginVersion() const noexcept
{
    return kCHANNEL_SCALE_VERSION;
}

PluginFieldCollection const* ChannelScalePluginCreator::getFieldNames() noexcept
{
    return &mFC;
}

IPluginV2Ext* ChannelScalePluginCreator::createPlugin(AsciiChar const* name, PluginFieldCollection const* fc) noexcept
{
    (void) name;
    try
    {
        std::vector<float> scales;
        for (int32_t i = 0; i < fc->nbFields; ++i)
        {
            PluginField const& f = fc->fields[i];
            if (!std::strcmp(f.name, "scales"))
            {
                if (f.type != PluginFieldType::kFLOAT32)
                {
                    return nullptr;
                }
                auto const* values = static_cast<float const*>(f.data);
                scales.assign(values, values + f.length);
            }
        }
        if (scales.empty())
        {
            return nullptr;
        }
        auto* plugin = new ChannelScalePlugin(std::move(scales));
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    catch (std::exception const& e)
    {
        std::cerr << e.what() << std::endl;
    }
    return nullptr;
}

IPluginV2Ext* ChannelScalePluginCreator::deserializePlugin(
    AsciiChar const* name, void const* serialData, size_t serialLength) noexcept
{
    (void) name;
    try
    {
        auto* plugin = new ChannelScalePlugin(serialData, serialLength);
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    catch (std::exception const& e)
    {
        std::cerr << e.what() << std::endl;
    }
    return nullptr;
}

REGISTER_TENSORRT_PLUGIN(ChannelScalePluginCreator);

} // namespace plugin
} // namespace dialect
