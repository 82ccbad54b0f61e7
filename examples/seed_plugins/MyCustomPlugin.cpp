#include "MyCustomPlugin.h"

#include "SeedKernels.h"

#include <cstring>
#include <exception>

using namespace nvinfer1;

namespace kiln_seed
{

namespace
{
const char* const kMY_CUSTOM_PLUGIN_NAME{"MyCustomPlugin"};
const char* const kMY_CUSTOM_PLUGIN_VERSION{"1"};

std::vector<float> weightsToFloats(Weights const& weights)
{
    std::vector<float> values;
    if (weights.count < 0 || (weights.count > 0 && weights.values == nullptr))
    {
        throw std::invalid_argument("MyCustomPlugin: invalid weights");
    }
    values.reserve(static_cast<size_t>(weights.count));
    for (int64_t i = 0; i < weights.count; ++i)
    {
        if (weights.type == DataType::kFLOAT)
        {
            values.push_back(static_cast<const float*>(weights.values)[i]);
        }
        else if (weights.type == DataType::kHALF)
        {
            values.push_back(halfToFloat(static_cast<const uint16_t*>(weights.values)[i]));
        }
        else
        {
            throw std::invalid_argument("MyCustomPlugin: weights must be kFLOAT or kHALF");
        }
    }
    return values;
}
} // namespace

MyCustomPlugin::MyCustomPlugin(int in_channel, const std::vector<float>& weight, const std::vector<float>& bias)
    : _in_channel(in_channel)
    , _weight(weight)
    , _bias(bias)
{
    if (_in_channel <= 0 || _weight.size() != static_cast<size_t>(_in_channel)
        || _bias.size() != static_cast<size_t>(_in_channel))
    {
        throw std::invalid_argument("MyCustomPlugin: weight and bias need in_channel values each");
    }
}

MyCustomPlugin::MyCustomPlugin(int in_channel, nvinfer1::Weights const& weight, nvinfer1::Weights const& bias)
    : MyCustomPlugin(in_channel, weightsToFloats(weight), weightsToFloats(bias))
{
}

MyCustomPlugin::MyCustomPlugin(void const* serialData, size_t serialLength)
{
    ByteReader reader(serialData, serialLength);
    _in_channel = reader.read<int32_t>();
    _weight = reader.readFloats();
    _bias = reader.readFloats();
    reader.expectEnd();
    if (_in_channel <= 0 || _weight.size() != static_cast<size_t>(_in_channel)
        || _bias.size() != static_cast<size_t>(_in_channel))
    {
        throw std::runtime_error("MyCustomPlugin: serialized weight and bias do not match in_channel");
    }
}

MyCustomPlugin::~MyCustomPlugin()
{
    terminate();
}

int MyCustomPlugin::getNbOutputs() const
{
    return 1;
}

DimsExprs MyCustomPlugin::getOutputDimensions(
    int outputIndex, const DimsExprs* inputs, int nbInputs, IExprBuilder& /*exprBuilder*/)
{
    if (outputIndex != 0 || nbInputs != 1 || inputs == nullptr)
    {
        DimsExprs invalid{};
        invalid.nbDims = -1;
        return invalid;
    }
    // The output has the input's shape, whatever its dimensions turn out to be.
    DimsExprs output(inputs[0]);
    return output;
}

int MyCustomPlugin::initialize()
{
#ifdef KILN_WITH_CUDA
    // Without a GPU the plugin still runs on Kiln's CPU backend (enqueueHost), which
    // reads the host copies; the device copies are made only where there is a device.
    int deviceCount = 0;
    bool const hasGpu = cudaGetDeviceCount(&deviceCount) == cudaSuccess && deviceCount > 0;
    if (!_initialized && hasGpu)
    {
        if (cuda::uploadFloats(_weight.data(), _weight.size(), &_d_weight) != 0
            || cuda::uploadFloats(_bias.data(), _bias.size(), &_d_bias) != 0)
        {
            terminate();
            return 1;
        }
    }
#endif
    _initialized = true;
    return 0;
}

void MyCustomPlugin::terminate()
{
#ifdef KILN_WITH_CUDA
    cuda::freeDevice(_d_weight);
    cuda::freeDevice(_d_bias);
#endif
    _d_weight = nullptr;
    _d_bias = nullptr;
    _initialized = false;
}

size_t MyCustomPlugin::getWorkspaceSize(
    const PluginTensorDesc* /*inputs*/, int /*nbInputs*/, const PluginTensorDesc* /*outputs*/, int /*nbOutputs*/) const
{
    return 0;
}

bool MyCustomPlugin::splitShape(Dims const& dims, int64_t& outer, int64_t& inner) const
{
    if (dims.nbDims < 2 || dims.d[1] != _in_channel || dims.d[0] < 0)
    {
        return false;
    }
    outer = dims.d[0];
    inner = 1;
    for (int32_t i = 2; i < dims.nbDims; ++i)
    {
        if (dims.d[i] < 0)
        {
            return false;
        }
        inner *= dims.d[i];
    }
    return true;
}

int MyCustomPlugin::enqueue(const PluginTensorDesc* inputDesc, const PluginTensorDesc* outputDesc,
    const void* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream)
{
#ifdef KILN_WITH_CUDA
    (void) workspace;
    int64_t outer = 0;
    int64_t inner = 0;
    DataType const type = inputDesc[0].type;
    if (!splitShape(inputDesc[0].dims, outer, inner) || !isFloatOrHalf(type) || outputDesc[0].type != type)
    {
        return 1;
    }
    if (!_initialized && initialize() != 0)
    {
        return 1;
    }
    if (_in_channel > 0 && _d_weight == nullptr)
    {
        return 1; // initialized without a GPU: there are no device copies of the weights
    }
    return cuda::launchChannelAffine(
        inputs[0], outputs[0], type == DataType::kHALF, _d_weight, _d_bias, outer, _in_channel, inner, stream);
#else
    (void) inputDesc;
    (void) outputDesc;
    (void) inputs;
    (void) outputs;
    (void) workspace;
    (void) stream;
    return reportBuiltWithoutCuda(kMY_CUSTOM_PLUGIN_NAME);
#endif
}

int32_t MyCustomPlugin::enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* /*workspace*/)
{
    int64_t outer = 0;
    int64_t inner = 0;
    DataType const type = inputDesc[0].type;
    if (!splitShape(inputDesc[0].dims, outer, inner) || !isFloatOrHalf(type) || outputDesc[0].type != type)
    {
        return 1;
    }
    bool const isHalf = type == DataType::kHALF;
    for (int64_t o = 0; o < outer; ++o)
    {
        for (int64_t c = 0; c < _in_channel; ++c)
        {
            float const w = _weight[static_cast<size_t>(c)];
            float const b = _bias[static_cast<size_t>(c)];
            int64_t const base = (o * _in_channel + c) * inner;
            for (int64_t i = 0; i < inner; ++i)
            {
                storeElement(outputs[0], base + i, isHalf, loadElement(inputs[0], base + i, isHalf) * w + b);
            }
        }
    }
    return 0;
}

size_t MyCustomPlugin::getSerializationSize() const
{
    return sizeof(int32_t) + serializedSize(_weight) + serializedSize(_bias);
}

void MyCustomPlugin::serialize(void* buffer) const
{
    ByteWriter writer(buffer);
    writer.write(static_cast<int32_t>(_in_channel));
    writer.writeFloats(_weight);
    writer.writeFloats(_bias);
}

bool MyCustomPlugin::supportsFormatCombination(int pos, const PluginTensorDesc* inOut, int nbInputs, int nbOutputs)
{
    if (inOut == nullptr || nbInputs != 1 || nbOutputs != 1 || pos < 0 || pos > 1)
    {
        return false;
    }
    const PluginTensorDesc* in = inOut;
    const PluginTensorDesc* out = inOut + nbInputs;
    switch (pos)
    {
    case 0: return isFloatOrHalf(in[0].type) && in[0].format == TensorFormat::kLINEAR;
    default: return isFloatOrHalf(out[0].type) && out[0].type == in[0].type && out[0].format == TensorFormat::kLINEAR;
    }
}

const char* MyCustomPlugin::getPluginType() const
{
    return kMY_CUSTOM_PLUGIN_NAME;
}

const char* MyCustomPlugin::getPluginVersion() const
{
    return kMY_CUSTOM_PLUGIN_VERSION;
}

void MyCustomPlugin::destroy()
{
    delete this;
}

IPluginV2DynamicExt* MyCustomPlugin::clone() const
{
    try
    {
        auto* plugin = new MyCustomPlugin{_in_channel, _weight, _bias};
        plugin->setPluginNamespace(mNamespace.c_str());
        // Kiln (like TensorRT) does not initialize clones, so a clone of an initialized
        // plugin comes out initialized.
        if (_initialized && plugin->initialize() != 0)
        {
            plugin->destroy();
            return nullptr;
        }
        return plugin;
    }
    catch (std::exception const&)
    {
        return nullptr;
    }
}

void MyCustomPlugin::setPluginNamespace(const char* pluginNamespace)
{
    mNamespace = pluginNamespace != nullptr ? pluginNamespace : "";
}

const char* MyCustomPlugin::getPluginNamespace() const
{
    return mNamespace.c_str();
}

DataType MyCustomPlugin::getOutputDataType(int index, const DataType* inputTypes, int nbInputs) const
{
    if (index != 0 || inputTypes == nullptr || nbInputs < 1)
    {
        return DataType::kFLOAT;
    }
    return inputTypes[0];
}

void MyCustomPlugin::attachToContext(cudnnContext* /*cudnn*/, cublasContext* /*cublas*/, IGpuAllocator* /*allocator*/)
{
}

void MyCustomPlugin::detachFromContext() { }

void MyCustomPlugin::configurePlugin(
    const DynamicPluginTensorDesc* /*in*/, int /*nbInputs*/, const DynamicPluginTensorDesc* /*out*/, int /*nbOutputs*/)
{
    // Nothing to choose: the kernel reads shapes and types from enqueue's descriptors.
}

MyCustomPluginCreator::MyCustomPluginCreator()
{
    // The lengths of weight and bias are in_channel; 0 here means "variable".
    mPluginAttributes.emplace_back(PluginField("in_channel", nullptr, PluginFieldType::kINT32, 1));
    mPluginAttributes.emplace_back(PluginField("weight", nullptr, PluginFieldType::kFLOAT32, 0));
    mPluginAttributes.emplace_back(PluginField("bias", nullptr, PluginFieldType::kFLOAT32, 0));

    mFC.nbFields = static_cast<int32_t>(mPluginAttributes.size());
    mFC.fields = mPluginAttributes.data();
}

const char* MyCustomPluginCreator::getPluginName() const
{
    return kMY_CUSTOM_PLUGIN_NAME;
}

const char* MyCustomPluginCreator::getPluginVersion() const
{
    return kMY_CUSTOM_PLUGIN_VERSION;
}

const PluginFieldCollection* MyCustomPluginCreator::getFieldNames()
{
    return &mFC;
}

IPluginV2DynamicExt* MyCustomPluginCreator::createPlugin(const char* /*name*/, const PluginFieldCollection* fc)
{
    if (fc == nullptr || (fc->nbFields > 0 && fc->fields == nullptr))
    {
        return nullptr;
    }
    int in_channel = 0;
    bool haveChannels = false;
    std::vector<float> weight;
    std::vector<float> bias;
    bool haveWeight = false;
    bool haveBias = false;
    const PluginField* fields = fc->fields;
    for (int i = 0; i < fc->nbFields; ++i)
    {
        const char* attrName = fields[i].name;
        if (attrName == nullptr || (fields[i].length > 0 && fields[i].data == nullptr))
        {
            return nullptr;
        }
        if (!strcmp(attrName, "in_channel"))
        {
            if (fields[i].type != PluginFieldType::kINT32 || fields[i].length != 1)
            {
                return nullptr;
            }
            in_channel = *(static_cast<const int32_t*>(fields[i].data));
            haveChannels = true;
        }
        else if (!strcmp(attrName, "weight") || !strcmp(attrName, "bias"))
        {
            if (fields[i].type != PluginFieldType::kFLOAT32 || fields[i].length < 0)
            {
                return nullptr;
            }
            const auto* w = static_cast<const float*>(fields[i].data);
            std::vector<float>& target = attrName[0] == 'w' ? weight : bias;
            target.assign(w, w + fields[i].length);
            (attrName[0] == 'w' ? haveWeight : haveBias) = true;
        }
    }
    if (!haveChannels || !haveWeight || !haveBias || in_channel <= 0 || weight.size() != static_cast<size_t>(in_channel)
        || bias.size() != static_cast<size_t>(in_channel))
    {
        return nullptr;
    }

    try
    {
        Weights weightWeights{DataType::kFLOAT, weight.data(), static_cast<int64_t>(weight.size())};
        Weights biasWeights{DataType::kFLOAT, bias.data(), static_cast<int64_t>(bias.size())};
        MyCustomPlugin* obj = new MyCustomPlugin(in_channel, weightWeights, biasWeights);
        obj->setPluginNamespace(mNamespace.c_str());
        return obj;
    }
    catch (std::exception const&)
    {
        return nullptr;
    }
}

IPluginV2DynamicExt* MyCustomPluginCreator::deserializePlugin(
    const char* /*name*/, const void* serialData, size_t serialLength)
{
    try
    {
        MyCustomPlugin* obj = new MyCustomPlugin(serialData, serialLength);
        obj->setPluginNamespace(mNamespace.c_str());
        return obj;
    }
    catch (std::exception const&)
    {
        return nullptr;
    }
}

REGISTER_TENSORRT_PLUGIN(MyCustomPluginCreator);

} // namespace kiln_seed
