// One-input element-wise math, and the ops that pass or convert a tensor: Identity, Dropout, Cast, CastLike.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"
#include "onnx/tensor_reader.h"

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::ITensor;
using nvinfer1::UnaryOperation;

template <UnaryOperation Op>
std::vector<Value> importUnary(ImportContext& ctx, Node const& node)
{
    return single(unary(ctx, inputTensor(ctx, node, 0), Op));
}

std::vector<Value> importIdentity(ImportContext& ctx, Node const& node)
{
    // Constants stay constants, so that later importers can still read their values.
    if (node.input(0).isConstant())
    {
        return {node.input(0)};
    }
    return single(*ctx.check(ctx.network().addIdentity(inputTensor(ctx, node, 0)), "identity").getOutput(0));
}

//! Inference-time Dropout is the identity; the optional mask output is all true.
std::vector<Value> importDropout(ImportContext& ctx, Node const& node)
{
    if (node.hasInput(2) && (!node.input(2).isConstant() || node.input(2).constant().toInt64().at(0) != 0))
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_INPUT, "Dropout in training mode is not supported");
    }
    std::vector<Value> outputs = importIdentity(ctx, node);
    if (node.wantsOutput(1))
    {
        // not(x < x) holds for every x, NaN included: a true mask of the data's shape.
        ITensor& data = ctx.tensor(outputs[0]);
        ITensor& lessThanSelf = elementWise(ctx, data, data, nvinfer1::ElementWiseOperation::kLESS);
        outputs.push_back(Value(&unary(ctx, lessThanSelf, UnaryOperation::kNOT)));
    }
    return outputs;
}

nvinfer1::DataType castTarget(int64_t onnxType)
{
    std::optional<nvinfer1::DataType> const type = kilnType(static_cast<int32_t>(onnxType));
    if (!type || onnxType == ::onnx::TensorProto::DOUBLE)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
            "casting to " + onnxTypeName(static_cast<int32_t>(onnxType)) + " is not supported");
    }
    return *type;
}

std::vector<Value> importCast(ImportContext& ctx, Node const& node)
{
    nvinfer1::DataType const to = castTarget(node.attrInt("to"));
    return single(*ctx.check(ctx.network().addCast(inputTensor(ctx, node, 0), to), "cast").getOutput(0));
}

std::vector<Value> importCastLike(ImportContext& ctx, Node const& node)
{
    nvinfer1::DataType const to = inputTensor(ctx, node, 1).getType();
    return single(*ctx.check(ctx.network().addCast(inputTensor(ctx, node, 0), to), "cast").getOutput(0));
}

//! IsInf with detect_positive / detect_negative: isinf(x) and the sign test that is asked for.
std::vector<Value> importIsInf(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    ITensor& isInf = unary(ctx, input, UnaryOperation::kISINF);
    bool const positive = node.attrInt("detect_positive", 1) != 0;
    bool const negative = node.attrInt("detect_negative", 1) != 0;
    if (positive && negative)
    {
        return single(isInf);
    }
    ITensor& zero = scalarConstant(ctx, 0, input.getType(), rankOf(input));
    ITensor& sign = elementWise(
        ctx, input, zero, positive ? nvinfer1::ElementWiseOperation::kGREATER : nvinfer1::ElementWiseOperation::kLESS);
    ITensor& wanted = (positive || negative) ? sign : unary(ctx, isInf, UnaryOperation::kNOT);
    return single(elementWise(ctx, isInf, wanted, nvinfer1::ElementWiseOperation::kAND));
}

} // namespace

ImporterRegistration const kUnaryImporters([](ImporterTable& table) {
    table.add("Exp", importUnary<UnaryOperation::kEXP>);
    table.add("Log", importUnary<UnaryOperation::kLOG>);
    table.add("Sqrt", importUnary<UnaryOperation::kSQRT>);
    table.add("Reciprocal", importUnary<UnaryOperation::kRECIP>);
    table.add("Abs", importUnary<UnaryOperation::kABS>);
    table.add("Neg", importUnary<UnaryOperation::kNEG>);
    table.add("Sin", importUnary<UnaryOperation::kSIN>);
    table.add("Cos", importUnary<UnaryOperation::kCOS>);
    table.add("Tan", importUnary<UnaryOperation::kTAN>);
    table.add("Sinh", importUnary<UnaryOperation::kSINH>);
    table.add("Cosh", importUnary<UnaryOperation::kCOSH>);
    table.add("Asin", importUnary<UnaryOperation::kASIN>);
    table.add("Acos", importUnary<UnaryOperation::kACOS>);
    table.add("Atan", importUnary<UnaryOperation::kATAN>);
    table.add("Asinh", importUnary<UnaryOperation::kASINH>);
    table.add("Acosh", importUnary<UnaryOperation::kACOSH>);
    table.add("Atanh", importUnary<UnaryOperation::kATANH>);
    table.add("Ceil", importUnary<UnaryOperation::kCEIL>);
    table.add("Floor", importUnary<UnaryOperation::kFLOOR>);
    table.add("Erf", importUnary<UnaryOperation::kERF>);
    table.add("Not", importUnary<UnaryOperation::kNOT>);
    table.add("Sign", importUnary<UnaryOperation::kSIGN>);
    table.add("Round", importUnary<UnaryOperation::kROUND>);
    table.add("IsNaN", importUnary<UnaryOperation::kISNAN>);
    table.add("IsInf", importIsInf);
    table.add("Identity", importIdentity);
    table.add("Dropout", importDropout);
    table.add("Cast", importCast);
    table.add("CastLike", importCastLike);
});

} // namespace kiln::onnxparser
