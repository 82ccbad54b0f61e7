// Resize (opsets 10 to 19) and Upsample (7 to 9) through IResizeLayer. ONNX's attributes map onto the layer's
// modes; the output shape comes from constant scales (which also drive the coordinate mapping, as ONNX says), from
// constant sizes, or from sizes computed at run time out of shapes (a shape tensor).
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"
#include "onnx/shape_tensors.h"

#include <algorithm>

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::InterpolationMode;
using nvinfer1::IResizeLayer;
using nvinfer1::ITensor;
using nvinfer1::ResizeCoordinateTransformation;
using nvinfer1::ResizeRoundMode;
using nvinfer1::ResizeSelector;

InterpolationMode interpolationMode(std::string const& mode)
{
    if (mode == "nearest")
    {
        return InterpolationMode::kNEAREST;
    }
    if (mode == "linear" || mode == "bilinear") // "bilinear" is Upsample-1's name for it
    {
        return InterpolationMode::kLINEAR;
    }
    if (mode == "cubic")
    {
        return InterpolationMode::kCUBIC;
    }
    fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "mode \"" + mode + "\" is not nearest, linear or cubic");
}

ResizeRoundMode nearestRounding(std::string const& mode)
{
    if (mode == "round_prefer_floor")
    {
        return ResizeRoundMode::kHALF_DOWN;
    }
    if (mode == "round_prefer_ceil")
    {
        return ResizeRoundMode::kHALF_UP;
    }
    if (mode == "floor")
    {
        return ResizeRoundMode::kFLOOR;
    }
    if (mode == "ceil")
    {
        return ResizeRoundMode::kCEIL;
    }
    fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "nearest_mode \"" + mode + "\" is not one of ONNX's four");
}

//! Resize-11+'s coordinate_transformation_mode and nearest_mode on the layer.
void setCoordinateMapping(Node const& node, IResizeLayer& layer, InterpolationMode mode)
{
    std::string const transformation = node.attrString("coordinate_transformation_mode", "half_pixel");
    ResizeRoundMode rounding = nearestRounding(node.attrString("nearest_mode", "round_prefer_floor"));
    if (transformation == "half_pixel")
    {
        layer.setCoordinateTransformation(ResizeCoordinateTransformation::kHALF_PIXEL);
    }
    else if (transformation == "pytorch_half_pixel")
    {
        // Like half_pixel, except that an output extent of 1 samples input coordinate 0.
        layer.setCoordinateTransformation(ResizeCoordinateTransformation::kHALF_PIXEL);
        layer.setSelectorForSinglePixel(ResizeSelector::kUPPER);
    }
    else if (transformation == "align_corners")
    {
        layer.setCoordinateTransformation(ResizeCoordinateTransformation::kALIGN_CORNERS);
    }
    else if (transformation == "asymmetric")
    {
        layer.setCoordinateTransformation(ResizeCoordinateTransformation::kASYMMETRIC);
    }
    else if (transformation == "tf_half_pixel_for_nn" && mode == InterpolationMode::kNEAREST)
    {
        // tf_half_pixel_for_nn samples u = (x + 0.5) / scale; half_pixel samples v = u - 0.5. Rounding u with
        // round_prefer_floor (ceil(u - 0.5)) is ceil(v), and flooring u (floor(v + 0.5)) is rounding v half up;
        // the other two roundings of u have no counterpart on v.
        layer.setCoordinateTransformation(ResizeCoordinateTransformation::kHALF_PIXEL);
        if (rounding == ResizeRoundMode::kHALF_DOWN)
        {
            rounding = ResizeRoundMode::kCEIL;
        }
        else if (rounding == ResizeRoundMode::kFLOOR)
        {
            rounding = ResizeRoundMode::kHALF_UP;
        }
        else
        {
            fail(ErrorCode::kUNSUPPORTED_NODE_ATTR,
                "tf_half_pixel_for_nn is supported with nearest_mode round_prefer_floor or floor only");
        }
    }
    else
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_ATTR,
            "coordinate_transformation_mode \"" + transformation
                + "\" is not supported (TensorRT's resize layer has no region of interest or extrapolation)");
    }
    layer.setNearestRounding(rounding);
}

//! ONNX's per-axis values (scales or sizes) for the given axes, completed with `fill` for the other axes.
template <typename T>
std::vector<T> overAllAxes(std::vector<T> const& values, std::vector<int64_t> const& axes, int32_t rank, T fill,
    std::vector<int64_t> const* inputDims)
{
    if (axes.empty())
    {
        if (static_cast<int32_t>(values.size()) != rank)
        {
            fail(ErrorCode::kINVALID_NODE,
                std::to_string(values.size()) + " scales or sizes for an input of rank " + std::to_string(rank));
        }
        return values;
    }
    if (axes.size() != values.size())
    {
        fail(ErrorCode::kINVALID_NODE, "axes and scales/sizes differ in length");
    }
    std::vector<T> all(static_cast<size_t>(rank), fill);
    if (inputDims != nullptr)
    {
        all.assign(inputDims->begin(), inputDims->end());
    }
    for (size_t i = 0; i < axes.size(); ++i)
    {
        all[static_cast<size_t>(normalizeAxis(axes[i], rank))] = values[i];
    }
    return all;
}

//! Sets the output shape from constant scales, constant sizes or run-time sizes.
void setOutputShape(
    ImportContext& ctx, Node const& node, IResizeLayer& layer, ITensor& input, int32_t scalesIndex, int32_t sizesIndex)
{
    int32_t const rank = rankOf(input);
    std::vector<int64_t> const axes = node.attrInts("axes");
    bool const hasScales = node.hasInput(scalesIndex)
        && !(isConstantInput(node, scalesIndex) && node.input(scalesIndex).constant().count() == 0);
    if (hasScales)
    {
        std::vector<float> const scales
            = overAllAxes(constantFloats(node, scalesIndex, "scales"), axes, rank, 1.0F, nullptr);
        for (float scale : scales)
        {
            if (!(scale > 0.0F))
            {
                fail(ErrorCode::kINVALID_NODE, "scales must be positive");
            }
        }
        layer.setScales(scales.data(), rank);
        return;
    }
    if (sizesIndex < 0 || !node.hasInput(sizesIndex))
    {
        fail(ErrorCode::kINVALID_NODE, "Resize needs scales or sizes");
    }
    if (isConstantInput(node, sizesIndex))
    {
        std::vector<int64_t> inputDims(static_cast<size_t>(rank));
        for (int32_t i = 0; i < rank; ++i)
        {
            inputDims[static_cast<size_t>(i)] = staticExtent(input, i);
        }
        bool const allKnown = std::find(inputDims.begin(), inputDims.end(), -1) == inputDims.end();
        if (!axes.empty() && !allKnown)
        {
            fail(ErrorCode::kUNSUPPORTED_NODE_DYNAMIC, "sizes with axes need the input's shape known at build time");
        }
        std::vector<int64_t> const sizes
            = overAllAxes(constantInts(node, sizesIndex, "sizes"), axes, rank, int64_t{1}, &inputDims);
        nvinfer1::Dims dims{};
        dims.nbDims = rank;
        std::copy(sizes.begin(), sizes.end(), dims.d);
        layer.setOutputDimensions(dims);
        return;
    }
    if (!axes.empty())
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_INPUT, "sizes computed at run time are supported without axes only");
    }
    ITensor& sizes = castTo(ctx, inputTensor(ctx, node, sizesIndex), nvinfer1::DataType::kINT64);
    layer.setInput(1, requireShapeValues(sizes, "sizes"));
}

std::vector<Value> importResize(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    if (node.attrInt("antialias", 0) != 0)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "antialias is not supported (TensorRT's resize layer has none)");
    }
    if (node.attrString("keep_aspect_ratio_policy", "stretch") != "stretch")
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "keep_aspect_ratio_policy other than stretch is not supported");
    }
    InterpolationMode const mode = interpolationMode(node.attrString("mode", "nearest"));
    auto& layer = ctx.check(ctx.network().addResize(input), "resize");
    layer.setResizeMode(mode);
    if (ctx.opset() < 11)
    {
        // Resize-10: inputs X and scales; asymmetric coordinates, nearest flooring (as Upsample).
        layer.setCoordinateTransformation(ResizeCoordinateTransformation::kASYMMETRIC);
        layer.setNearestRounding(ResizeRoundMode::kFLOOR);
        setOutputShape(ctx, node, layer, input, 1, -1);
        return single(*layer.getOutput(0));
    }
    setCoordinateMapping(node, layer, mode);
    if (mode == InterpolationMode::kCUBIC)
    {
        layer.setCubicCoeff(node.attrFloat("cubic_coeff_a", -0.75F));
    }
    layer.setExcludeOutside(node.attrInt("exclude_outside", 0) != 0);
    // Inputs: X, roi (used by tf_crop_and_resize only, rejected above), scales, sizes.
    setOutputShape(ctx, node, layer, input, 2, 3);
    return single(*layer.getOutput(0));
}

std::vector<Value> importUpsample(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    InterpolationMode const mode = interpolationMode(node.attrString("mode", "nearest"));
    if (mode == InterpolationMode::kCUBIC)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "Upsample has no cubic mode");
    }
    auto& layer = ctx.check(ctx.network().addResize(input), "resize");
    layer.setResizeMode(mode);
    layer.setCoordinateTransformation(ResizeCoordinateTransformation::kASYMMETRIC);
    layer.setNearestRounding(ResizeRoundMode::kFLOOR);
    if (ctx.opset() < 9)
    {
        std::vector<float> const scales = node.attrFloats("scales");
        if (static_cast<int32_t>(scales.size()) != rankOf(input))
        {
            fail(ErrorCode::kINVALID_NODE, "Upsample needs one scale per input dim");
        }
        layer.setScales(scales.data(), static_cast<int32_t>(scales.size()));
    }
    else
    {
        setOutputShape(ctx, node, layer, input, 1, -1);
    }
    return single(*layer.getOutput(0));
}

} // namespace

ImporterRegistration const kResizeImporters([](ImporterTable& table) {
    table.add("Resize", importResize);
    table.add("Upsample", importUpsample);
});

} // namespace kiln::onnxparser
