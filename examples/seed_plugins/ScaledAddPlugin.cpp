#include "ScaledAddPlugin.h"

#include "SeedKernels.h"

#include <cstring>
#include <exception>
#include <new>
#include <utility>

using namespace nvinfer1;

namespace kiln_seed
{

namespace
{
constexpr char const* kSCALED_ADD_NAME{"ScaledAdd"};
constexpr char const* kSCALED_ADD_VERSION{"1"};
constexpr float kDEFAULT_ALPHA{1.0F};

bool sameDims(Dims const& a, Dims const& b) noexcept
{
    if (a.nbDims != b.nbDims)
    {
        return false;
    }
    for (int32_t i = 0; i < a.nbDims; ++i)
    {
        if (a.d[i] != b.d[i])
        {
            return false;
        }
    }
    return true;
}
} // namespace

ScaledAddPlugin::ScaledAddPlugin(float alpha, std::string pluginNamespace)
    : mAlpha(alpha)
    , mNamespace(std::move(pluginNamespace))
{
}

ScaledAddPlugin::ScaledAddPlugin(ScaledAddPlugin const& other)
    : IPluginV3(other)
    , IPluginV3OneCore(other)
    , IPluginV3OneBuild(other)
    , IPluginV3OneRuntime(other)
    , kiln::IHostPlugin(other)
    , mAlpha(other.mAlpha)
    , mNamespace(other.mNamespace)
{
    // mDataToSerialize points into its own object, so it is rebuilt, never copied.
}

IPluginCapability* ScaledAddPlugin::getCapabilityInterface(PluginCapabilityType type) noexcept
{
    switch (type)
    {
    case PluginCapabilityType::kCORE: return static_cast<IPluginV3OneCore*>(this);
    case PluginCapabilityType::kBUILD: return static_cast<IPluginV3OneBuild*>(this);
    case PluginCapabilityType::kRUNTIME: return static_cast<IPluginV3OneRuntime*>(this);
    }
    return nullptr;
}

IPluginV3* ScaledAddPlugin::clone() noexcept
{
    return new (std::nothrow) ScaledAddPlugin(*this);
}

AsciiChar const* ScaledAddPlugin::getPluginName() const noexcept
{
    return kSCALED_ADD_NAME;
}

AsciiChar const* ScaledAddPlugin::getPluginVersion() const noexcept
{
    return kSCALED_ADD_VERSION;
}

AsciiChar const* ScaledAddPlugin::getPluginNamespace() const noexcept
{
    return mNamespace.c_str();
}

int32_t ScaledAddPlugin::configurePlugin(
    DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept
{
    if (in == nullptr || out == nullptr || nbInputs != 2 || nbOutputs != 1)
    {
        return 1;
    }
    // Both inputs must have one shape; -1 (not known yet) matches anything.
    Dims const& a = in[0].desc.dims;
    Dims const& b = in[1].desc.dims;
    if (a.nbDims != b.nbDims)
    {
        return 1;
    }
    for (int32_t i = 0; i < a.nbDims; ++i)
    {
        if (a.d[i] >= 0 && b.d[i] >= 0 && a.d[i] != b.d[i])
        {
            return 1;
        }
    }
    return 0;
}

int32_t ScaledAddPlugin::getOutputDataTypes(
    DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes, int32_t nbInputs) const noexcept
{
    if (outputTypes == nullptr || inputTypes == nullptr || nbOutputs != 1 || nbInputs != 2)
    {
        return 1;
    }
    outputTypes[0] = inputTypes[0];
    return 0;
}

int32_t ScaledAddPlugin::getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const* /*shapeInputs*/,
    int32_t nbShapeInputs, DimsExprs* outputs, int32_t nbOutputs, IExprBuilder& /*exprBuilder*/) noexcept
{
    if (inputs == nullptr || outputs == nullptr || nbInputs != 2 || nbShapeInputs != 0 || nbOutputs != 1
        || inputs[0].nbDims != inputs[1].nbDims)
    {
        return 1;
    }
    outputs[0] = inputs[0];
    return 0;
}

bool ScaledAddPlugin::supportsFormatCombination(
    int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept
{
    if (inOut == nullptr || nbInputs != 2 || nbOutputs != 1 || pos < 0 || pos > 2)
    {
        return false;
    }
    PluginTensorDesc const& desc = inOut[pos].desc;
    if (desc.format != TensorFormat::kLINEAR)
    {
        return false;
    }
    return isFloatOrHalf(desc.type) && (pos == 0 || desc.type == inOut[0].desc.type);
}

int32_t ScaledAddPlugin::getNbOutputs() const noexcept
{
    return 1;
}

int32_t ScaledAddPlugin::onShapeChange(
    PluginTensorDesc const* in, int32_t nbInputs, PluginTensorDesc const* out, int32_t nbOutputs) noexcept
{
    if (in == nullptr || out == nullptr || nbInputs != 2 || nbOutputs != 1)
    {
        return 1;
    }
    return checkedCount(in, out) < 0 ? 1 : 0;
}

int64_t ScaledAddPlugin::checkedCount(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc)
{
    DataType const type = inputDesc[0].type;
    if (!isFloatOrHalf(type) || inputDesc[1].type != type || outputDesc[0].type != type
        || !sameDims(inputDesc[0].dims, inputDesc[1].dims) || !sameDims(inputDesc[0].dims, outputDesc[0].dims))
    {
        return -1;
    }
    return volume(inputDesc[0].dims);
}

int32_t ScaledAddPlugin::enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept
{
#ifdef KILN_WITH_CUDA
    (void) workspace;
    int64_t const count = checkedCount(inputDesc, outputDesc);
    if (count < 0)
    {
        return 1;
    }
    return cuda::launchScaledAdd(
        inputs[0], inputs[1], outputs[0], inputDesc[0].type == DataType::kHALF, mAlpha, count, stream);
#else
    (void) inputDesc;
    (void) outputDesc;
    (void) inputs;
    (void) outputs;
    (void) workspace;
    (void) stream;
    return reportBuiltWithoutCuda("ScaledAddPlugin");
#endif
}

int32_t ScaledAddPlugin::enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept
{
    int64_t const count = checkedCount(inputDesc, outputDesc);
    if (count < 0)
    {
        return 1;
    }
    bool const isHalf = inputDesc[0].type == DataType::kHALF;
    for (int64_t i = 0; i < count; ++i)
    {
        float const a = loadElement(inputs[0], i, isHalf);
        float const b = loadElement(inputs[1], i, isHalf);
        storeElement(outputs[0], i, isHalf, a + mAlpha * b);
    }
    return 0;
}

IPluginV3* ScaledAddPlugin::attachToContext(IPluginResourceContext* /*context*/) noexcept
{
    // No per-context resources: a plain clone is the plugin attached to the new context.
    return clone();
}

PluginFieldCollection const* ScaledAddPlugin::getFieldsToSerialize() noexcept
{
    try
    {
        mDataToSerialize.clear();
        mDataToSerialize.emplace_back("alpha", &mAlpha, PluginFieldType::kFLOAT32, 1);
        mFCToSerialize.nbFields = static_cast<int32_t>(mDataToSerialize.size());
        mFCToSerialize.fields = mDataToSerialize.data();
        return &mFCToSerialize;
    }
    catch (std::exception const&)
    {
        return nullptr;
    }
}

ScaledAddPluginCreator::ScaledAddPluginCreator()
{
    mPluginAttributes.emplace_back("alpha", nullptr, PluginFieldType::kFLOAT32, 1);
    mFC.nbFields = static_cast<int32_t>(mPluginAttributes.size());
    mFC.fields = mPluginAttributes.data();
}

AsciiChar const* ScaledAddPluginCreator::getPluginName() const noexcept
{
    return kSCALED_ADD_NAME;
}

AsciiChar const* ScaledAddPluginCreator::getPluginVersion() const noexcept
{
    return kSCALED_ADD_VERSION;
}

AsciiChar const* ScaledAddPluginCreator::getPluginNamespace() const noexcept
{
    return mNamespace.c_str();
}

PluginFieldCollection const* ScaledAddPluginCreator::getFieldNames() noexcept
{
    return &mFC;
}

IPluginV3* ScaledAddPluginCreator::createPlugin(
    AsciiChar const* /*name*/, PluginFieldCollection const* fc, TensorRTPhase /*phase*/) noexcept
{
    // kBUILD and kRUNTIME read the same field: getFieldsToSerialize writes alpha as given.
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
    try
    {
        return new ScaledAddPlugin(alpha, mNamespace);
    }
    catch (std::exception const&)
    {
        return nullptr;
    }
}

void ScaledAddPluginCreator::setPluginNamespace(AsciiChar const* pluginNamespace) noexcept
{
    try
    {
        mNamespace = pluginNamespace != nullptr ? pluginNamespace : "";
    }
    catch (std::exception const&)
    {
    }
}

REGISTER_TENSORRT_PLUGIN(ScaledAddPluginCreator);

} // namespace kiln_seed
