#include "backend/cpu/passes/pass_list.h"

#include "backend/cpu/fast/fast_path.h"
#include "backend/cpu/passes/channels_last.h"
#include "backend/cpu/passes/sample_affine_folding.h"
#include "backend/cpu/passes/scale_folding.h"
#include "core/logging.h"
#include "plan/passes/attention_fusion.h"
#include "plan/passes/channel_permutation.h"
#include "plan/passes/convolution_fusion.h"
#include "plan/passes/gelu_fusion.h"
#include "plan/passes/matrix_multiply_fusion.h"
#include "plan/passes/pointwise_fusion.h"
#include "plan/passes/quantization_propagation.h"
#include "plan/passes/quantized_fusion.h"
#include "plan/passes/quantized_matrix_multiply_fusion.h"
#include "plan/passes/recurrence_fusion.h"
#include "plan/passes/sample_normalization.h"

namespace kiln::cpu
{
namespace
{

using Options = backend::PassOptions const;

//! First, before the fusions that would change the loops' bodies: the loops of LSTM, GRU and RNN cells as one layer
//! each, whose kernel (fast/recurrent_sequence.cpp) runs every step with one product of all the gates' weights a step
//! and the threads meeting once a step, where the loop ran a dozen layers a step. FP32, cells whose activations the
//! kernel vectorises.
bool recurrenceFusion(plan::PlanModel& model, Options& /*options*/, std::string& /*error*/)
{
    auto const runs = [](network::RecurrentSequenceParams const& cell, nvinfer1::DataType type, int64_t hidden) {
        return type == nvinfer1::DataType::kFLOAT && hidden > 0 && fast::runsRecurrentCell(cell);
    };
    if (size_t const fused = plan::fuseRecurrences(model, plan::RecurrenceFusionRules{runs}); fused > 0)
    {
        logInfo("Recurrences: " + std::to_string(fused) + " loops over a recurrent cell run as one layer each");
    }
    return true;
}

bool scaleFolding(plan::PlanModel& model, Options& /*options*/, std::string& /*error*/)
{
    foldScalesIntoConvolutions(model);
    return true;
}

//! Attention as one layer, whose kernel (fast/attention.cpp) keeps each block of queries' scores in a buffer of at most
//! 2 MB where the unfused layers wrote them all to memory. FP32 only, without the roundings of quantized attention,
//! which stays in the layers that quantize it (the quantized fusions below take its products).
bool attentionFusion(plan::PlanModel& model, Options& /*options*/, std::string& /*error*/)
{
    auto const runs = [](nvinfer1::DataType type, int64_t /*depth*/, int64_t /*valueDepth*/, bool rounds) {
        return type == nvinfer1::DataType::kFLOAT && !rounds;
    };
    plan::fuseAttention(model, plan::AttentionFusionRules{runs});
    return true;
}

bool geluFusion(plan::PlanModel& model, Options& /*options*/, std::string& /*error*/)
{
    plan::fuseGelu(model);
    return true;
}

//! Q/DQ layers moved across the layers that only move data, next to the convolutions and products they quantize, so
//! that the quantized fusions find them; the data between moves as INT8. Scalings that a Q reads move back with it
//! (the fused products take them: BERT's queries and keys).
bool quantizationPropagation(plan::PlanModel& model, Options& /*options*/, std::string& /*error*/)
{
    plan::propagateQuantization(model, plan::QuantizationPropagationRules{fast::runsLayer, /*movesScalingsBack=*/true});
    return true;
}

//! Q/DQ networks' convolutions on INT8, with what follows them, before the floating-point epilogue fusions take the
//! additions and activations.
bool quantizedFusion(plan::PlanModel& model, Options& /*options*/, std::string& /*error*/)
{
    plan::fuseQuantizedConvolutions(
        model, plan::QuantizedFusionRules{fast::runsLayer, fast::fusesActivation, fast::convolutionFusesSelfGated});
    return true;
}

//! Q/DQ networks' products by constant weights on INT8 (BERT's projections), with their bias, activation and
//! quantization, before the matrix multiply epilogue fusion takes the bias and the activation.
bool quantizedMatrixMultiplyFusion(plan::PlanModel& model, Options& /*options*/, std::string& /*error*/)
{
    plan::fuseQuantizedMatrixMultiplies(
        model, plan::QuantizedMatrixMultiplyFusionRules{fast::runsLayer, fast::fusesActivation});
    return true;
}

//! Only where oneDNN runs the convolution or the product: the reference kernels gain nothing from a fused epilogue.
bool convolutionEpilogueFusion(plan::PlanModel& model, Options& /*options*/, std::string& /*error*/)
{
    plan::fuseConvolutionEpilogues(model,
        plan::ConvolutionFusionRules{
            fast::runsLayer, fast::convolutionFusesActivation, false, fast::convolutionFusesSelfGated, true});
    return true;
}

bool matrixMultiplyEpilogueFusion(plan::PlanModel& model, Options& /*options*/, std::string& /*error*/)
{
    plan::fuseMatrixMultiplyEpilogues(model, plan::MatrixMultiplyFusionRules{fast::runsLayer, fast::fusesActivation});
    return true;
}

//! Last of the fusions: what is left of the element-wise layers between the convolutions and products runs in one
//! pass over memory.
bool pointwiseChainFusion(plan::PlanModel& model, Options& /*options*/, std::string& /*error*/)
{
    plan::fusePointwiseChains(model, plan::PointwiseFusionRules{fast::joinsPointwiseChain});
    return true;
}

//! Group normalizations of one group (PoolFormer's) as normalizations of each sample of the 4-D tensor, which the fast
//! path runs on channels-last data: the export's reshapes around them would copy out of the region and back.
bool sampleNormalizations(plan::PlanModel& model, Options& /*options*/, std::string& /*error*/)
{
    plan::normalizeSamplesInPlace(model);
    return true;
}

//! The per-channel affine step after each normalization of whole samples (PoolFormer's) folded into its scale and
//! shift, before the point-wise chains would take it.
bool sampleAffineFolding(plan::PlanModel& model, Options& /*options*/, std::string& /*error*/)
{
    if (size_t const folded = foldAffineIntoSampleNormalizations(model); folded > 0)
    {
        logInfo("Normalizations: " + std::to_string(folded) + " take the per-channel affine step after them");
    }
    return true;
}

//! Channel shuffles, and the slices that split them, as one gather of the channels each (plan/passes/
//! channel_permutation.h), which the fast path runs on channels-last data as it is stored: ShuffleNetV2's
//! transposes and slices each copied their tensor out of the channels-last region and back.
bool channelPermutations(plan::PlanModel& model, Options& /*options*/, std::string& /*error*/)
{
    if (size_t const gathered = plan::gatherChannelPermutations(model); gathered > 0)
    {
        logInfo("Channel shuffles: " + std::to_string(gathered) + " chains of shuffles run as one gather each");
    }
    return true;
}

bool fastPathMarking(plan::PlanModel& model, Options& /*options*/, std::string& /*error*/)
{
    for (plan::LayerRecord& layer : model.layers)
    {
        if (fast::runsLayer(model, layer))
        {
            fast::mark(layer);
        }
    }
    return true;
}

//! After the marking: the kernels' formats are those of the layers the fast path runs. Where every tensor in memory
//! is to be reported (row-major), none is stored channels-last.
bool channelsLastFormats(plan::PlanModel& model, Options& options, std::string& /*error*/)
{
    if (!options.unfusedTensorsObserved)
    {
        storeChannelsLast(model);
    }
    return true;
}

} // namespace

backend::PassList<Options> const& cpuPasses()
{
    static backend::PassList<Options> const passes{
        {"recurrence fusion", recurrenceFusion},
        {"scale folding", scaleFolding},
        {"attention fusion", attentionFusion},
        {"GELU fusion", geluFusion},
        {"Q/DQ propagation", quantizationPropagation},
        {"quantized fusion", quantizedFusion},
        {"quantized matrix multiply fusion", quantizedMatrixMultiplyFusion},
        {"convolution epilogue fusion", convolutionEpilogueFusion},
        {"matrix multiply epilogue fusion", matrixMultiplyEpilogueFusion},
        {"sample normalizations", sampleNormalizations},
        {"sample affine folding", sampleAffineFolding},
        {"point-wise chain fusion", pointwiseChainFusion},
        {"channel permutations", channelPermutations},
        {"fast path marking", fastPathMarking},
        {"channels-last formats", channelsLastFormats},
    };
    return passes;
}

} // namespace kiln::cpu
