#include "FooPlugin.h"

#include "SeedKernels.h"

#include <cstring>
#include <exception>
#include <new>

using namespace nvinfer1;

namespace kiln_seed
{

namespace
{
constexpr char const* kFOO_PLUGIN_NAME{"FooPlugin"};
constexpr char const* kFOO_PLUGIN_VERSION{"1"};
constexpr float kDEFAULT_ALPHA{0.01F};

float leakyRelu(float x, float alpha) noexcept
{
    return x >= 0.0F ? x : alpha * x;
}
} // namespace

FooPlugin::FooPlugin(float alpha) noexcept
    : mAlpha(alpha)
{
}

FooPlugin::FooPlugin(void const* data, size_t length)
{
    ByteReader reader(data, length);
    mAlpha = reader.read<float>();
    mDataType = static_cast<DataType>(reader.read<int32_t>());
    mVolume = reader.read<int64_t>();
    reader.expectEnd();
    if (!isFloatOrHalf(mDataType) || mVolume < 0)
    {
        throw std::runtime_error("FooPlugin: malformed serialized data");
    }
}

AsciiChar const* FooPlugin::getPluginType() const noexcept
{
    return kFOO_PLUGIN_NAME;
}

AsciiChar const* FooPlugin::getPluginVersion() const noexcept
{
    return kFOO_PLUGIN_VERSION;
}

int32_t FooPlugin::getNbOutputs() const noexcept
{
    return 1;
}

Dims FooPlugin::getOutputDimensions(int32_t index, Dims const* inputs, int32_t nbInputDims) noexcept
{
    if (index != 0 || nbInputDims != 1 || inputs == nullptr)
    {
        return Dims{-1, {}};
    }
    return inputs[0]; // element-wise: same shape, batch dimension excluded as given
}

int32_t FooPlugin::initialize() noexcept
{
    return 0;
}

void FooPlugin::terminate() noexcept { }

size_t FooPlugin::getWorkspaceSize(int32_t /*maxBatchSize*/) const noexcept
{
    return 0;
}

int32_t FooPlugin::enqueue(
    int32_t batchSize, void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept
{
#ifdef KILN_WITH_CUDA
    (void) workspace;
    if (batchSize < 0 || mVolume <= 0)
    {
        return 1;
    }
    return cuda::launchLeakyRelu(
        inputs[0], outputs[0], mDataType == DataType::kHALF, mAlpha, batchSize * mVolume, stream);
#else
    (void) batchSize;
    (void) inputs;
    (void) outputs;
    (void) workspace;
    (void) stream;
    return reportBuiltWithoutCuda(kFOO_PLUGIN_NAME);
#endif
}

int32_t FooPlugin::enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept
{
    DataType const type = inputDesc[0].type;
    int64_t const count = volume(inputDesc[0].dims); // the batch dimension included
    if (!isFloatOrHalf(type) || outputDesc[0].type != type || count < 0 || volume(outputDesc[0].dims) != count)
    {
        return 1;
    }
    bool const isHalf = type == DataType::kHALF;
    for (int64_t i = 0; i < count; ++i)
    {
        storeElement(outputs[0], i, isHalf, leakyRelu(loadElement(inputs[0], i, isHalf), mAlpha));
    }
    return 0;
}

size_t FooPlugin::getSerializationSize() const noexcept
{
    return sizeof(float) + sizeof(int32_t) + sizeof(int64_t);
}

void FooPlugin::serialize(void* buffer) const noexcept
{
    ByteWriter writer(buffer);
    writer.write(mAlpha);
    writer.write(static_cast<int32_t>(mDataType));
    writer.write(mVolume);
}

void FooPlugin::destroy() noexcept
{
    delete this;
}

void FooPlugin::setPluginNamespace(AsciiChar const* pluginNamespace) noexcept
{
    try
    {
        mNamespace = pluginNamespace != nullptr ? pluginNamespace : "";
    }
    catch (std::exception const&)
    {
    }
}

AsciiChar const* FooPlugin::getPluginNamespace() const noexcept
{
    return mNamespace.c_str();
}

DataType FooPlugin::getOutputDataType(int32_t index, DataType const* inputTypes, int32_t nbInputs) const noexcept
{
    if (index != 0 || inputTypes == nullptr || nbInputs != 1)
    {
        return DataType::kFLOAT;
    }
    return inputTypes[0];
}

IPluginV2Ext* FooPlugin::clone() const noexcept
{
    auto* plugin = new (std::nothrow) FooPlugin(*this); // configured state included
    return plugin;
}

void FooPlugin::configurePlugin(
    PluginTensorDesc const* in, int32_t nbInput, PluginTensorDesc const* /*out*/, int32_t nbOutput) noexcept
{
    if (in == nullptr || nbInput != 1 || nbOutput != 1)
    {
        return;
    }
    mDataType = in[0].type;
    mVolume = volume(in[0].dims);
}

bool FooPlugin::supportsFormatCombination(
    int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) const noexcept
{
    if (inOut == nullptr || nbInputs != 1 || nbOutputs != 1 || pos < 0 || pos >= nbInputs + nbOutputs)
    {
        return false;
    }
    PluginTensorDesc const& desc = inOut[pos];
    if (desc.format != TensorFormat::kLINEAR)
    {
        return false;
    }
    return isFloatOrHalf(desc.type) && (pos == 0 || desc.type == inOut[0].type);
}

FooPluginCreator::FooPluginCreator()
{
    mPluginAttributes.emplace_back("alpha", nullptr, PluginFieldType::kFLOAT32, 1);
    mFC.nbFields = static_cast<int32_t>(mPluginAttributes.size());
    mFC.fields = mPluginAttributes.data();
}

AsciiChar const* FooPluginCreator::getPluginName() const noexcept
{
    return kFOO_PLUGIN_NAME;
}

AsciiChar const* FooPluginCreator::getPluginVersion() const noexcept
{
    return kFOO_PLUGIN_VERSION;
}

PluginFieldCollection const* FooPluginCreator::getFieldNames() noexcept
{
    return &mFC;
}

IPluginV2IOExt* FooPluginCreator::createPlugin(AsciiChar const* /*name*/, PluginFieldCollection const* fc) noexcept
{
    float alpha = kDEFAULT_ALPHA;
    if (fc != nullptr)
    {
        for (int32_t i = 0; i < fc->nbFields; ++i)
        {
            PluginField const& field = fc->fields[i];
            if (field.name != nullptr && std::strcmp(field.name, "alpha") == 0)
            {
                if (field.type != PluginFieldType::kFLOAT32 || field.length != 1 || field.data == nullptr)
                {
                    return nullptr;
                }
                alpha = *static_cast<float const*>(field.data);
            }
        }
    }
    auto* plugin = new (std::nothrow) FooPlugin(alpha);
    if (plugin != nullptr)
    {
        plugin->setPluginNamespace(mNamespace.c_str());
    }
    return plugin;
}

IPluginV2IOExt* FooPluginCreator::deserializePlugin(
    AsciiChar const* /*name*/, void const* serialData, size_t serialLength) noexcept
{
    try
    {
        auto* plugin = new FooPlugin(serialData, serialLength);
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    catch (std::exception const&)
    {
        return nullptr;
    }
}

void FooPluginCreator::setPluginNamespace(AsciiChar const* pluginNamespace) noexcept
{
    try
    {
        mNamespace = pluginNamespace != nullptr ? pluginNamespace : "";
    }
    catch (std::exception const&)
    {
    }
}

AsciiChar const* FooPluginCreator::getPluginNamespace() const noexcept
{
    return mNamespace.c_str();
}

REGISTER_TENSORRT_PLUGIN(FooPluginCreator);

} // namespace kiln_seed
