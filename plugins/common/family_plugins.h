// Plugins whose versions differ only in interface: NVIDIA's IPluginV2DynamicExt version and its IPluginV3 version of
// one operation (ROIAlign_TRT 1 and 2, ScatterElements 1 and 2). The operation is written once, as a family of static
// functions, and these templates make both plugins of it:
//
//     struct RoiAlignFamily
//     {
//         using Params = RoiAlignParams;
//         static constexpr char const* kName = "ROIAlign_TRT";
//         static constexpr char const* kDynamicVersion = "1"; // the IPluginV2DynamicExt plugin
//         static constexpr char const* kV3Version = "2";      // the IPluginV3 plugin
//         static void check(Params const& params);            // throws PluginError on a bad field
//         //! The one output's shape; throws PluginError on bad input shapes.
//         static nvinfer1::DimsExprs outputShape(Params const& params, nvinfer1::DimsExprs const* inputs,
//             int32_t nbInputs, nvinfer1::IExprBuilder& exprBuilder);
//         //! supportsFormatCombination's answer; only inOut[0..pos] are filled in.
//         static bool supportsFormat(int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs);
//         static void runHost(Params const& params, PluginTensors const& io);
//         static void runDevice(Params const& params, PluginTensors const& io, cudaStream_t stream);
//     };
//     using RoiAlignPluginV1 = FamilyDynamicPlugin<RoiAlignFamily>;
//     using RoiAlignPluginV2 = FamilyV3Plugin<RoiAlignFamily>;
//
// The output has the first input's type.
#pragma once

#include "dynamic_plugin.h"
#include "v3_plugin.h"

#include <vector>

namespace kiln::plugins
{

template <typename Family>
class FamilyDynamicPlugin : public DynamicPlugin<FamilyDynamicPlugin<Family>, typename Family::Params>
{
    using Base = DynamicPlugin<FamilyDynamicPlugin<Family>, typename Family::Params>;

public:
    static constexpr char const* kName = Family::kName;
    static constexpr char const* kVersion = Family::kDynamicVersion;
    using Base::Base;

    static void check(typename Family::Params const& params)
    {
        Family::check(params);
    }

    int32_t getNbOutputs() const noexcept override
    {
        return 1;
    }
    nvinfer1::DimsExprs getOutputDimensions(int32_t /*outputIndex*/, nvinfer1::DimsExprs const* inputs,
        int32_t nbInputs, nvinfer1::IExprBuilder& exprBuilder) noexcept override
    {
        return guarded(kName, "getOutputDimensions", nvinfer1::DimsExprs{-1, {}},
            [&] { return Family::outputShape(this->mParams, inputs, nbInputs, exprBuilder); });
    }
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override
    {
        return pos >= 0 && pos < nbInputs + nbOutputs && Family::supportsFormat(pos, inOut, nbInputs);
    }
    nvinfer1::DataType getOutputDataType(
        int32_t /*index*/, nvinfer1::DataType const* inputTypes, int32_t /*nbInputs*/) const noexcept override
    {
        return inputTypes[0];
    }

    void runHost(PluginTensors const& io) const
    {
        Family::runHost(this->mParams, io);
    }
    void runDevice(PluginTensors const& io, cudaStream_t stream) const
    {
        Family::runDevice(this->mParams, io, stream);
    }
};

template <typename Family>
class FamilyV3Plugin : public V3Plugin<FamilyV3Plugin<Family>, typename Family::Params>
{
    using Base = V3Plugin<FamilyV3Plugin<Family>, typename Family::Params>;

public:
    static constexpr char const* kName = Family::kName;
    static constexpr char const* kVersion = Family::kV3Version;
    using Base::Base;

    static void check(typename Family::Params const& params)
    {
        Family::check(params);
    }

    int32_t getNbOutputs() const noexcept override
    {
        return 1;
    }
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t /*nbOutputs*/,
        nvinfer1::DataType const* inputTypes, int32_t /*nbInputs*/) const noexcept override
    {
        outputTypes[0] = inputTypes[0];
        return 0;
    }
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::DimsExprs const* /*shapeInputs*/, int32_t /*nbShapeInputs*/, nvinfer1::DimsExprs* outputs,
        int32_t /*nbOutputs*/, nvinfer1::IExprBuilder& exprBuilder) noexcept override
    {
        return guarded(kName, "getOutputShapes", int32_t{-1}, [&] {
            outputs[0] = Family::outputShape(this->mParams, inputs, nbInputs, exprBuilder);
            return int32_t{0};
        });
    }
    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) noexcept override
    {
        if (pos < 0 || pos >= nbInputs + nbOutputs)
        {
            return false;
        }
        return guarded(kName, "supportsFormatCombination", false, [&] {
            std::vector<nvinfer1::PluginTensorDesc> descs(static_cast<size_t>(pos) + 1);
            for (int32_t i = 0; i <= pos; ++i)
            {
                descs[static_cast<size_t>(i)] = inOut[i].desc;
            }
            return Family::supportsFormat(pos, descs.data(), nbInputs);
        });
    }

    void runHost(PluginTensors const& io) const
    {
        Family::runHost(this->mParams, io);
    }
    void runDevice(PluginTensors const& io, cudaStream_t stream) const
    {
        Family::runDevice(this->mParams, io, stream);
    }
};

} // namespace kiln::plugins
