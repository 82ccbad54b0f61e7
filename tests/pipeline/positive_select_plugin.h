// A test plugin (IPluginV3) with a data-dependent output: from an FP32 vector [N] it keeps the positive elements, in
// order (output 0, FP32 [count]), and writes count to output 1, a 0-D INT32 size tensor declared with
// IExprBuilder::declareSizeTensor(1, ceil(N / 2), N). It runs on the CPU backend (kiln::IHostPlugin); on the CUDA
// backend its enqueue calls PositiveSelectSettings::deviceEnqueue, which the CUDA tests set. The settings let tests
// make it misbehave: declare the size tensor at another output, or report a count above its upper bound.
#pragma once

#include <NvInfer.h>
#include <kiln/HostPlugin.h>

#include <cstring>
#include <functional>

namespace kiln::test
{

inline constexpr char const* kPositiveSelectName = "KilnPositiveSelect";
inline constexpr char const* kPositiveSelectVersion = "1";

//! Keeps the positive values of `input` (`elements` of them) in `values`; returns how many.
inline int32_t selectPositives(float const* input, int64_t elements, float* values)
{
    int32_t count = 0;
    for (int64_t i = 0; i < elements; ++i)
    {
        if (input[i] > 0.0F)
        {
            values[count++] = input[i];
        }
    }
    return count;
}

//! How the plugins behave; tests set it, one test at a time, and reset it after.
struct PositiveSelectSettings
{
    static inline int32_t sizeOutputIndex = 1; //!< where getOutputShapes declares the size tensor
    static inline int32_t extraCount = 0;      //!< added to the count the plugin writes
    //! The CUDA backend's enqueue: (input, elements, values, count) in device memory, on the stream.
    static inline std::function<int32_t(float const*, int64_t, float*, int32_t*, cudaStream_t)> deviceEnqueue;

    static void reset()
    {
        sizeOutputIndex = 1;
        extraCount = 0;
    }
};

class PositiveSelectPlugin final : public nvinfer1::IPluginV3,
                                   public nvinfer1::IPluginV3OneCore,
                                   public nvinfer1::IPluginV3OneBuild,
                                   public nvinfer1::IPluginV3OneRuntime,
                                   public kiln::IHostPlugin
{
public:
    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
    {
        switch (type)
        {
        case nvinfer1::PluginCapabilityType::kCORE: return static_cast<nvinfer1::IPluginV3OneCore*>(this);
        case nvinfer1::PluginCapabilityType::kBUILD: return static_cast<nvinfer1::IPluginV3OneBuild*>(this);
        case nvinfer1::PluginCapabilityType::kRUNTIME: return static_cast<nvinfer1::IPluginV3OneRuntime*>(this);
        }
        return nullptr;
    }
    nvinfer1::IPluginV3* clone() noexcept override
    {
        return new PositiveSelectPlugin();
    }
    char const* getPluginName() const noexcept override
    {
        return kPositiveSelectName;
    }
    char const* getPluginVersion() const noexcept override
    {
        return kPositiveSelectVersion;
    }
    char const* getPluginNamespace() const noexcept override
    {
        return "";
    }

    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const*, int32_t, nvinfer1::DynamicPluginTensorDesc const*,
        int32_t) noexcept override
    {
        return 0;
    }
    int32_t getOutputDataTypes(
        nvinfer1::DataType* outputTypes, int32_t, nvinfer1::DataType const*, int32_t) const noexcept override
    {
        outputTypes[0] = nvinfer1::DataType::kFLOAT;
        outputTypes[1] = nvinfer1::DataType::kINT32;
        return 0;
    }
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t, nvinfer1::DimsExprs const*, int32_t,
        nvinfer1::DimsExprs* outputs, int32_t, nvinfer1::IExprBuilder& exprs) noexcept override
    {
        nvinfer1::IDimensionExpr const& n = *inputs[0].d[0];
        nvinfer1::IDimensionExpr const* half
            = exprs.operation(nvinfer1::DimensionOperation::kCEIL_DIV, n, *exprs.constant(2));
        outputs[0].nbDims = 1;
        outputs[0].d[0] = exprs.declareSizeTensor(PositiveSelectSettings::sizeOutputIndex, *half, n);
        outputs[1].nbDims = 0;
        return outputs[0].d[0] == nullptr ? 1 : 0;
    }
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        nvinfer1::DataType const wanted = pos == 2 ? nvinfer1::DataType::kINT32 : nvinfer1::DataType::kFLOAT;
        return inOut[pos].desc.type == wanted && inOut[pos].desc.format == nvinfer1::TensorFormat::kLINEAR;
    }
    int32_t getNbOutputs() const noexcept override
    {
        return 2;
    }
    size_t getWorkspaceSize(nvinfer1::DynamicPluginTensorDesc const*, int32_t, nvinfer1::DynamicPluginTensorDesc const*,
        int32_t) const noexcept override
    {
        return 0;
    }

    int32_t onShapeChange(
        nvinfer1::PluginTensorDesc const*, int32_t, nvinfer1::PluginTensorDesc const*, int32_t) noexcept override
    {
        return 0;
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const*,
        void const* const* inputs, void* const* outputs, void*, cudaStream_t stream) noexcept override
    {
        if (!PositiveSelectSettings::deviceEnqueue)
        {
            return 1;
        }
        return PositiveSelectSettings::deviceEnqueue(static_cast<float const*>(inputs[0]), inputDesc[0].dims.d[0],
            static_cast<float*>(outputs[0]), static_cast<int32_t*>(outputs[1]), stream);
    }
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext*) noexcept override
    {
        return clone();
    }
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        return &mNoFields;
    }

    //! The output descriptions hold the capacity: [N] for the values, whatever the count.
    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void*) noexcept override
    {
        if (outputDesc[0].dims.d[0] < inputDesc[0].dims.d[0])
        {
            return 1;
        }
        int32_t const count = selectPositives(
            static_cast<float const*>(inputs[0]), inputDesc[0].dims.d[0], static_cast<float*>(outputs[0]));
        *static_cast<int32_t*>(outputs[1]) = count + PositiveSelectSettings::extraCount;
        return 0;
    }

private:
    nvinfer1::PluginFieldCollection mNoFields{0, nullptr};
};

class PositiveSelectCreator final : public nvinfer1::IPluginCreatorV3One
{
public:
    nvinfer1::IPluginV3* createPlugin(
        char const*, nvinfer1::PluginFieldCollection const*, nvinfer1::TensorRTPhase) noexcept override
    {
        return new PositiveSelectPlugin();
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override
    {
        return &mNoFields;
    }
    char const* getPluginName() const noexcept override
    {
        return kPositiveSelectName;
    }
    char const* getPluginVersion() const noexcept override
    {
        return kPositiveSelectVersion;
    }
    char const* getPluginNamespace() const noexcept override
    {
        return "";
    }

    //! Registers one creator for the process, so that plans with the plugin can be loaded.
    static void registerOnce()
    {
        static PositiveSelectCreator creator;
        static bool const registered = getPluginRegistry()->registerCreator(creator, "");
        (void) registered;
    }

private:
    nvinfer1::PluginFieldCollection mNoFields{0, nullptr};
};

} // namespace kiln::test
