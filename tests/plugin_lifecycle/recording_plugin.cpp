#include "recording_plugin.h"

#include "device_common/half.h"

#include <cstring>
#include <stdexcept>
#include <utility>

namespace kiln::test
{

std::mutex CallLog::sMutex;
std::vector<std::string> CallLog::sCalls;

void CallLog::record(std::string call)
{
    std::lock_guard<std::mutex> lock(sMutex);
    sCalls.push_back(std::move(call));
}

std::vector<std::string> CallLog::take()
{
    std::lock_guard<std::mutex> lock(sMutex);
    return std::exchange(sCalls, {});
}

nvinfer1::IPluginV2DynamicExt* RecordingPlugin::clone() const noexcept
{
    CallLog::record("clone");
    auto* copy = new RecordingPlugin(mOptions);
    copy->setPluginNamespace(mNamespace.c_str());
    return copy;
}

nvinfer1::DimsExprs RecordingPlugin::getOutputDimensions(
    int32_t, nvinfer1::DimsExprs const* inputs, int32_t, nvinfer1::IExprBuilder&) noexcept
{
    CallLog::record("getOutputDimensions");
    return inputs[0];
}

bool RecordingPlugin::supportsFormatCombination(
    int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t, int32_t) noexcept
{
    CallLog::record("supportsFormatCombination");
    bool typeOk = false;
    for (auto type : mOptions.types)
    {
        typeOk = typeOk || inOut[pos].type == type;
    }
    return typeOk && inOut[pos].format == nvinfer1::TensorFormat::kLINEAR
        && (pos == 0 || inOut[pos].type == inOut[0].type);
}

void RecordingPlugin::configurePlugin(
    nvinfer1::DynamicPluginTensorDesc const*, int32_t, nvinfer1::DynamicPluginTensorDesc const*, int32_t) noexcept
{
    CallLog::record("configurePlugin");
}

size_t RecordingPlugin::getWorkspaceSize(
    nvinfer1::PluginTensorDesc const*, int32_t, nvinfer1::PluginTensorDesc const*, int32_t) const noexcept
{
    CallLog::record("getWorkspaceSize");
    return 64;
}

int32_t RecordingPlugin::enqueue(nvinfer1::PluginTensorDesc const*, nvinfer1::PluginTensorDesc const*,
    void const* const*, void* const*, void*, cudaStream_t) noexcept
{
    CallLog::record("enqueue");
    return 1; // never called on the CPU backend
}

nvinfer1::DataType RecordingPlugin::getOutputDataType(
    int32_t, nvinfer1::DataType const* inputTypes, int32_t) const noexcept
{
    CallLog::record("getOutputDataType");
    return inputTypes[0];
}

void RecordingPlugin::attachToContext(cudnnContext*, cublasContext*, nvinfer1::IGpuAllocator*) noexcept
{
    CallLog::record("attachToContext");
}

void RecordingPlugin::detachFromContext() noexcept
{
    CallLog::record("detachFromContext");
}

int32_t RecordingPlugin::getNbOutputs() const noexcept
{
    CallLog::record("getNbOutputs");
    return 1;
}

int32_t RecordingPlugin::initialize() noexcept
{
    CallLog::record("initialize");
    return 0;
}

void RecordingPlugin::terminate() noexcept
{
    CallLog::record("terminate");
}

size_t RecordingPlugin::getSerializationSize() const noexcept
{
    CallLog::record("getSerializationSize");
    return sizeof(int32_t) + mOptions.types.size() * sizeof(int32_t) + sizeof(int32_t);
}

void RecordingPlugin::serialize(void* buffer) const noexcept
{
    CallLog::record("serialize");
    auto* out = static_cast<int32_t*>(buffer);
    out[0] = static_cast<int32_t>(mOptions.failure);
    out[1] = static_cast<int32_t>(mOptions.types.size());
    for (size_t i = 0; i < mOptions.types.size(); ++i)
    {
        out[2 + i] = static_cast<int32_t>(mOptions.types[i]);
    }
}

void RecordingPlugin::destroy() noexcept
{
    CallLog::record("destroy");
    delete this;
}

nvinfer1::IPluginV2DynamicExt* HostRecordingPlugin::clone() const noexcept
{
    CallLog::record("clone");
    auto* copy = new HostRecordingPlugin(mOptions);
    copy->setPluginNamespace(mNamespace.c_str());
    return copy;
}

int32_t HostRecordingPlugin::enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const*,
    void const* const* inputs, void* const* outputs, void*)
{
    CallLog::record("enqueueHost");
    if (mOptions.failure == RecorderOptions::Failure::kENQUEUE_RETURNS_ERROR)
    {
        return 7;
    }
    if (mOptions.failure == RecorderOptions::Failure::kENQUEUE_THROWS)
    {
        throw std::runtime_error("kernel exploded");
    }
    int64_t count = 1;
    for (int32_t i = 0; i < inputDesc[0].dims.nbDims; ++i)
    {
        count *= inputDesc[0].dims.d[i];
    }
    if (inputDesc[0].type == nvinfer1::DataType::kHALF)
    {
        auto const* in = static_cast<uint16_t const*>(inputs[0]);
        auto* out = static_cast<uint16_t*>(outputs[0]);
        for (int64_t i = 0; i < count; ++i)
        {
            out[i] = kiln::floatToHalfBits(2.0f * kiln::halfBitsToFloat(in[i]));
        }
        return 0;
    }
    auto const* in = static_cast<float const*>(inputs[0]);
    auto* out = static_cast<float*>(outputs[0]);
    for (int64_t i = 0; i < count; ++i)
    {
        out[i] = 2.0f * in[i];
    }
    return 0;
}

nvinfer1::IPluginV2* RecordingCreator::createPlugin(char const*, nvinfer1::PluginFieldCollection const*) noexcept
{
    return new HostRecordingPlugin(RecorderOptions{});
}

nvinfer1::IPluginV2* RecordingCreator::deserializePlugin(char const*, void const* data, size_t size) noexcept
{
    CallLog::record("deserializePlugin");
    auto const* in = static_cast<int32_t const*>(data);
    if (size < 2 * sizeof(int32_t))
    {
        return nullptr;
    }
    RecorderOptions options;
    options.failure = static_cast<RecorderOptions::Failure>(in[0]);
    options.types.clear();
    for (int32_t i = 0; i < in[1]; ++i)
    {
        options.types.push_back(static_cast<nvinfer1::DataType>(in[2 + i]));
    }
    auto* plugin = new HostRecordingPlugin(options);
    plugin->setPluginNamespace(mNamespace.c_str());
    return plugin;
}

} // namespace kiln::test
