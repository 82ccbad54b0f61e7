// RoiAlign (opsets 10 and 16) as the ROIAlign_TRT plugin (version 1) of Kiln's collection, as onnx-tensorrt imports
// it: the attributes become the plugin's fields, coded as integers, and batch_indices is cast to INT32. The
// application registers the collection first (initLibNvInferPlugins), as it does for TensorRT's parser.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"

#include <string>
#include <vector>

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;

//! The code the plugin's field takes for attribute `name`'s value: 1 for `one`, 0 for `zero`.
int32_t binaryChoice(Node const& node, char const* name, std::string const& fallback, char const* one, char const* zero)
{
    std::string const value = node.attrString(name, fallback);
    if (value != one && value != zero)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_ATTR,
            std::string("RoiAlign's ") + name + " \"" + value + "\" is none of \"" + one + "\" and \"" + zero + "\"");
    }
    return value == one ? 1 : 0;
}

nvinfer1::IPluginV2& roiAlignPlugin(ImportContext& ctx, Node const& node)
{
    nvinfer1::IPluginCreator* creator
        = ctx.network().getBuilder().getPluginRegistry().getPluginCreator("ROIAlign_TRT", "1", "");
    if (creator == nullptr)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE,
            "RoiAlign imports as the ROIAlign_TRT plugin (version 1), which is not registered: call "
            "initLibNvInferPlugins before parsing");
    }
    // Opset 10 has no coordinate_transformation_mode: its boxes are not shifted by half a pixel.
    int32_t const halfPixel = binaryChoice(node, "coordinate_transformation_mode",
        ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel", "half_pixel", "output_half_pixel");
    int32_t const average = binaryChoice(node, "mode", "avg", "avg", "max");
    auto const height = static_cast<int32_t>(node.attrInt("output_height", 1));
    auto const width = static_cast<int32_t>(node.attrInt("output_width", 1));
    auto const samplingRatio = static_cast<int32_t>(node.attrInt("sampling_ratio", 0));
    float const spatialScale = node.attrFloat("spatial_scale", 1.0F);
    std::vector<PluginField> const fields{{"coordinate_transformation_mode", &halfPixel, PluginFieldType::kINT32, 1},
        {"mode", &average, PluginFieldType::kINT32, 1}, {"output_height", &height, PluginFieldType::kINT32, 1},
        {"output_width", &width, PluginFieldType::kINT32, 1},
        {"sampling_ratio", &samplingRatio, PluginFieldType::kINT32, 1},
        {"spatial_scale", &spatialScale, PluginFieldType::kFLOAT32, 1}};
    nvinfer1::PluginFieldCollection const collection{static_cast<int32_t>(fields.size()), fields.data()};
    nvinfer1::IPluginV2* plugin = nullptr;
    try
    {
        plugin = creator->createPlugin(node.displayName().c_str(), &collection);
    }
    catch (std::exception const& e)
    {
        fail(ErrorCode::kINVALID_NODE, std::string("ROIAlign_TRT's createPlugin threw: ") + e.what());
    }
    if (plugin == nullptr)
    {
        fail(ErrorCode::kINVALID_NODE, "ROIAlign_TRT refused RoiAlign's attributes (the log says which)");
    }
    ctx.plugins().keep(plugin);
    return *plugin;
}

std::vector<Value> importRoiAlign(ImportContext& ctx, Node const& node)
{
    nvinfer1::IPluginV2& plugin = roiAlignPlugin(ctx, node);
    nvinfer1::ITensor* const inputs[] = {&inputTensor(ctx, node, 0), &inputTensor(ctx, node, 1),
        &castTo(ctx, inputTensor(ctx, node, 2), nvinfer1::DataType::kINT32)};
    return single(*ctx.check(ctx.network().addPluginV2(inputs, 3, plugin), "ROIAlign_TRT plugin").getOutput(0));
}

} // namespace

ImporterRegistration const kRoiAlignImporters([](ImporterTable& table) { table.add("RoiAlign", importRoiAlign); });

} // namespace kiln::onnxparser
