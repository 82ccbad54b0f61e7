// Conv and ConvTranspose: kernels (and biases) must be constant data, as Kiln's convolution layers
// take them as weights.
#include "onnx/importer_table.h"
#include "onnx/importers/window_attributes.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::ITensor;

ConstantData const& constantWeights(Node const& node, int32_t index, char const* what)
{
    if (!isConstantInput(node, index))
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_INPUT,
            std::string(what) + " must be an initializer or a Constant: Kiln's convolution layers take it as weights");
    }
    return node.input(index).constant();
}

std::vector<int64_t> kernelShape(Node const& node, ConstantData const& weights, int32_t inputRank)
{
    if (static_cast<int32_t>(weights.shape.size()) != inputRank || inputRank < 3)
    {
        fail(ErrorCode::kINVALID_NODE,
            "the weights have rank " + std::to_string(weights.shape.size()) + "; the input has rank "
                + std::to_string(inputRank) + " (both must be 2 + spatial axes)");
    }
    std::vector<int64_t> kernel(weights.shape.begin() + 2, weights.shape.end());
    std::vector<int64_t> const declared = node.attrInts("kernel_shape", kernel);
    if (declared != kernel)
    {
        fail(ErrorCode::kINVALID_NODE, "kernel_shape disagrees with the weights' shape");
    }
    return kernel;
}

template <typename Layer>
void applyWindow(Layer& layer, WindowAttributes const& window)
{
    layer.setStrideNd(window.strides);
    layer.setDilationNd(window.dilations);
    layer.setPaddingMode(window.mode);
    layer.setPrePadding(window.prePadding);
    layer.setPostPadding(window.postPadding);
}

std::vector<Value> importConv(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    ConstantData const& weights = constantWeights(node, 1, "the kernel (input 1)");
    std::vector<int64_t> const kernel = kernelShape(node, weights, rankOf(input));
    WindowAttributes const window = readWindowAttributes(node, kernel);
    nvinfer1::Weights bias{weights.type, nullptr, 0};
    if (node.hasInput(2))
    {
        ConstantData const& biasData = constantWeights(node, 2, "the bias (input 2)");
        bias = biasData.weights();
        ctx.nameWeights(biasData);
    }
    int64_t const group = node.attrInt("group", 1);
    auto& layer = ctx.check(
        ctx.network().addConvolutionNd(input, weights.shape[0], window.kernel, weights.weights(), bias), "convolution");
    ctx.nameWeights(weights);
    layer.setNbGroups(group);
    applyWindow(layer, window);
    return single(*layer.getOutput(0));
}

std::vector<Value> importConvTranspose(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    ConstantData const& weights = constantWeights(node, 1, "the kernel (input 1)");
    std::vector<int64_t> const kernel = kernelShape(node, weights, rankOf(input));
    size_t const spatial = kernel.size();
    WindowAttributes window = readWindowAttributes(node, kernel);
    int64_t const group = node.attrInt("group", 1);
    std::vector<int64_t> const outputPadding = node.attrInts("output_padding", std::vector<int64_t>(spatial, 0));
    std::vector<int64_t> const outputShape = node.attrInts("output_shape");
    if (outputPadding.size() != spatial)
    {
        fail(ErrorCode::kINVALID_NODE, "output_padding needs one value per spatial axis");
    }
    // output_shape (or auto_pad SAME_*) fixes the total padding; split it as ONNX specifies.
    if (!outputShape.empty() || window.mode != nvinfer1::PaddingMode::kEXPLICIT_ROUND_DOWN)
    {
        bool const upper = window.mode != nvinfer1::PaddingMode::kSAME_LOWER;
        for (size_t i = 0; i < spatial; ++i)
        {
            int64_t const extent = staticExtent(input, static_cast<int32_t>(i + 2));
            if (extent < 0)
            {
                fail(ErrorCode::kUNSUPPORTED_NODE_DYNAMIC,
                    "output_shape and auto_pad need spatial extents known at build time");
            }
            int64_t const wanted = outputShape.empty() ? extent * window.strides.d[i]
                                                       : outputShape[outputShape.size() - spatial + i];
            int64_t const total = window.strides.d[i] * (extent - 1) + outputPadding[i]
                + (kernel[i] - 1) * window.dilations.d[i] + 1 - wanted;
            window.prePadding.d[i] = upper ? total / 2 : total - total / 2;
            window.postPadding.d[i] = total - window.prePadding.d[i];
        }
        window.mode = nvinfer1::PaddingMode::kEXPLICIT_ROUND_DOWN;
    }
    // output_padding adds extent at the end: trim less, and where that is not enough, pad afterwards
    // (those positions get no kernel contribution, only the bias, so the bias is then added last).
    std::vector<int64_t> extraPadding(spatial, 0);
    bool needsExtra = false;
    for (size_t i = 0; i < spatial; ++i)
    {
        window.postPadding.d[i] -= outputPadding[i];
        if (window.postPadding.d[i] < 0)
        {
            extraPadding[i] = -window.postPadding.d[i];
            window.postPadding.d[i] = 0;
            needsExtra = true;
        }
    }
    nvinfer1::Weights bias{weights.type, nullptr, 0};
    ConstantData const* biasData = node.hasInput(2) ? &constantWeights(node, 2, "the bias (input 2)") : nullptr;
    if (biasData != nullptr && !needsExtra)
    {
        bias = biasData->weights();
    }
    int64_t const outputMaps = weights.shape[1] * group;
    auto& layer = ctx.check(
        ctx.network().addDeconvolutionNd(input, outputMaps, window.kernel, weights.weights(), bias), "deconvolution");
    layer.setNbGroups(group);
    applyWindow(layer, window);
    ITensor* output = layer.getOutput(0);
    if (needsExtra)
    {
        auto& padding = ctx.check(
            ctx.network().addPaddingNd(*output, toDims(std::vector<int64_t>(spatial, 0)), toDims(extraPadding)),
            "padding");
        output = padding.getOutput(0);
        if (biasData != nullptr)
        {
            std::vector<int64_t> biasShape(spatial + 2, 1);
            biasShape[1] = outputMaps;
            ConstantData reshaped = *biasData;
            reshaped.shape = biasShape;
            reshaped.name.clear();
            output = &elementWise(ctx, *output, ctx.tensor(Value(reshaped)), nvinfer1::ElementWiseOperation::kSUM);
        }
    }
    return single(*output);
}

} // namespace

ImporterRegistration const kConvImporters([](ImporterTable& table) {
    table.add("Conv", importConv);
    table.add("ConvTranspose", importConvTranspose);
});

} // namespace kiln::onnxparser
