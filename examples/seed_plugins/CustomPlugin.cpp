#include "CustomPlugin.h"

#include "SeedKernels.h"

#include <algorithm>
#include <cfloat>
#include <cstring>
#include <exception>

using namespace nvinfer1;

namespace kiln_seed
{

namespace
{
const char* const kCUSTOM_PLUGIN_NAME{"CustomPlugin"};
const char* const kCUSTOM_PLUGIN_VERSION{"1"};

float scalarWeight(const Weights& weights, float fallback)
{
    if (weights.count == 0)
    {
        return fallback;
    }
    if (weights.count != 1 || weights.values == nullptr)
    {
        throw std::invalid_argument("CustomPlugin: each weight must hold one value");
    }
    if (weights.type == DataType::kFLOAT)
    {
        return *static_cast<const float*>(weights.values);
    }
    if (weights.type == DataType::kHALF)
    {
        return halfToFloat(*static_cast<const uint16_t*>(weights.values));
    }
    throw std::invalid_argument("CustomPlugin: weights must be kFLOAT or kHALF");
}
} // namespace

CustomPlugin::CustomPlugin(const Weights* weights, int nbWeights)
    : mMin(nbWeights > 0 && weights != nullptr ? scalarWeight(weights[0], -FLT_MAX) : -FLT_MAX)
    , mMax(nbWeights > 1 && weights != nullptr ? scalarWeight(weights[1], FLT_MAX) : FLT_MAX)
{
    if (!(mMin <= mMax))
    {
        throw std::invalid_argument("CustomPlugin: min must not exceed max");
    }
}

CustomPlugin::CustomPlugin(const void* data, size_t length)
{
    ByteReader reader(data, length);
    mMin = reader.read<float>();
    mMax = reader.read<float>();
    mVolume = reader.read<int64_t>();
    reader.expectEnd();
    if (!(mMin <= mMax) || mVolume < 0)
    {
        throw std::runtime_error("CustomPlugin: malformed serialized data");
    }
}

CustomPlugin::~CustomPlugin()
{
    terminate();
}

int CustomPlugin::getNbOutputs() const
{
    return 1;
}

Dims CustomPlugin::getOutputDimensions(int index, const Dims* inputs, int nbInputDims)
{
    // TensorRT's rule for IPluginV2: shapes here never include the batch dimension.
    if (index != 0 || nbInputDims != 1 || inputs == nullptr)
    {
        return Dims{-1, {}};
    }
    return inputs[0];
}

bool CustomPlugin::supportsFormat(DataType type, PluginFormat format) const
{
    return type == DataType::kFLOAT && format == PluginFormat::kLINEAR;
}

void CustomPlugin::configureWithFormat(const Dims* inputDims, int nbInputs, const Dims* /*outputDims*/,
    int /*nbOutputs*/, DataType /*type*/, PluginFormat /*format*/, int /*maxBatchSize*/)
{
    if (inputDims != nullptr && nbInputs == 1)
    {
        mVolume = volume(inputDims[0]);
    }
}

int CustomPlugin::initialize()
{
    return 0;
}

void CustomPlugin::terminate() { }

size_t CustomPlugin::getWorkspaceSize(int /*maxBatchSize*/) const
{
    return 0;
}

int CustomPlugin::enqueue(
    int batchSize, const void* const* inputs, void** outputs, void* workspace, cudaStream_t stream)
{
#ifdef KILN_WITH_CUDA
    (void) workspace;
    if (batchSize < 0 || mVolume <= 0)
    {
        return 1;
    }
    return cuda::launchClamp(
        static_cast<const float*>(inputs[0]), static_cast<float*>(outputs[0]), mMin, mMax, batchSize * mVolume, stream);
#else
    (void) batchSize;
    (void) inputs;
    (void) outputs;
    (void) workspace;
    (void) stream;
    return reportBuiltWithoutCuda(kCUSTOM_PLUGIN_NAME);
#endif
}

int32_t CustomPlugin::enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc,
    nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs, void* /*workspace*/)
{
    int64_t const count = volume(inputDesc[0].dims); // the batch dimension included
    if (inputDesc[0].type != DataType::kFLOAT || outputDesc[0].type != DataType::kFLOAT || count < 0
        || volume(outputDesc[0].dims) != count)
    {
        return 1;
    }
    const auto* x = static_cast<const float*>(inputs[0]);
    auto* y = static_cast<float*>(outputs[0]);
    for (int64_t i = 0; i < count; ++i)
    {
        y[i] = std::min(std::max(x[i], mMin), mMax);
    }
    return 0;
}

size_t CustomPlugin::getSerializationSize() const
{
    return 2 * sizeof(float) + sizeof(int64_t);
}

void CustomPlugin::serialize(void* buffer) const
{
    ByteWriter writer(buffer);
    writer.write(mMin);
    writer.write(mMax);
    writer.write(mVolume);
}

const char* CustomPlugin::getPluginType() const
{
    return kCUSTOM_PLUGIN_NAME;
}

const char* CustomPlugin::getPluginVersion() const
{
    return kCUSTOM_PLUGIN_VERSION;
}

void CustomPlugin::destroy()
{
    delete this;
}

IPluginV2* CustomPlugin::clone() const
{
    try
    {
        return new CustomPlugin(*this);
    }
    catch (std::exception const&)
    {
        return nullptr;
    }
}

void CustomPlugin::setPluginNamespace(const char* pluginNamespace)
{
    mNamespace = pluginNamespace != nullptr ? pluginNamespace : "";
}

const char* CustomPlugin::getPluginNamespace() const
{
    return mNamespace.c_str();
}

CustomPluginCreator::CustomPluginCreator()
{
    mPluginAttributes.emplace_back(PluginField("min", nullptr, PluginFieldType::kFLOAT32, 1));
    mPluginAttributes.emplace_back(PluginField("max", nullptr, PluginFieldType::kFLOAT32, 1));
    mFC.nbFields = static_cast<int>(mPluginAttributes.size());
    mFC.fields = mPluginAttributes.data();
}

const char* CustomPluginCreator::getPluginName() const
{
    return kCUSTOM_PLUGIN_NAME;
}

const char* CustomPluginCreator::getPluginVersion() const
{
    return kCUSTOM_PLUGIN_VERSION;
}

const PluginFieldCollection* CustomPluginCreator::getFieldNames()
{
    return &mFC;
}

IPluginV2* CustomPluginCreator::createPlugin(const char* /*name*/, const PluginFieldCollection* fc)
{
    // The layer's two weights, as seed 001's parser would hand them to the constructor.
    Weights weights[2] = {{DataType::kFLOAT, nullptr, 0}, {DataType::kFLOAT, nullptr, 0}};
    if (fc != nullptr)
    {
        for (int i = 0; i < fc->nbFields; ++i)
        {
            const PluginField& field = fc->fields[i];
            int const slot = field.name == nullptr ? -1
                : !strcmp(field.name, "min")       ? 0
                : !strcmp(field.name, "max")       ? 1
                                                   : -1;
            if (slot < 0)
            {
                continue;
            }
            if (field.type != PluginFieldType::kFLOAT32 || field.length != 1 || field.data == nullptr)
            {
                return nullptr;
            }
            weights[slot] = Weights{DataType::kFLOAT, field.data, 1};
        }
    }
    try
    {
        auto* plugin = new CustomPlugin(weights, 2);
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    catch (std::exception const&)
    {
        return nullptr;
    }
}

IPluginV2* CustomPluginCreator::deserializePlugin(const char* /*name*/, const void* serialData, size_t serialLength)
{
    try
    {
        auto* plugin = new CustomPlugin(serialData, serialLength);
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    catch (std::exception const&)
    {
        return nullptr;
    }
}

REGISTER_TENSORRT_PLUGIN(CustomPluginCreator);

} // namespace kiln_seed
