// ScatterElements: version 1 (IPluginV2DynamicExt) and version 2 (IPluginV3), ONNX ScatterElements with a
// reduction. Inputs data, indices (INT64; INT32 accepted too), updates; the output is data with each update combined
// into the element its index names along `axis`.
#pragma once

#include "common/twin_plugin.h"

#include <string>

namespace kiln::plugins
{

struct ScatterElementsParams
{
    std::string reduction; //!< "add", "mul", "max", "min", or "none" (a Kiln addition: the update replaces)
    int32_t axis{0};       //!< in [-rank, rank)

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("reduction", reduction, Need::kREQUIRED);
        field("axis", axis, Need::kOPTIONAL);
    }
};

//! Both versions' operation (common/twin_plugin.h).
struct ScatterElementsFamily : TwinCoreDefaults
{
    using Params = ScatterElementsParams;
    static constexpr char const* kName = "ScatterElements";
    static constexpr char const* kV2Version = "1";
    static constexpr char const* kV3Version = "2";
    static constexpr int32_t kNbOutputs = 1;

    static void check(Params const& params);
    static nvinfer1::DimsExprs outputShape(Params const& params, int32_t index, nvinfer1::DimsExprs const* inputs,
        int32_t nbInputs, nvinfer1::IExprBuilder& exprBuilder);
    static bool supports(Params const& params, int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs);
    static void runHost(Params const& params, PluginTensors const& io);
    static void runDevice(Params const& params, PluginTensors const& io, cudaStream_t stream);
};

using ScatterElementsPluginV1 = TwinV2Plugin<ScatterElementsFamily>;
using ScatterElementsPluginV2 = TwinV3Plugin<ScatterElementsFamily>;

} // namespace kiln::plugins
