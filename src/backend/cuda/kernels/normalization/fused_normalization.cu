// A fused normalization (network::FusedNormalizationParams: LayerNorm or RMSNorm over the last axes, with the residual
// sum before it) on the GPU: one pass over each row (row_normalization.h). The shapes and types are checked here as
// the CPU reference (backend/cpu/kernels/nn/fused_normalization.h) checks them.
#include "backend/cuda/kernels/normalization/row_normalization.h"
#include "backend/cuda/layer_kernels.h"

#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using network::FusedNormalizationParams;

//! A tensor of `type`, holding INT8 or FP8 codes where `codeScale` > 0, else FP32, FP16 or BF16 values.
void requireType(nvinfer1::DataType type, float codeScale, char const* what)
{
    bool const codes = type == nvinfer1::DataType::kINT8 || type == nvinfer1::DataType::kFP8;
    if (codeScale > 0.0F ? !codes : !isFloatType(type))
    {
        throw std::invalid_argument(std::string("fused normalization: the ") + what + " must be "
            + (codeScale > 0.0F ? "INT8 or FP8 codes (it has a quantization scale)" : "FP32, FP16 or BF16"));
    }
}

//! Input `slot` where given (a view with data), as a row of the output of shape `shape` reads it; x and the residual
//! are codes where `codeScale` > 0.
RowInput rowInput(
    LayerInputs const& inputs, size_t slot, float codeScale, Shape const& shape, int32_t axes, char const* what)
{
    ConstTensorView const& view = inputs[slot];
    if (view.data == nullptr)
    {
        return RowInput{};
    }
    requireType(view.type, codeScale, what);
    if (slot == FusedNormalizationParams::kInput || slot == FusedNormalizationParams::kResidual)
    {
        if (!network::broadcastsRows(view.shape, shape, axes))
        {
            throw std::invalid_argument(
                std::string("fused normalization: the ") + what + " does not broadcast into the output's rows");
        }
        return RowInput{view.data, view.type, 1, codeScale};
    }
    network::RowWeight const kind = network::rowWeightOf(view.shape, shape, axes);
    if (kind == network::RowWeight::kNONE)
    {
        throw std::invalid_argument(
            std::string("fused normalization: the ") + what + " is neither a row of the normalized axes nor one value");
    }
    return RowInput{view.data, view.type, kind == network::RowWeight::kROW ? 1 : 0};
}

//! Where x or the residual repeats along the axes before the normalized ones: their strides, in rows.
RowLayout layoutOf(Shape const& shape, Shape const& x, Shape const* residual, int32_t axes)
{
    RowLayout layout;
    if (x == shape && (residual == nullptr || *residual == shape))
    {
        return layout;
    }
    size_t const outer = shape.size() - static_cast<size_t>(axes);
    if (outer > static_cast<size_t>(kMaxOuterAxes))
    {
        throw std::invalid_argument("fused normalization: an operand repeats along more than 8 axes");
    }
    layout.rank = static_cast<int32_t>(outer);
    int64_t xRows = 1;
    int64_t residualRows = 1;
    for (size_t axis = outer; axis-- > 0;)
    {
        layout.extents[axis] = shape[axis];
        layout.x[axis] = x[axis] == 1 ? 0 : xRows;
        xRows *= x[axis];
        layout.residual[axis] = residual == nullptr || (*residual)[axis] == 1 ? 0 : residualRows;
        residualRows *= residual != nullptr ? (*residual)[axis] : 1;
    }
    return layout;
}

} // namespace

void run(network::FusedNormalizationParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream)
{
    if (inputs.size() != FusedNormalizationParams::kInputCount || outputs.empty() || outputs.size() > 2
        || (inputs[FusedNormalizationParams::kInput].data == nullptr
            && inputs[FusedNormalizationParams::kInput].count() != 0))
    {
        throw std::invalid_argument("fused normalization: takes x, an added bias, a residual, scale and bias (x "
                                    "given), and writes y and possibly the sum");
    }
    Shape const& shape = outputs[0].shape;
    int32_t const axes = params.normalizedAxes;
    if (axes < 1 || axes > outputs[0].rank())
    {
        throw std::invalid_argument("fused normalization: " + std::to_string(axes)
            + " normalized axes of an output of rank " + std::to_string(outputs[0].rank()));
    }
    for (size_t output = 0; output < outputs.size(); ++output)
    {
        requireType(outputs[output].type, output == 0 ? params.outputScale : 0.0F, "output");
        if (outputs[output].shape != shape)
        {
            throw std::invalid_argument("fused normalization: the outputs have different shapes");
        }
    }
    if (params.quantizes())
    {
        requireType(params.valueType, 0.0F, "value type");
    }
    if (params.sumScale > 0.0F)
    {
        requireType(params.sumCodeType, params.sumScale, "sum's code type");
    }
    RowProblem problem;
    problem.x = rowInput(inputs, FusedNormalizationParams::kInput, params.inputScale, shape, axes, "input");
    problem.preBias = rowInput(inputs, FusedNormalizationParams::kPreBias, 0.0F, shape, axes, "added bias");
    problem.residual
        = rowInput(inputs, FusedNormalizationParams::kResidual, params.residualScale, shape, axes, "residual");
    problem.scale = rowInput(inputs, FusedNormalizationParams::kScale, 0.0F, shape, axes, "scale");
    problem.bias = rowInput(inputs, FusedNormalizationParams::kBias, 0.0F, shape, axes, "bias");
    if (outputs[0].count() == 0)
    {
        return;
    }
    ConstTensorView const& residual = inputs[FusedNormalizationParams::kResidual];
    problem.layout = layoutOf(shape, inputs[FusedNormalizationParams::kInput].shape,
        residual.data != nullptr ? &residual.shape : nullptr, axes);
    problem.y = outputs[0].data;
    problem.yType = outputs[0].type;
    problem.yScale = params.outputScale;
    problem.valueType = params.valueType;
    problem.sum = outputs.size() == 2 ? outputs[1].data : nullptr;
    problem.sumType = outputs.size() == 2 ? outputs[1].type : nvinfer1::DataType::kFLOAT;
    problem.sumScale = params.sumScale;
    problem.sumCodeType = params.sumCodeType;
    problem.length = volume(Shape(shape.end() - axes, shape.end()));
    problem.rows = outputs[0].count() / problem.length;
    problem.epsilon = params.epsilon;
    problem.centered = params.centered;
    normalizeRows(problem, nullptr, stream); // a layer's rows, many and short: none is cut into chunks
}

} // namespace kiln::cuda
