// QuantizeLinear and DequantizeLinear (opsets 10, 13, 19 and 21) through IQuantizeLayer and IDequantizeLayer, as
// TensorRT's parser takes them: symmetric quantization into INT8 or FLOAT8E4M3FN, per tensor or per axis (opset 13's
// `axis`). Refused, naming the node and why: UINT8 (the default output without a zero point), INT4/UINT4 and other
// types; a zero point that is not a constant of zeros; block-wise quantization (opset 21's block_size > 0); FP8 with
// saturate=0 (opset 19; saturate does not apply to INT8); a per-axis scale of another length than its axis; and a
// constant scale with a coefficient that is not positive and finite. The layers get no zero point: it is zero.
//
// A Q or DQ whose data and scale are constants (the weights of a quantized convolution or matrix multiply) is
// computed while the model is imported, with core/quantization.h's arithmetic, so the weights reach the layer that
// reads them as constants (Kiln's convolutions take constant kernels). The result is what the layer would compute.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"
#include "onnx/tensor_reader.h"

#include "core/checked_size.h"
#include "core/data_type.h"
#include "core/quantization.h"
#include "device_common/half.h"

#include <cmath>
#include <cstring>
#include <sstream>

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::DataType;

// ONNX TensorProto.DataType numbers newer than the onnx library Kiln builds against.
constexpr int64_t kOnnxUint4 = 21;
constexpr int64_t kOnnxInt4 = 22;

//! `type` when TensorRT's Q/DQ take it as the quantized type, else a failure saying why not.
DataType quantizedType(DataType type)
{
    if (type == DataType::kINT8 || type == DataType::kFP8)
    {
        return type;
    }
    if (type == DataType::kUINT8)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
            "UINT8 quantization is asymmetric; TensorRT quantizes symmetrically into INT8 or FLOAT8E4M3FN (export "
            "with signed INT8 and a zero point of 0)");
    }
    fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
        "quantized data of type " + dataTypeName(type) + " is not supported (INT8 and FLOAT8E4M3FN are)");
}

//! The quantized type an ONNX element type number names (opset 21's output_dtype).
DataType quantizedType(int64_t onnxType)
{
    if (onnxType == kOnnxUint4 || onnxType == kOnnxInt4)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
            "INT4 and UINT4 quantization is not supported: Kiln has no sub-byte types yet (INT8 and FLOAT8E4M3FN are)");
    }
    std::optional<DataType> const type = kilnType(static_cast<int32_t>(onnxType));
    if (!type)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
            "quantization into " + onnxTypeName(static_cast<int32_t>(onnxType))
                + " is not supported (INT8 and FLOAT8E4M3FN are)");
    }
    return quantizedType(*type);
}

DataType typeOf(Value const& value)
{
    return value.isConstant() ? value.constant().type : value.tensor()->getType();
}

//! Checks optional input 2, the zero point: a constant of zeros of `type`.
void checkZeroPoint(Node const& node, DataType type)
{
    if (!node.hasInput(2))
    {
        return;
    }
    Value const& zeroPoint = node.input(2);
    if (typeOf(zeroPoint) != type)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
            "the zero point (input 2) must have the quantized type " + dataTypeName(type) + ", not "
                + dataTypeName(typeOf(zeroPoint)));
    }
    if (!zeroPoint.isConstant())
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_INPUT,
            "the zero point (input 2) must be an initializer or a Constant of zeros: TensorRT quantizes "
            "symmetrically");
    }
    ConstantData const& data = zeroPoint.constant();
    auto const* bytes = static_cast<uint8_t const*>(data.data);
    for (int64_t i = 0; i < data.count(); ++i)
    {
        // INT8 zero is 0; FP8 zero is 0x00 or 0x80 (-0).
        if ((type == DataType::kFP8 ? bytes[i] & 0x7FU : bytes[i]) != 0)
        {
            fail(ErrorCode::kUNSUPPORTED_NODE_INPUT,
                "the zero point (input 2) holds a non-zero value at index " + std::to_string(i)
                    + ": TensorRT quantizes symmetrically, with zero points of 0");
        }
    }
}

void checkCommonAttributes(Node const& node)
{
    if (node.attrInt("block_size", 0) != 0)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_ATTR,
            "block_size " + std::to_string(node.attrInt("block_size", 0))
                + ": blocked quantization is not supported (Kiln has no block quantization yet)");
    }
}

//! The per-tensor or per-axis form: the quantization axis (normalized) where the scale is 1-D with more than one
//! coefficient, else -1.
int32_t quantizationAxis(Node const& node, int32_t dataRank, nvinfer1::Dims const& scaleDims)
{
    if (scaleDims.nbDims == 0 || (scaleDims.nbDims == 1 && scaleDims.d[0] == 1))
    {
        return -1;
    }
    if (scaleDims.nbDims != 1)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_INPUT,
            "the scale (input 1) must be a scalar or 1-D, not of rank " + std::to_string(scaleDims.nbDims)
                + " (blocked quantization is not supported)");
    }
    return normalizeAxis(node.attrInt("axis", 1), dataRank);
}

nvinfer1::Dims dimsOf(Value const& value)
{
    return value.isConstant() ? value.constant().dims() : value.tensor()->getDimensions();
}

//! The scale (input 1) against the data's shape `dataDims` and the quantization `axis` (-1: per tensor): one
//! coefficient per index of the axis, where both extents are known here (the network checks the others when it is
//! built), and, where the scale is a constant, every coefficient positive and finite (TensorRT takes strictly
//! positive scales). A Q or DQ of constants reads coefficient (i / inner) % extent for element i, so a scale of
//! another length must not reach it.
void checkScale(Node const& node, nvinfer1::Dims const& dataDims, int32_t axis)
{
    Value const& scale = node.input(1);
    nvinfer1::Dims const scaleDims = dimsOf(scale);
    if (axis >= 0 && axis < dataDims.nbDims && dataDims.d[axis] >= 0 && scaleDims.d[0] >= 0
        && scaleDims.d[0] != dataDims.d[axis])
    {
        fail(ErrorCode::kINVALID_NODE,
            "the scale (input 1) holds " + std::to_string(scaleDims.d[0]) + " coefficients, but axis "
                + std::to_string(axis) + " of the input has extent " + std::to_string(dataDims.d[axis])
                + ": a per-axis scale has one coefficient per index of its axis");
    }
    if (!scale.isConstant())
    {
        return;
    }
    std::vector<float> const coefficients = scale.constant().toFloat();
    for (size_t i = 0; i < coefficients.size(); ++i)
    {
        if (!(coefficients[i] > 0.0F) || !std::isfinite(coefficients[i]))
        {
            std::ostringstream text;
            text << "the scale (input 1) holds " << coefficients[i] << " at index " << i
                 << ": scales must be positive and finite, as TensorRT takes them";
            fail(ErrorCode::kINVALID_NODE, text.str());
        }
    }
}

//! The real (floating-point) type of the scale, which DequantizeLinear's output has.
DataType realScaleType(Node const& node)
{
    DataType const type = typeOf(node.input(1));
    if (!isFloatType(type))
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
            "the scale (input 1) must be FLOAT, FLOAT16 or BFLOAT16, not " + dataTypeName(type));
    }
    return type;
}

//! For a Q or DQ of constants: element i's coefficient among `scales` (per tensor, or along `axis` of `shape`).
std::vector<int64_t> coefficientIndex(std::vector<int64_t> const& shape, int32_t axis, int64_t count)
{
    std::vector<int64_t> index(static_cast<size_t>(count), 0);
    if (axis < 0)
    {
        return index;
    }
    int64_t inner = 1;
    for (size_t i = static_cast<size_t>(axis) + 1; i < shape.size(); ++i)
    {
        inner *= shape[i];
    }
    int64_t const channels = shape[static_cast<size_t>(axis)];
    for (int64_t i = 0; i < count; ++i)
    {
        index[static_cast<size_t>(i)] = (i / inner) % channels;
    }
    return index;
}

//! Whether a Q or DQ of a constant of `count` elements can be computed into one of `elementBytes`-byte elements. The
//! parser's budget for computed constants (tensor_reader.h) is not charged: it bounds data that a few values ask for,
//! where a Q or DQ gives one element per element its input already holds (in the model's file, or admitted), at most
//! four bytes for one. Charged, a model's weights would stop being computed partway through a large model (ViT-B/16's
//! FP32 weights behind their Q/DQ pairs take 344 MB), and the later layers would read their weights through
//! run-time layers, which the quantized fusions do not take.
bool computable(int64_t count, size_t elementBytes)
{
    return checkedByteSize(count, elementBytes).has_value();
}

std::vector<Value> quantizeConstant(
    ImportContext& ctx, Node const& node, DataType type, int32_t axis, std::vector<float> const& scales)
{
    ConstantData const& data = node.input(0).constant();
    std::vector<float> const x = data.toFloat();
    std::vector<int64_t> const k = coefficientIndex(data.shape, axis, data.count());
    std::vector<uint8_t> q(x.size());
    for (size_t i = 0; i < x.size(); ++i)
    {
        float const s = scales[static_cast<size_t>(k[i])];
        q[i] = type == DataType::kINT8 ? static_cast<uint8_t>(quantizeToInt8(x[i], s)) : quantizeToFp8(x[i], s);
    }
    return {Value(ctx.store().keep(type, data.shape, std::move(q), node.proto().output(0)))};
}

std::vector<Value> dequantizeConstant(
    ImportContext& ctx, Node const& node, DataType outputType, int32_t axis, std::vector<float> const& scales)
{
    ConstantData const& data = node.input(0).constant();
    auto const* q = static_cast<uint8_t const*>(data.data);
    std::vector<int64_t> const k = coefficientIndex(data.shape, axis, data.count());
    std::vector<uint8_t> bytes(static_cast<size_t>(data.count()) * elementSize(outputType));
    for (size_t i = 0; i < k.size(); ++i)
    {
        float const s = scales[static_cast<size_t>(k[i])];
        float const x = data.type == DataType::kINT8 ? dequantizeInt8(static_cast<int8_t>(q[i]), s)
                                                     : dequantizeFp8(q[i], s);
        if (outputType == DataType::kFLOAT)
        {
            std::memcpy(bytes.data() + i * 4, &x, 4);
            continue;
        }
        uint16_t const bits = outputType == DataType::kHALF ? floatToHalfBits(x) : floatToBf16Bits(x);
        std::memcpy(bytes.data() + i * 2, &bits, 2);
    }
    return {Value(ctx.store().keep(outputType, data.shape, std::move(bytes), node.proto().output(0)))};
}

//! What QuantizeLinear's output type is: opset 21's output_dtype, else the zero point's type, else UINT8.
DataType quantizeOutputType(Node const& node)
{
    int64_t const outputDtype = node.attrInt("output_dtype", 0);
    if (node.hasInput(2))
    {
        DataType const zeroPointType = quantizedType(typeOf(node.input(2)));
        if (outputDtype != 0 && quantizedType(outputDtype) != zeroPointType)
        {
            fail(ErrorCode::kINVALID_NODE, "output_dtype and the zero point's type differ");
        }
        return zeroPointType;
    }
    if (outputDtype == 0)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
            "without a zero point or output_dtype, QuantizeLinear quantizes into UINT8, which TensorRT does not "
            "take: give an INT8 or FLOAT8E4M3FN zero point of zeros");
    }
    return quantizedType(outputDtype);
}

std::vector<Value> importQuantizeLinear(ImportContext& ctx, Node const& node)
{
    checkCommonAttributes(node);
    DataType const type = quantizeOutputType(node);
    checkZeroPoint(node, type);
    if (type == DataType::kFP8 && node.attrInt("saturate", 1) == 0)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_ATTR,
            "saturate=0 is not supported: TensorRT's FP8 quantization saturates out-of-range values to +-448");
    }
    realScaleType(node);
    if (!isFloatType(typeOf(node.input(0))))
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
            "the input (input 0) must be FLOAT, FLOAT16 or BFLOAT16, not " + dataTypeName(typeOf(node.input(0))));
    }
    nvinfer1::Dims const dataDims = dimsOf(node.input(0));
    int32_t const axis = quantizationAxis(node, dataDims.nbDims, dimsOf(node.input(1)));
    checkScale(node, dataDims, axis);
    if (node.input(0).isConstant() && node.input(1).isConstant() && computable(node.input(0).constant().count(), 1))
    {
        return quantizeConstant(ctx, node, type, axis, node.input(1).constant().toFloat());
    }
    auto& layer
        = ctx.check(ctx.network().addQuantize(inputTensor(ctx, node, 0), inputTensor(ctx, node, 1), type), "quantize");
    layer.setAxis(axis);
    return single(*layer.getOutput(0));
}

std::vector<Value> importDequantizeLinear(ImportContext& ctx, Node const& node)
{
    checkCommonAttributes(node);
    DataType const type = quantizedType(typeOf(node.input(0)));
    checkZeroPoint(node, type);
    DataType const outputType = realScaleType(node);
    nvinfer1::Dims const dataDims = dimsOf(node.input(0));
    int32_t const axis = quantizationAxis(node, dataDims.nbDims, dimsOf(node.input(1)));
    checkScale(node, dataDims, axis);
    if (node.input(0).isConstant() && node.input(1).isConstant()
        && computable(node.input(0).constant().count(), elementSize(outputType)))
    {
        return dequantizeConstant(ctx, node, outputType, axis, node.input(1).constant().toFloat());
    }
    auto& layer = ctx.check(
        ctx.network().addDequantize(inputTensor(ctx, node, 0), inputTensor(ctx, node, 1), outputType), "dequantize");
    layer.setAxis(axis);
    return single(*layer.getOutput(0));
}

} // namespace

ImporterRegistration const kQuantizeLinearImporters([](ImporterTable& table) {
    table.add("QuantizeLinear", importQuantizeLinear);
    table.add("DequantizeLinear", importDequantizeLinear);
});

} // namespace kiln::onnxparser
