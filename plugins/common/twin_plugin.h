// One plugin, two interfaces: NVIDIA ships several plugins both as an IPluginV2DynamicExt version (the older one)
// and as an IPluginV3 version with the same fields and math (CustomSkipLayerNormPluginDynamic 1 and 5,
// DisentangledAttention_TRT 1 and 2, ROIAlign_TRT 1 and 2...). The plugin's "core" describes its shapes, formats and
// kernels once; these templates turn it into both plugins.
//
//     struct SkipLayerNormCore // may derive from TwinCoreDefaults for outputType and workspaceSize
//     {
//         using Params = SkipLayerNormParams;
//         static constexpr char const* kName = "CustomSkipLayerNormPluginDynamic";
//         static constexpr char const* kV2Version = "1";
//         static constexpr char const* kV3Version = "5";
//         static constexpr int32_t kNbOutputs = 1;
//         static void check(Params const& params);                       // throws PluginError on a bad field
//         static nvinfer1::DimsExprs outputShape(Params const&, int32_t index, nvinfer1::DimsExprs const* inputs,
//             int32_t nbInputs, nvinfer1::IExprBuilder& builder);      // throws PluginError on bad input shapes
//         static bool supports(Params const&, int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs,
//             int32_t nbOutputs);
//         static nvinfer1::DataType outputType(Params const&, int32_t index, nvinfer1::DataType const* inputTypes);
//         static size_t workspaceSize(Params const&, nvinfer1::PluginTensorDesc const* inputs, int32_t nbInputs);
//         void runHost(Params const&, PluginTensors const& io) const;
//         void runDevice(Params const&, PluginTensors const& io, cudaStream_t stream) const;
//         // members: device state only (DeviceWeights...), which a copy starts without
//     };
//
//     KILN_COLLECT_PLUGIN(V2PluginCreator<TwinV2Plugin<SkipLayerNormCore>>)
//     KILN_COLLECT_PLUGIN(V3PluginCreator<TwinV3Plugin<SkipLayerNormCore>>)
#pragma once

#include "dynamic_plugin.h"
#include "v3_plugin.h"

#include <vector>

namespace kiln::plugins
{

//! What most cores share: outputs of the first input's type and no workspace. A core derives from it and declares
//! only what differs.
struct TwinCoreDefaults
{
    static nvinfer1::DataType outputType(
        auto const& /*params*/, int32_t /*index*/, nvinfer1::DataType const* inputTypes)
    {
        return inputTypes[0];
    }
    static size_t workspaceSize(
        auto const& /*params*/, nvinfer1::PluginTensorDesc const* /*inputs*/, int32_t /*nbInputs*/)
    {
        return 0;
    }
};

template <typename Core>
class TwinV2Plugin : public DynamicPlugin<TwinV2Plugin<Core>, typename Core::Params>
{
    using Base = DynamicPlugin<TwinV2Plugin<Core>, typename Core::Params>;

public:
    static constexpr char const* kName = Core::kName;
    static constexpr char const* kVersion = Core::kV2Version;
    using Base::Base;

    static void check(typename Core::Params const& params)
    {
        Core::check(params);
    }

    int32_t getNbOutputs() const noexcept override
    {
        return Core::kNbOutputs;
    }
    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override
    {
        return guarded(kName, "getOutputDimensions", nvinfer1::DimsExprs{-1, {}},
            [&] { return Core::outputShape(this->mParams, outputIndex, inputs, nbInputs, exprBuilder); });
    }
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override
    {
        // A core may index inOut[pos] and the tensors before it without checking pos.
        return pos >= 0 && pos < nbInputs + nbOutputs && guarded(kName, "supportsFormatCombination", false, [&] {
            return Core::supports(this->mParams, pos, inOut, nbInputs, nbOutputs);
        });
    }
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t /*nbInputs*/) const noexcept override
    {
        return Core::outputType(this->mParams, index, inputTypes);
    }
    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::PluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept override
    {
        return guarded(
            kName, "getWorkspaceSize", size_t{0}, [&] { return Core::workspaceSize(this->mParams, inputs, nbInputs); });
    }

    void runHost(PluginTensors const& io) const
    {
        mCore.runHost(this->mParams, io);
    }
    void runDevice(PluginTensors const& io, cudaStream_t stream) const
    {
        mCore.runDevice(this->mParams, io, stream);
    }

private:
    Core mCore;
};

template <typename Core>
class TwinV3Plugin : public V3Plugin<TwinV3Plugin<Core>, typename Core::Params>
{
    using Base = V3Plugin<TwinV3Plugin<Core>, typename Core::Params>;

public:
    static constexpr char const* kName = Core::kName;
    static constexpr char const* kVersion = Core::kV3Version;
    using Base::Base;

    static void check(typename Core::Params const& params)
    {
        Core::check(params);
    }

    int32_t getNbOutputs() const noexcept override
    {
        return Core::kNbOutputs;
    }
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs, nvinfer1::DataType const* inputTypes,
        int32_t /*nbInputs*/) const noexcept override
    {
        for (int32_t i = 0; i < nbOutputs; ++i)
        {
            outputTypes[i] = Core::outputType(this->mParams, i, inputTypes);
        }
        return 0;
    }
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::DimsExprs const* /*shapeInputs*/, int32_t /*nbShapeInputs*/, nvinfer1::DimsExprs* outputs,
        int32_t nbOutputs, nvinfer1::IExprBuilder& exprBuilder) noexcept override
    {
        return guarded(kName, "getOutputShapes", int32_t{1}, [&] {
            for (int32_t i = 0; i < nbOutputs; ++i)
            {
                outputs[i] = Core::outputShape(this->mParams, i, inputs, nbInputs, exprBuilder);
            }
            return int32_t{0};
        });
    }
    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) noexcept override
    {
        return pos >= 0 && pos < nbInputs + nbOutputs && guarded(kName, "supportsFormatCombination", false, [&] {
            return Core::supports(this->mParams, pos, descs(inOut, nbInputs + nbOutputs).data(), nbInputs, nbOutputs);
        });
    }
    size_t getWorkspaceSize(nvinfer1::DynamicPluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept override
    {
        return guarded(kName, "getWorkspaceSize", size_t{0}, [&] {
            // Enough for the largest shapes the profile allows.
            std::vector<nvinfer1::PluginTensorDesc> largest = descs(inputs, nbInputs);
            for (int32_t i = 0; i < nbInputs; ++i)
            {
                largest[i].dims = inputs[i].max;
            }
            return Core::workspaceSize(this->mParams, largest.data(), nbInputs);
        });
    }

    void runHost(PluginTensors const& io) const
    {
        mCore.runHost(this->mParams, io);
    }
    void runDevice(PluginTensors const& io, cudaStream_t stream) const
    {
        mCore.runDevice(this->mParams, io, stream);
    }

private:
    static std::vector<nvinfer1::PluginTensorDesc> descs(
        nvinfer1::DynamicPluginTensorDesc const* tensors, int32_t count)
    {
        std::vector<nvinfer1::PluginTensorDesc> result;
        for (int32_t i = 0; i < count; ++i)
        {
            result.push_back(tensors[i].desc);
        }
        return result;
    }
    Core mCore;
};

} // namespace kiln::plugins
