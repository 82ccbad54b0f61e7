#include "backend/cuda/passes/fusion_rules.h"

#include "backend/cuda/kernels/convolution/quantized_convolution.h"
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/libraries/cublaslt/quantized_matrix_multiply.h"
#include "network/layers/matrix_multiply.h"
#include "network/layers/pooling.h"
#include "network/layers/quantize.h"
#include "network/plugin_layer.h"
#include "plan/plan_graph.h"

namespace kiln::cuda
{
namespace
{

//! The one activation cuDNN's and cuBLASLt's epilogues apply.
bool relu(network::ActivationParams const& activation)
{
    return activation.activation == nvinfer1::ActivationType::kRELU;
}

} // namespace

plan::ConvolutionFusionRules cudnnFusions()
{
    auto everyConvolution = [](plan::PlanModel const&, plan::LayerRecord const&) { return true; };
    return plan::ConvolutionFusionRules{everyConvolution, relu, true};
}

plan::MatrixMultiplyFusionRules cublasLtFusions()
{
    auto fullyConnected = [](plan::PlanModel const& model, plan::LayerRecord const& product) {
        auto const* params = plan::paramsOf<network::MatrixMultiplyParams>(product);
        size_t const rank = model.tensors[product.outputs[0]].dims.size();
        bool const untransposed = params->op0 == nvinfer1::MatrixOperation::kNONE;
        size_t const innerAxis = untransposed ? rank - 1 : rank - 2;
        std::optional<int64_t> const inner = plan::constantExtent(model, product.inputs[0], innerAxis);
        bool oneWeightMatrix = true;
        for (size_t axis = 0; axis + 2 < rank; ++axis)
        {
            oneWeightMatrix = oneWeightMatrix && plan::constantExtent(model, product.inputs[1], axis) == 1;
        }
        bool const oneGemm = rank == 2 || (untransposed && oneWeightMatrix);
        return rank >= 2 && oneGemm && inner && *inner > 0;
    };
    return plan::MatrixMultiplyFusionRules{fullyConnected, relu};
}

plan::QuantizedFusionRules int8Kernels()
{
    auto runs = [](plan::PlanModel const& /*model*/, plan::LayerRecord const& record) {
        auto const* convolution = plan::paramsOf<network::QuantizedConvolutionParams>(record);
        return convolution != nullptr && runsQuantizedConvolution(*convolution);
    };
    auto anyActivation = [](network::ActivationParams const&) { return true; };
    return plan::QuantizedFusionRules{runs, anyActivation, anyActivation};
}

plan::QuantizationPropagationRules quantizedPoolings()
{
    auto runs = [](plan::PlanModel const& model, plan::LayerRecord const& record) {
        auto const* pooling = plan::paramsOf<network::PoolingParams>(record);
        return pooling != nullptr && pooling->poolingType == nvinfer1::PoolingType::kMAX
            && plan::linearThroughout(model, record) && plan::slotType(model, record, 0) == nvinfer1::DataType::kINT8;
    };
    return plan::QuantizationPropagationRules{runs};
}

plan::QuantizedMatrixMultiplyFusionRules quantizedProducts(bool fp8)
{
    auto runs = [fp8](plan::PlanModel const& model, plan::LayerRecord const& record) {
        auto const* product = plan::paramsOf<network::QuantizedMatrixMultiplyParams>(record);
        return product != nullptr && runsQuantizedMatrixMultiply(*product) && plan::linearThroughout(model, record)
            && (fp8 || product->quantizedType() != nvinfer1::DataType::kFP8);
    };
    auto anyActivation = [](network::ActivationParams const&) { return true; };
    return plan::QuantizedMatrixMultiplyFusionRules{runs, anyActivation};
}

plan::AttentionFusionRules attentionFusions()
{
    // Quantized attention's roundings run on the FP16 kernel only.
    auto runs = [](nvinfer1::DataType type, int64_t depth, int64_t valueDepth, bool rounds) {
        bool const kernelType = type == nvinfer1::DataType::kHALF || (type == nvinfer1::DataType::kFLOAT && !rounds);
        return kernelType && depth > 0 && depth <= kMaxAttentionDepth && valueDepth > 0
            && valueDepth <= kMaxAttentionDepth;
    };
    return plan::AttentionFusionRules{runs};
}

plan::RecurrenceFusionRules recurrentSequences()
{
    auto runs = [](network::RecurrentSequenceParams const& /*cell*/, nvinfer1::DataType type, int64_t hidden) {
        return (type == nvinfer1::DataType::kFLOAT || type == nvinfer1::DataType::kHALF) && hidden > 0;
    };
    return plan::RecurrenceFusionRules{runs};
}

plan::PointwiseFusionRules pointwiseChains()
{
    auto floatingPointThroughout = [](plan::PlanModel const& model, plan::LayerRecord const& layer) {
        if (dynamic_cast<network::PluginParams const*>(layer.params.get()) != nullptr)
        {
            return false;
        }
        if (plan::paramsOf<network::DequantizeParams>(layer) != nullptr)
        {
            // The DQ of a Q -> DQ pair (the pass checks the pair): its codes stay in registers, its output is stored.
            return isFloatType(plan::slotType(model, layer, layer.inputs.size()));
        }
        size_t const inputs = layer.inputs.size();
        for (size_t slot = 0; slot < inputs + layer.outputs.size(); ++slot)
        {
            int32_t const t = slot < inputs ? layer.inputs[slot] : layer.outputs[slot - inputs];
            if (t < 0)
            {
                continue; // an absent optional input
            }
            if (!isFloatType(model.tensors[t].type) || !isFloatType(plan::slotType(model, layer, slot)))
            {
                return false;
            }
        }
        return true;
    };
    return plan::PointwiseFusionRules{
        floatingPointThroughout, static_cast<size_t>(kMaxPointwiseSteps), static_cast<size_t>(kMaxPointwiseInputs)};
}

} // namespace kiln::cuda
