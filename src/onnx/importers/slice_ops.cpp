// Slice, Split and Pad, all through ISliceLayer (Pad uses its fill, reflect, clamp and wrap modes).
// Extents known only at run time are handled with shape tensors.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"
#include "onnx/shape_tensors.h"

#include <algorithm>
#include <limits>

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

//! A slice whose start, size and stride are 1-D INT64 tensors (constants when everything is known).
ITensor& sliceWith(ImportContext& ctx, ITensor& input, ITensor& start, ITensor& size, ITensor& stride,
    nvinfer1::SampleMode mode = nvinfer1::SampleMode::kSTRICT_BOUNDS, ITensor* fill = nullptr)
{
    nvinfer1::Dims zeros{};
    zeros.nbDims = rankOf(input);
    auto& layer = ctx.check(ctx.network().addSlice(input, zeros, zeros, zeros), "slice");
    layer.setInput(1, start);
    layer.setInput(2, size);
    layer.setInput(3, stride);
    layer.setMode(mode);
    if (fill != nullptr)
    {
        layer.setInput(4, *fill);
    }
    return *layer.getOutput(0);
}

ITensor& scalarShape(ImportContext& ctx, int64_t value)
{
    return int64Constant(ctx, {value});
}

//! A start or end of a slice along an extent known only at run time, a negative one counted from the end (ONNX).
ITensor& wrappedBound(ImportContext& ctx, int64_t bound, ITensor& extent)
{
    return bound >= 0 ? scalarShape(ctx, bound)
                      : shapeMath(ctx, extent, scalarShape(ctx, bound), ElementWiseOperation::kSUM);
}

//! The same for a bound known only at run time (a shape tensor). The sign is found without comparisons:
//! floor(bound / 2^62) is -1 for a negative bound and 0 otherwise.
ITensor& wrappedBound(ImportContext& ctx, ITensor& bound, ITensor& extent)
{
    ITensor& below = shapeMath(ctx, bound, scalarShape(ctx, int64_t{1} << 62), ElementWiseOperation::kFLOOR_DIV);
    ITensor& negative = shapeMath(ctx, scalarShape(ctx, 0), below, ElementWiseOperation::kSUB);
    return shapeMath(
        ctx, bound, shapeMath(ctx, negative, extent, ElementWiseOperation::kPROD), ElementWiseOperation::kSUM);
}

//! `value` clamped to [low, extent + highOffset].
ITensor& clampToExtent(ImportContext& ctx, ITensor& value, int64_t low, ITensor& extent, int64_t highOffset)
{
    ITensor& high = highOffset == 0 ? extent
                                    : shapeMath(ctx, extent, scalarShape(ctx, highOffset), ElementWiseOperation::kSUM);
    return shapeMath(ctx, shapeMath(ctx, value, scalarShape(ctx, low), ElementWiseOperation::kMAX), high,
        ElementWiseOperation::kMIN);
}

struct AxisSlice
{
    int64_t start;
    int64_t end;
    int64_t step;
    ITensor* startTensor{nullptr}; //!< the start when known only at run time (then `start` is unused)
    ITensor* endTensor{nullptr};   //!< likewise for the end
};

//! Slice's starts or ends (input `index`): constants, or a shape tensor whose elements are gathered per axis.
struct Bounds
{
    std::vector<int64_t> constants;
    ITensor* tensor{nullptr};
};

Bounds sliceBounds(ImportContext& ctx, Node const& node, int32_t index, char const* what)
{
    if (isConstantInput(node, index))
    {
        return Bounds{constantInts(node, index, what), nullptr};
    }
    ITensor& tensor = requireShapeValues(inputTensor(ctx, node, index), what);
    nvinfer1::Dims const dims = tensor.getDimensions();
    if (dims.nbDims != 1 || dims.d[0] < 0)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_INPUT, std::string(what) + " must be a 1-D tensor of known length");
    }
    if (dims.d[0] > nvinfer1::Dims::MAX_DIMS)
    {
        fail(ErrorCode::kINVALID_NODE,
            std::string(what) + " has " + std::to_string(dims.d[0]) + " elements, more than a tensor has axes");
    }
    return Bounds{std::vector<int64_t>(static_cast<size_t>(dims.d[0]), 0), &tensor};
}

//! Slice's starts, ends, axes and steps, as the node gives them: attributes before opset 10, inputs since.
struct SliceArguments
{
    Bounds starts;
    Bounds ends;
    std::vector<int64_t> axes;
    std::vector<int64_t> steps;
};

SliceArguments sliceArguments(ImportContext& ctx, Node const& node)
{
    SliceArguments args;
    if (ctx.opset() < 10)
    {
        args.starts.constants = node.attrInts("starts");
        args.ends.constants = node.attrInts("ends");
        args.axes = node.attrInts("axes");
    }
    else
    {
        args.starts = sliceBounds(ctx, node, 1, "starts");
        args.ends = sliceBounds(ctx, node, 2, "ends");
        if (node.hasInput(3))
        {
            args.axes = constantInts(node, 3, "axes");
        }
        if (node.hasInput(4))
        {
            args.steps = constantInts(node, 4, "steps");
        }
    }
    size_t const count = args.starts.constants.size();
    if (args.axes.empty())
    {
        for (size_t i = 0; i < count; ++i)
        {
            args.axes.push_back(static_cast<int64_t>(i));
        }
    }
    if (args.steps.empty())
    {
        args.steps.assign(count, 1);
    }
    if (args.ends.constants.size() != count || args.axes.size() != count || args.steps.size() != count)
    {
        fail(ErrorCode::kINVALID_NODE, "starts, ends, axes and steps must have the same length");
    }
    return args;
}

//! The slice of each axis of a tensor of rank `rank`; none for the axes that are not sliced.
std::vector<std::optional<AxisSlice>> axisSlices(ImportContext& ctx, SliceArguments const& args, int32_t rank)
{
    std::vector<std::optional<AxisSlice>> perAxis(static_cast<size_t>(rank));
    for (size_t i = 0; i < args.starts.constants.size(); ++i)
    {
        int32_t const axis = normalizeAxis(args.axes[i], rank);
        if (perAxis[axis])
        {
            fail(ErrorCode::kINVALID_NODE, "axis " + std::to_string(args.axes[i]) + " is sliced twice");
        }
        if (args.steps[i] == 0)
        {
            fail(ErrorCode::kINVALID_NODE, "a step is 0");
        }
        perAxis[axis] = AxisSlice{args.starts.constants[i], args.ends.constants[i], args.steps[i]};
        auto const element = static_cast<int64_t>(i);
        if (args.starts.tensor != nullptr)
        {
            perAxis[axis]->startTensor = &gatherDims(ctx, *args.starts.tensor, {element});
        }
        if (args.ends.tensor != nullptr)
        {
            perAxis[axis]->endTensor = &gatherDims(ctx, *args.ends.tensor, {element});
        }
    }
    return perAxis;
}

//! The first element a slice takes along an extent `d` known at build time, and how many it takes.
std::pair<int64_t, int64_t> staticSlice(AxisSlice const& s, int64_t d)
{
    auto wrap = [d](int64_t v) { return v < 0 ? v + d : v; };
    int64_t first = 0;
    int64_t count = 0;
    if (s.step > 0)
    {
        first = std::clamp<int64_t>(wrap(s.start), 0, d);
        int64_t const last = std::clamp<int64_t>(wrap(s.end), 0, d);
        count = std::max<int64_t>(0, (last - first + s.step - 1) / s.step);
    }
    else
    {
        first = std::clamp<int64_t>(wrap(s.start), 0, d - 1);
        int64_t const last = std::clamp<int64_t>(wrap(s.end), -1, d - 1);
        count = std::max<int64_t>(0, (first - last + (-s.step) - 1) / (-s.step));
    }
    return {first, count};
}

//! The first element and the element count of a slice along `extent`, as shape tensors, when the extent or the
//! bounds are known only at run time. ONNX clamps the bounds to [0, extent] for a positive step; for a negative one
//! the start to [0, extent - 1] and the (exclusive) end to [-1, extent - 1], as a reversal (PyTorch's flip) needs.
std::pair<ITensor*, ITensor*> runTimeSlice(ImportContext& ctx, AxisSlice const& s, ITensor& extent)
{
    bool const reverse = s.step < 0;
    ITensor& start = s.startTensor ? wrappedBound(ctx, *s.startTensor, extent) : wrappedBound(ctx, s.start, extent);
    ITensor& end = s.endTensor ? wrappedBound(ctx, *s.endTensor, extent) : wrappedBound(ctx, s.end, extent);
    ITensor& first = clampToExtent(ctx, start, 0, extent, reverse ? -1 : 0);
    ITensor& last = clampToExtent(ctx, end, reverse ? -1 : 0, extent, reverse ? -1 : 0);
    int64_t const magnitude = reverse ? -s.step : s.step;
    ITensor& distance = reverse ? shapeMath(ctx, first, last, ElementWiseOperation::kSUB)
                                : shapeMath(ctx, last, first, ElementWiseOperation::kSUB);
    ITensor& span = shapeMath(ctx, distance, scalarShape(ctx, magnitude - 1), ElementWiseOperation::kSUM);
    ITensor& count = shapeMath(ctx, shapeMath(ctx, span, scalarShape(ctx, magnitude), ElementWiseOperation::kFLOOR_DIV),
        scalarShape(ctx, 0), ElementWiseOperation::kMAX);
    // An empty reversal's start (-1 when the extent is 0) is never read, but must be a valid coordinate.
    ITensor& validFirst = shapeMath(ctx, first, scalarShape(ctx, 0), ElementWiseOperation::kMAX);
    return {&validFirst, &count};
}

std::vector<Value> importSlice(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    int32_t const rank = rankOf(input);
    std::vector<std::optional<AxisSlice>> const perAxis = axisSlices(ctx, sliceArguments(ctx, node), rank);
    ITensor& shape = shapeOf(ctx, input);
    std::vector<ITensor*> startPieces;
    std::vector<ITensor*> sizePieces;
    std::vector<int64_t> strides;
    for (int32_t axis = 0; axis < rank; ++axis)
    {
        ITensor& extent = gatherDims(ctx, shape, {axis});
        if (!perAxis[axis])
        {
            startPieces.push_back(&scalarShape(ctx, 0));
            sizePieces.push_back(&extent);
            strides.push_back(1);
            continue;
        }
        AxisSlice const& s = *perAxis[axis];
        strides.push_back(s.step);
        int64_t const d = staticExtent(input, axis);
        bool const boundsKnown = s.startTensor == nullptr && s.endTensor == nullptr;
        if (d >= 0 && boundsKnown)
        {
            auto const [first, count] = staticSlice(s, d);
            startPieces.push_back(&scalarShape(ctx, count == 0 ? 0 : first));
            sizePieces.push_back(&scalarShape(ctx, count));
            continue;
        }
        auto const [first, count] = runTimeSlice(ctx, s, extent);
        startPieces.push_back(first);
        sizePieces.push_back(count);
    }
    return single(sliceWith(
        ctx, input, concatShapes(ctx, startPieces), concatShapes(ctx, sizePieces), int64Constant(ctx, strides)));
}

//! Split whose part sizes are known only at run time (a shape tensor): part i starts at the sum of the sizes
//! before it.
std::vector<Value> splitByRunTimeSizes(ImportContext& ctx, Node const& node, ITensor& input, int32_t axis)
{
    int32_t const rank = rankOf(input);
    ITensor& sizes = requireShapeValues(inputTensor(ctx, node, 1), "split");
    if (sizes.getDimensions().nbDims != 1 || sizes.getDimensions().d[0] != node.nbOutputs())
    {
        fail(
            ErrorCode::kINVALID_NODE, "split must hold one size per output (" + std::to_string(node.nbOutputs()) + ")");
    }
    ITensor& shape = shapeOf(ctx, input);
    ITensor& before = dimsRange(ctx, shape, 0, axis);
    ITensor& after = dimsRange(ctx, shape, axis + 1, rank);
    ITensor& zerosBefore = int64Constant(ctx, std::vector<int64_t>(static_cast<size_t>(axis), 0));
    ITensor& zerosAfter = int64Constant(ctx, std::vector<int64_t>(static_cast<size_t>(rank - axis - 1), 0));
    std::vector<int64_t> const ones(static_cast<size_t>(rank), 1);
    std::vector<Value> outputs;
    ITensor* offset = &scalarShape(ctx, 0);
    for (int32_t i = 0; i < node.nbOutputs(); ++i)
    {
        ITensor& size = gatherDims(ctx, sizes, {i});
        ITensor& start = concatShapes(ctx, {&zerosBefore, offset, &zerosAfter});
        ITensor& extent = concatShapes(ctx, {&before, &size, &after});
        outputs.emplace_back(&sliceWith(ctx, input, start, extent, int64Constant(ctx, ones)));
        offset = &shapeMath(ctx, *offset, size, ElementWiseOperation::kSUM);
    }
    return outputs;
}

std::vector<Value> importSplit(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    int32_t const rank = rankOf(input);
    int32_t const axis = normalizeAxis(node.attrInt("axis", 0), rank);
    std::vector<int64_t> sizes;
    if (ctx.opset() >= 13 && node.hasInput(1) && !isConstantInput(node, 1))
    {
        return splitByRunTimeSizes(ctx, node, input, axis);
    }
    if (ctx.opset() >= 13 && node.hasInput(1))
    {
        sizes = constantInts(node, 1, "split");
    }
    else if (ctx.opset() < 13)
    {
        sizes = node.attrInts("split");
    }
    int64_t const extent = staticExtent(input, axis);
    if (sizes.empty())
    {
        int64_t const parts = node.attrInt("num_outputs", node.nbOutputs());
        // The loop below runs `parts` times: it must be the node's own output count, not any number in the model.
        if (parts != node.nbOutputs() || parts < 1)
        {
            fail(ErrorCode::kINVALID_NODE,
                "num_outputs is " + std::to_string(parts) + " but the node has " + std::to_string(node.nbOutputs())
                    + " outputs");
        }
        if (extent < 0)
        {
            fail(ErrorCode::kUNSUPPORTED_NODE_DYNAMIC, "an even Split needs the split extent known at build time");
        }
        // As ONNX: parts of ceil(extent / parts), the last one smaller if needed.
        int64_t const chunk = (extent + parts - 1) / parts;
        for (int64_t i = 0, left = extent; i < parts; ++i, left -= chunk)
        {
            sizes.push_back(std::min(chunk, std::max<int64_t>(left, 0)));
        }
    }
    if (static_cast<int32_t>(sizes.size()) != node.nbOutputs())
    {
        fail(ErrorCode::kINVALID_NODE,
            "split gives " + std::to_string(sizes.size()) + " sizes for " + std::to_string(node.nbOutputs())
                + " outputs");
    }
    ITensor& shape = shapeOf(ctx, input);
    ITensor& before = dimsRange(ctx, shape, 0, axis);
    ITensor& after = dimsRange(ctx, shape, axis + 1, rank);
    std::vector<int64_t> ones(static_cast<size_t>(rank), 1);
    std::vector<Value> outputs;
    int64_t offset = 0;
    for (int64_t size : sizes)
    {
        std::vector<int64_t> start(static_cast<size_t>(rank), 0);
        start[axis] = offset;
        ITensor& sizeTensor = concatShapes(ctx, {&before, &scalarShape(ctx, size), &after});
        outputs.emplace_back(&sliceWith(ctx, input, int64Constant(ctx, start), sizeTensor, int64Constant(ctx, ones)));
        offset += size;
    }
    return outputs;
}

//! Pad's pads, fill value and axes, as the node gives them.
struct PadArguments
{
    std::vector<int64_t> pads;
    double value{0};
    std::vector<int64_t> axes;
    ITensor* runTimePads{nullptr}; //!< pads known only at run time (a shape tensor); then `pads` holds zeros
    ITensor* runTimeFill{nullptr}; //!< constant_value known only at run time
};

//! Pad's inputs since opset 11 (attributes before).
void readPadInputs(ImportContext& ctx, Node const& node, int32_t rank, PadArguments& args)
{
    if (isConstantInput(node, 1))
    {
        args.pads = constantInts(node, 1, "pads");
    }
    else
    {
        args.runTimePads = &requireShapeValues(inputTensor(ctx, node, 1), "pads");
        if (args.runTimePads->getDimensions().nbDims != 1 || args.runTimePads->getDimensions().d[0] != 2 * rank)
        {
            fail(ErrorCode::kINVALID_NODE, "pads must hold " + std::to_string(2 * rank) + " values");
        }
        args.pads.assign(static_cast<size_t>(2 * rank), 0); // placeholders; the tensor gives the values
    }
    if (node.hasInput(2) && isConstantInput(node, 2))
    {
        args.value = node.input(2).constant().toDouble().at(0);
    }
    else if (node.hasInput(2))
    {
        // A fill value known only at run time: the slice's fill input, as a 0-D tensor.
        auto& scalar = ctx.check(ctx.network().addShuffle(inputTensor(ctx, node, 2)), "constant_value as a scalar");
        scalar.setReshapeDimensions(nvinfer1::Dims{0, {}});
        args.runTimeFill = scalar.getOutput(0);
    }
    if (node.hasInput(3))
    {
        if (args.runTimePads != nullptr)
        {
            fail(ErrorCode::kUNSUPPORTED_NODE_INPUT, "axes together with pads known only at run time");
        }
        args.axes = constantInts(node, 3, "axes");
    }
}

PadArguments padArguments(ImportContext& ctx, Node const& node, int32_t rank)
{
    PadArguments args;
    if (ctx.opset() < 11)
    {
        args.pads = node.attrInts("pads");
        args.value = node.attrFloat("value", 0.0F);
    }
    else
    {
        readPadInputs(ctx, node, rank, args);
    }
    if (args.axes.empty())
    {
        for (int32_t i = 0; i < rank; ++i)
        {
            args.axes.push_back(i);
        }
    }
    if (args.pads.size() != 2 * args.axes.size())
    {
        fail(ErrorCode::kINVALID_NODE,
            "pads has " + std::to_string(args.pads.size()) + " values; expected "
                + std::to_string(2 * args.axes.size()));
    }
    return args;
}

nvinfer1::SampleMode padSampleMode(std::string const& mode)
{
    if (mode == "reflect")
    {
        return nvinfer1::SampleMode::kREFLECT;
    }
    if (mode == "edge")
    {
        return nvinfer1::SampleMode::kCLAMP;
    }
    if (mode == "wrap")
    {
        return nvinfer1::SampleMode::kWRAP;
    }
    if (mode != "constant")
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "mode \"" + mode + "\" is not one of constant, reflect, edge, wrap");
    }
    return nvinfer1::SampleMode::kFILL;
}

std::vector<Value> importPad(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    int32_t const rank = rankOf(input);
    std::string const mode = node.attrString("mode", "constant");
    PadArguments const args = padArguments(ctx, node, rank);
    std::vector<int64_t> start(static_cast<size_t>(rank), 0);
    std::vector<int64_t> growth(static_cast<size_t>(rank), 0);
    for (size_t i = 0; i < args.axes.size(); ++i)
    {
        int32_t const axis = normalizeAxis(args.axes[i], rank);
        start[axis] = -args.pads[i];
        growth[axis] = args.pads[i] + args.pads[i + args.axes.size()];
    }
    nvinfer1::SampleMode const sampleMode = padSampleMode(mode);
    ITensor* startTensor = &int64Constant(ctx, start);
    ITensor* growthTensor = &int64Constant(ctx, growth);
    if (args.runTimePads != nullptr)
    {
        // pads = [begin_0 .. begin_{r-1}, end_0 .. end_{r-1}]: the slice starts at -begin and grows by begin + end.
        std::vector<int64_t> beginIndices(static_cast<size_t>(rank));
        std::vector<int64_t> endIndices(static_cast<size_t>(rank));
        for (int32_t axis = 0; axis < rank; ++axis)
        {
            beginIndices[axis] = axis;
            endIndices[axis] = rank + axis;
        }
        ITensor& begin = gatherDims(ctx, *args.runTimePads, beginIndices);
        ITensor& end = gatherDims(ctx, *args.runTimePads, endIndices);
        startTensor = &shapeMath(ctx, int64Constant(ctx, start), begin, ElementWiseOperation::kSUB);
        growthTensor = &shapeMath(ctx, begin, end, ElementWiseOperation::kSUM);
    }
    ITensor& size = shapeMath(ctx, shapeOf(ctx, input), *growthTensor, ElementWiseOperation::kSUM);
    ITensor* fill = nullptr;
    if (sampleMode == nvinfer1::SampleMode::kFILL)
    {
        fill = args.runTimeFill != nullptr ? args.runTimeFill : &scalarConstant(ctx, args.value, input.getType(), 0);
    }
    std::vector<int64_t> const ones(static_cast<size_t>(rank), 1);
    return single(sliceWith(ctx, input, *startTensor, size, int64Constant(ctx, ones), sampleMode, fill));
}

} // namespace

ImporterRegistration const kSliceOpImporters([](ImporterTable& table) {
    table.add("Slice", importSlice);
    table.add("Split", importSplit);
    table.add("Pad", importPad);
});

} // namespace kiln::onnxparser
