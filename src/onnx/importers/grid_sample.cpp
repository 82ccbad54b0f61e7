// GridSample (opsets 16 and 20) through IGridSampleLayer: ONNX's mode, padding_mode and align_corners map onto the
// layer's interpolation mode, sample mode and align corners. The layer samples 4-D inputs only (opset 20's
// volumetric 5-D GridSample is reported as unsupported) and wants the grid in the input's type, so a grid of
// another floating-point type is cast to it.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"

#include "core/data_type.h"

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::InterpolationMode;
using nvinfer1::SampleMode;

InterpolationMode interpolationMode(std::string const& mode)
{
    // Opset 16 spells them bilinear and bicubic; opset 20 renamed them linear and cubic.
    if (mode == "bilinear" || mode == "linear")
    {
        return InterpolationMode::kLINEAR;
    }
    if (mode == "nearest")
    {
        return InterpolationMode::kNEAREST;
    }
    if (mode == "bicubic" || mode == "cubic")
    {
        return InterpolationMode::kCUBIC;
    }
    fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "GridSample mode \"" + mode + "\" is not bilinear, nearest or bicubic");
}

SampleMode sampleMode(std::string const& paddingMode)
{
    if (paddingMode == "zeros")
    {
        return SampleMode::kFILL;
    }
    if (paddingMode == "border")
    {
        return SampleMode::kCLAMP;
    }
    if (paddingMode == "reflection")
    {
        return SampleMode::kREFLECT;
    }
    fail(ErrorCode::kUNSUPPORTED_NODE_ATTR,
        "GridSample padding_mode \"" + paddingMode + "\" is not zeros, border or reflection");
}

std::vector<Value> importGridSample(ImportContext& ctx, Node const& node)
{
    nvinfer1::ITensor& input = inputTensor(ctx, node, 0);
    nvinfer1::ITensor* grid = &inputTensor(ctx, node, 1);
    if (rankOf(input) != 4)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE,
            "GridSample supports 4-D inputs [N, C, H, W] only, not rank " + std::to_string(rankOf(input)));
    }
    if (!isFloatType(input.getType()) || !isFloatType(grid->getType()))
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "GridSample supports FLOAT, FLOAT16 and BFLOAT16 data and grids");
    }
    InterpolationMode const mode = interpolationMode(node.attrString("mode", "bilinear"));
    SampleMode const padding = sampleMode(node.attrString("padding_mode", "zeros"));
    if (grid->getType() != input.getType())
    {
        grid = &castTo(ctx, *grid, input.getType());
    }
    auto& layer = ctx.check(ctx.network().addGridSample(input, *grid), "grid sample");
    layer.setInterpolationMode(mode);
    layer.setSampleMode(padding);
    layer.setAlignCorners(node.attrInt("align_corners", 0) != 0);
    return single(*layer.getOutput(0));
}

} // namespace

ImporterRegistration const kGridSampleImporters(
    [](ImporterTable& table) { table.add("GridSample", importGridSample); });

} // namespace kiln::onnxparser
