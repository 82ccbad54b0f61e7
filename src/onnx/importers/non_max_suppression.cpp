// NonMaxSuppression (opsets 10 and 11) through INMSLayer, whose selection and order are ONNX's reference's:
// - boxes, [batch, boxes, 4], go in as they are: center_point_box 0 is ONNX's corner pairs [y1, x1, y2, x2], whose
//   overlaps are those of TensorRT's [x1, y1, x2, y2] with the axes swapped; 1 is [x, y, width, height];
// - scores, [batch, classes, boxes], are transposed to the layer's [batch, boxes, classes];
// - max_output_boxes_per_class (INT64, 0-D or one value; 0, selecting nothing, when absent or empty) becomes the
//   layer's 0-D INT32, clamped to [0, INT32_MAX] (more boxes than INT32_MAX cannot be selected per class anyway): a
//   constant (initializer or Constant) as a constant, whose value bounds the memory planned; a value computed at run
//   time through a clamp and a cast;
// - iou_threshold and score_threshold (FLOAT, 0-D or one value) become 0-D inputs. Without score_threshold ONNX
//   considers every box: the layer gets -infinity, so only a NaN or -infinity score is left out where ONNX's
//   reference would consider it.
// The layer considers every candidate (its top-k box limit stays unlimited); selected_indices are INT64.
#include "core/data_type.h"
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::ITensor;

constexpr int64_t kMostPerClass = std::numeric_limits<int32_t>::max();

//! Input `index`, a 0-D or one-value tensor, as a 0-D tensor.
ITensor& scalarInput(ImportContext& ctx, Node const& node, int32_t index, char const* what)
{
    ITensor& input = inputTensor(ctx, node, index);
    nvinfer1::Dims const dims = input.getDimensions();
    if (dims.nbDims == 0)
    {
        return input;
    }
    if (dims.nbDims != 1 || dims.d[0] == 0 || dims.d[0] > 1)
    {
        fail(ErrorCode::kINVALID_NODE,
            std::string(what) + " (input " + std::to_string(index) + ") must hold one value, 0-D or [1]");
    }
    return reshape(ctx, input, std::vector<int64_t>{});
}

//! max_output_boxes_per_class as the layer's 0-D INT32.
ITensor& maxOutputBoxesPerClass(ImportContext& ctx, Node const& node)
{
    constexpr char const* kWhat = "max_output_boxes_per_class";
    if (!node.hasInput(2) || isConstantInput(node, 2))
    {
        std::vector<int64_t> const values = node.hasInput(2) ? constantInts(node, 2, kWhat) : std::vector<int64_t>{};
        if (values.size() > 1)
        {
            fail(ErrorCode::kINVALID_NODE,
                std::string(kWhat) + " (input 2) must hold one value, not " + std::to_string(values.size()));
        }
        int64_t const value = values.empty() ? 0 : std::clamp<int64_t>(values[0], 0, kMostPerClass);
        return scalarConstant(ctx, static_cast<double>(value), DataType::kINT32, 0);
    }
    ITensor& value = scalarInput(ctx, node, 2, kWhat);
    if (!isIndexType(value.getType()))
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE, std::string(kWhat) + " (input 2) must be INT64 or INT32");
    }
    if (value.getType() == DataType::kINT32)
    {
        return value;
    }
    // Clamped before the cast, so that no value wraps around into another.
    ITensor& most = scalarConstant(ctx, static_cast<double>(kMostPerClass), DataType::kINT64, 0);
    ITensor& atMost = elementWise(ctx, value, most, nvinfer1::ElementWiseOperation::kMIN);
    ITensor& clamped
        = elementWise(ctx, atMost, scalarConstant(ctx, 0.0, DataType::kINT64, 0), nvinfer1::ElementWiseOperation::kMAX);
    return castTo(ctx, clamped, DataType::kINT32);
}

//! Threshold input `index` as a 0-D FLOAT.
ITensor& threshold(ImportContext& ctx, Node const& node, int32_t index, char const* what)
{
    return castTo(ctx, scalarInput(ctx, node, index, what), DataType::kFLOAT);
}

nvinfer1::BoundingBoxFormat boxFormat(Node const& node)
{
    int64_t const centerPointBox = node.attrInt("center_point_box", 0);
    if (centerPointBox != 0 && centerPointBox != 1)
    {
        fail(ErrorCode::kINVALID_NODE, "center_point_box must be 0 or 1, not " + std::to_string(centerPointBox));
    }
    return centerPointBox == 1 ? nvinfer1::BoundingBoxFormat::kCENTER_SIZES
                               : nvinfer1::BoundingBoxFormat::kCORNER_PAIRS;
}

std::vector<Value> importNonMaxSuppression(ImportContext& ctx, Node const& node)
{
    nvinfer1::BoundingBoxFormat const format = boxFormat(node);
    ITensor& boxes = inputTensor(ctx, node, 0);
    ITensor& scores = inputTensor(ctx, node, 1);
    if (rankOf(boxes) != 3 || rankOf(scores) != 3)
    {
        fail(ErrorCode::kINVALID_NODE,
            "boxes must be [batch, boxes, 4] and scores [batch, classes, boxes], not of "
            "ranks "
                + std::to_string(rankOf(boxes)) + " and " + std::to_string(rankOf(scores)));
    }
    ITensor& scoresByBox = transpose(ctx, scores, {0, 2, 1});
    auto& layer = ctx.check(ctx.network().addNMS(boxes, scoresByBox, maxOutputBoxesPerClass(ctx, node)), "NMS");
    layer.setBoundingBoxFormat(format);
    layer.setIndicesType(DataType::kINT64);
    if (node.hasInput(3))
    {
        layer.setInput(3, threshold(ctx, node, 3, "iou_threshold"));
    }
    layer.setInput(4,
        node.hasInput(4) ? threshold(ctx, node, 4, "score_threshold")
                         : scalarConstant(ctx, -std::numeric_limits<double>::infinity(), DataType::kFLOAT, 0));
    return single(*layer.getOutput(0));
}

} // namespace

ImporterRegistration const kNonMaxSuppressionImporters(
    [](ImporterTable& table) { table.add("NonMaxSuppression", importNonMaxSuppression); });

} // namespace kiln::onnxparser
