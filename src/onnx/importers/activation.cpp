// Activation functions: IActivationLayer where TensorRT has the function, compositions otherwise
// (HardSwish, Mish, PRelu, Clip with run-time bounds, Celu).
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"

#include <limits>

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::ActivationType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

std::vector<Value> importRelu(ImportContext& ctx, Node const& node)
{
    return single(activation(ctx, inputTensor(ctx, node, 0), ActivationType::kRELU));
}

std::vector<Value> importSigmoid(ImportContext& ctx, Node const& node)
{
    return single(activation(ctx, inputTensor(ctx, node, 0), ActivationType::kSIGMOID));
}

std::vector<Value> importTanh(ImportContext& ctx, Node const& node)
{
    return single(activation(ctx, inputTensor(ctx, node, 0), ActivationType::kTANH));
}

std::vector<Value> importLeakyRelu(ImportContext& ctx, Node const& node)
{
    return single(
        activation(ctx, inputTensor(ctx, node, 0), ActivationType::kLEAKY_RELU, node.attrFloat("alpha", 0.01F)));
}

std::vector<Value> importElu(ImportContext& ctx, Node const& node)
{
    return single(activation(ctx, inputTensor(ctx, node, 0), ActivationType::kELU, node.attrFloat("alpha", 1.0F)));
}

std::vector<Value> importSelu(ImportContext& ctx, Node const& node)
{
    float const alpha = node.attrFloat("alpha", 1.67326319217681884765625F);
    float const gamma = node.attrFloat("gamma", 1.05070102214813232421875F);
    return single(activation(ctx, inputTensor(ctx, node, 0), ActivationType::kSELU, alpha, gamma));
}

std::vector<Value> importSoftplus(ImportContext& ctx, Node const& node)
{
    return single(activation(ctx, inputTensor(ctx, node, 0), ActivationType::kSOFTPLUS, 1.0F, 1.0F));
}

std::vector<Value> importSoftsign(ImportContext& ctx, Node const& node)
{
    return single(activation(ctx, inputTensor(ctx, node, 0), ActivationType::kSOFTSIGN));
}

std::vector<Value> importHardSigmoid(ImportContext& ctx, Node const& node)
{
    return single(activation(ctx, inputTensor(ctx, node, 0), ActivationType::kHARD_SIGMOID,
        node.attrFloat("alpha", 0.2F), node.attrFloat("beta", 0.5F)));
}

std::vector<Value> importThresholdedRelu(ImportContext& ctx, Node const& node)
{
    return single(
        activation(ctx, inputTensor(ctx, node, 0), ActivationType::kTHRESHOLDED_RELU, node.attrFloat("alpha", 1.0F)));
}

//! x * hard_sigmoid(x) with alpha 1/6, beta 1/2.
std::vector<Value> importHardSwish(ImportContext& ctx, Node const& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    ITensor& gate = activation(ctx, x, ActivationType::kHARD_SIGMOID, 1.0F / 6.0F, 0.5F);
    return single(elementWise(ctx, x, gate, ElementWiseOperation::kPROD));
}

//! x * tanh(softplus(x)).
std::vector<Value> importMish(ImportContext& ctx, Node const& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    ITensor& softplus = activation(ctx, x, ActivationType::kSOFTPLUS, 1.0F, 1.0F);
    return single(elementWise(ctx, x, activation(ctx, softplus, ActivationType::kTANH), ElementWiseOperation::kPROD));
}

std::vector<Value> importGelu(ImportContext& ctx, Node const& node)
{
    std::string const approximate = node.attrString("approximate", "none");
    if (approximate != "none" && approximate != "tanh")
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "approximate \"" + approximate + "\" is neither \"none\" nor \"tanh\"");
    }
    return single(activation(ctx, inputTensor(ctx, node, 0),
        approximate == "tanh" ? ActivationType::kGELU_TANH : ActivationType::kGELU_ERF));
}

//! max(0, x) + min(0, alpha * (exp(x / alpha) - 1)): ELU of x / alpha, scaled by alpha.
std::vector<Value> importCelu(ImportContext& ctx, Node const& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    float const alpha = node.attrFloat("alpha", 1.0F);
    ITensor& scaled
        = elementWise(ctx, x, scalarConstant(ctx, alpha, x.getType(), rankOf(x)), ElementWiseOperation::kDIV);
    ITensor& elu = activation(ctx, scaled, ActivationType::kELU, 1.0F);
    return single(
        elementWise(ctx, elu, scalarConstant(ctx, alpha, x.getType(), rankOf(x)), ElementWiseOperation::kPROD));
}

//! x < 0 ? slope * x : x, with the slope broadcast to x.
std::vector<Value> importPRelu(ImportContext& ctx, Node const& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    ITensor& slope = inputTensor(ctx, node, 1);
    ITensor& negative
        = elementWise(ctx, x, scalarConstant(ctx, 0, x.getType(), rankOf(x)), ElementWiseOperation::kLESS);
    ITensor& scaled = elementWise(ctx, x, slope, ElementWiseOperation::kPROD);
    int32_t const rank = rankOf(scaled);
    auto& layer = ctx.check(
        ctx.network().addSelect(prependOnes(ctx, negative, rank), scaled, prependOnes(ctx, x, rank)), "select");
    return single(*layer.getOutput(0));
}

//! Clip's bounds: attributes before opset 11, optional inputs since.
std::vector<Value> importClip(ImportContext& ctx, Node const& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    bool const floating = x.getType() == nvinfer1::DataType::kFLOAT || x.getType() == nvinfer1::DataType::kHALF
        || x.getType() == nvinfer1::DataType::kBF16;
    if (ctx.opset() < 11)
    {
        float const lowest = node.attrFloat("min", std::numeric_limits<float>::lowest());
        float const highest = node.attrFloat("max", std::numeric_limits<float>::max());
        return single(activation(ctx, x, ActivationType::kCLIP, lowest, highest));
    }
    bool const constantBounds = (!node.hasInput(1) || node.input(1).isConstant())
        && (!node.hasInput(2) || node.input(2).isConstant());
    if (floating && constantBounds)
    {
        float const lowest = node.hasInput(1) ? node.input(1).constant().toFloat().at(0)
                                              : std::numeric_limits<float>::lowest();
        float const highest = node.hasInput(2) ? node.input(2).constant().toFloat().at(0)
                                               : std::numeric_limits<float>::max();
        return single(activation(ctx, x, ActivationType::kCLIP, lowest, highest));
    }
    // Integer data or bounds computed at run time: max, then min.
    ITensor* result = &x;
    if (node.hasInput(1))
    {
        result = &elementWise(ctx, *result, inputTensor(ctx, node, 1), ElementWiseOperation::kMAX);
    }
    if (node.hasInput(2))
    {
        result = &elementWise(ctx, *result, inputTensor(ctx, node, 2), ElementWiseOperation::kMIN);
    }
    if (result == &x)
    {
        result = ctx.check(ctx.network().addIdentity(x), "identity").getOutput(0);
    }
    return single(*result);
}

} // namespace

ImporterRegistration const kActivationImporters([](ImporterTable& table) {
    table.add("Relu", importRelu);
    table.add("Sigmoid", importSigmoid);
    table.add("Tanh", importTanh);
    table.add("LeakyRelu", importLeakyRelu);
    table.add("Elu", importElu);
    table.add("Selu", importSelu);
    table.add("Softplus", importSoftplus);
    table.add("Softsign", importSoftsign);
    table.add("HardSigmoid", importHardSigmoid);
    table.add("ThresholdedRelu", importThresholdedRelu);
    table.add("HardSwish", importHardSwish);
    table.add("Mish", importMish);
    table.add("Gelu", importGelu);
    table.add("Celu", importCelu);
    table.add("PRelu", importPRelu);
    table.add("Clip", importClip);
});

} // namespace kiln::onnxparser
