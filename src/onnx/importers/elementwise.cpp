// Binary and variadic element-wise ops, comparisons, logic and Where (numpy broadcasting throughout).
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

//! Kiln's element-wise kernels compute in FLOAT, HALF, BF16, INT8, INT32 and INT64 (BOOL for logic).
void checkArithmeticType(ITensor& input)
{
    if (input.getType() == nvinfer1::DataType::kUINT8)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "element-wise arithmetic on UINT8 is not supported");
    }
}

template <ElementWiseOperation Op>
std::vector<Value> importBinary(ImportContext& ctx, Node const& node)
{
    ITensor& a = inputTensor(ctx, node, 0);
    checkArithmeticType(a);
    return single(elementWise(ctx, a, inputTensor(ctx, node, 1), Op));
}

//! a <= b as not(a > b), a >= b as not(a < b).
template <ElementWiseOperation Op>
std::vector<Value> importNegatedComparison(ImportContext& ctx, Node const& node)
{
    ITensor& compared = elementWise(ctx, inputTensor(ctx, node, 0), inputTensor(ctx, node, 1), Op);
    return single(unary(ctx, compared, nvinfer1::UnaryOperation::kNOT));
}

ITensor& foldInputs(ImportContext& ctx, Node const& node, ElementWiseOperation op)
{
    ITensor* result = &inputTensor(ctx, node, 0);
    checkArithmeticType(*result);
    for (int32_t i = 1; i < node.nbInputs(); ++i)
    {
        result = &elementWise(ctx, *result, inputTensor(ctx, node, i), op);
    }
    return *result;
}

template <ElementWiseOperation Op>
std::vector<Value> importVariadic(ImportContext& ctx, Node const& node)
{
    return single(foldInputs(ctx, node, Op));
}

std::vector<Value> importMean(ImportContext& ctx, Node const& node)
{
    ITensor& sum = foldInputs(ctx, node, ElementWiseOperation::kSUM);
    ITensor& count = scalarConstant(ctx, node.nbInputs(), sum.getType(), rankOf(sum));
    return single(elementWise(ctx, sum, count, ElementWiseOperation::kDIV));
}

//! ONNX lets the exponent have another type than the base; Kiln's layer takes one type.
std::vector<Value> importPow(ImportContext& ctx, Node const& node)
{
    ITensor& base = inputTensor(ctx, node, 0);
    ITensor& exponent = castTo(ctx, inputTensor(ctx, node, 1), base.getType());
    return single(elementWise(ctx, base, exponent, ElementWiseOperation::kPOW));
}

//! Integer modulo: the sign of the divisor (fmod = 0, Python's %) or of the dividend (fmod = 1, C's %).
std::vector<Value> importMod(ImportContext& ctx, Node const& node)
{
    ITensor& a = inputTensor(ctx, node, 0);
    ITensor& b = inputTensor(ctx, node, 1);
    bool const truncating = node.attrInt("fmod", 0) != 0;
    if (a.getType() != nvinfer1::DataType::kINT32 && a.getType() != nvinfer1::DataType::kINT64)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "Mod is supported for INT32 and INT64 inputs");
    }
    ITensor& quotient
        = elementWise(ctx, a, b, truncating ? ElementWiseOperation::kDIV : ElementWiseOperation::kFLOOR_DIV);
    return single(
        elementWise(ctx, a, elementWise(ctx, quotient, b, ElementWiseOperation::kPROD), ElementWiseOperation::kSUB));
}

std::vector<Value> importWhere(ImportContext& ctx, Node const& node)
{
    ITensor& condition = inputTensor(ctx, node, 0);
    ITensor& thenInput = inputTensor(ctx, node, 1);
    ITensor& elseInput = inputTensor(ctx, node, 2);
    int32_t const rank = std::max({rankOf(condition), rankOf(thenInput), rankOf(elseInput)});
    auto& layer = ctx.check(ctx.network().addSelect(prependOnes(ctx, condition, rank),
                                prependOnes(ctx, thenInput, rank), prependOnes(ctx, elseInput, rank)),
        "select");
    return single(*layer.getOutput(0));
}

} // namespace

ImporterRegistration const kElementWiseImporters([](ImporterTable& table) {
    table.add("Add", importBinary<ElementWiseOperation::kSUM>);
    table.add("Sub", importBinary<ElementWiseOperation::kSUB>);
    table.add("Mul", importBinary<ElementWiseOperation::kPROD>);
    table.add("Div", importBinary<ElementWiseOperation::kDIV>);
    table.add("Pow", importPow);
    table.add("Mod", importMod);
    table.add("Max", importVariadic<ElementWiseOperation::kMAX>);
    table.add("Min", importVariadic<ElementWiseOperation::kMIN>);
    table.add("Sum", importVariadic<ElementWiseOperation::kSUM>);
    table.add("Mean", importMean);
    table.add("Equal", importBinary<ElementWiseOperation::kEQUAL>);
    table.add("Less", importBinary<ElementWiseOperation::kLESS>);
    table.add("Greater", importBinary<ElementWiseOperation::kGREATER>);
    table.add("LessOrEqual", importNegatedComparison<ElementWiseOperation::kGREATER>);
    table.add("GreaterOrEqual", importNegatedComparison<ElementWiseOperation::kLESS>);
    table.add("And", importBinary<ElementWiseOperation::kAND>);
    table.add("Or", importBinary<ElementWiseOperation::kOR>);
    table.add("Xor", importBinary<ElementWiseOperation::kXOR>);
    table.add("Where", importWhere);
});

} // namespace kiln::onnxparser
