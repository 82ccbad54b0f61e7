// InstanceNormalization_TRT: versions 1 and 2 (IPluginV2DynamicExt; NVIDIA keeps 2 as an identical copy of 1 for
// old plans) and version 3 (IPluginV3). The math and checks live in instance_norm_params.h.
#pragma once

#include "instance_norm_params.h"

#include "common/dynamic_plugin.h"
#include "common/formats.h"
#include "common/v3_plugin.h"

namespace kiln::plugins
{

//! Versions 1 and 2: everything but the version string.
template <typename Derived>
class InstanceNormDynamic : public DynamicPlugin<Derived, InstanceNormParams>
{
public:
    static constexpr char const* kName = kInstanceNormName;
    using DynamicPlugin<Derived, InstanceNormParams>::DynamicPlugin;

    static void check(InstanceNormParams const& params)
    {
        checkInstanceNormParams(params);
    }

    int32_t getNbOutputs() const noexcept override
    {
        return 1;
    }
    nvinfer1::DimsExprs getOutputDimensions(int32_t /*outputIndex*/, nvinfer1::DimsExprs const* inputs,
        int32_t /*nbInputs*/, nvinfer1::IExprBuilder& /*exprBuilder*/) noexcept override
    {
        return instanceNormOutputDims(this->mParams, inputs[0]);
    }
    bool supportsFormatCombination(int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        return linearSameFloat(inOut, pos);
    }
    nvinfer1::DataType getOutputDataType(
        int32_t /*index*/, nvinfer1::DataType const* inputTypes, int32_t /*nbInputs*/) const noexcept override
    {
        return inputTypes[0];
    }
    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* inputs, int32_t /*nbInputs*/,
        nvinfer1::PluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept override
    {
        return instanceNormWorkspaceSize(inputs[0].dims);
    }

    void runHost(PluginTensors const& io) const
    {
        runInstanceNormHost(this->mParams, io);
    }
    void runDevice(PluginTensors const& io, cudaStream_t stream) const
    {
        runInstanceNormDevice(this->mParams, mDeviceScales, mDeviceBias, io, stream);
    }

private:
    DeviceWeights mDeviceScales;
    DeviceWeights mDeviceBias;
};

class InstanceNormPluginV1 final : public InstanceNormDynamic<InstanceNormPluginV1>
{
public:
    static constexpr char const* kVersion = "1";
    using InstanceNormDynamic::InstanceNormDynamic;
};

class InstanceNormPluginV2 final : public InstanceNormDynamic<InstanceNormPluginV2>
{
public:
    static constexpr char const* kVersion = "2";
    using InstanceNormDynamic::InstanceNormDynamic;
};

class InstanceNormPluginV3 final : public V3Plugin<InstanceNormPluginV3, InstanceNormParams>
{
public:
    static constexpr char const* kName = kInstanceNormName;
    static constexpr char const* kVersion = "3";
    using V3Plugin::V3Plugin;

    static void check(InstanceNormParams const& params)
    {
        checkInstanceNormParams(params);
    }

    int32_t getNbOutputs() const noexcept override;
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs, nvinfer1::DataType const* inputTypes,
        int32_t nbInputs) const noexcept override;
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, nvinfer1::DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) noexcept override;
    size_t getWorkspaceSize(nvinfer1::DynamicPluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;

private:
    DeviceWeights mDeviceScales;
    DeviceWeights mDeviceBias;
};

} // namespace kiln::plugins
