#include "backend/cuda/passes/pass_list.h"

#include "plan/passes/attention_fusion.h"
#include "backend/cuda/passes/channels_last.h"
#include "backend/cuda/passes/column_scale_folding.h"
#include "backend/cuda/passes/constant_before_transpose.h"
#include "backend/cuda/passes/fusion_rules.h"
#include "backend/cuda/passes/normalization_fusion.h"
#include "backend/cuda/passes/product_merging.h"
#include "backend/cuda/passes/reshape_before_transpose.h"
#include "backend/cuda/passes/row_transposes.h"
#include "backend/cuda/tuning/attention_timing.h"
#include "backend/cuda/tuning/quantized_convolution_timing.h"
#include "backend/cuda/tuning/convolution_timing.h"
#include "backend/cuda/tuning/product_timing.h"
#include "core/logging.h"
#include "plan/passes/channel_permutation.h"
#include "plan/passes/gelu_fusion.h"
#include "plan/passes/recurrence_pairing.h"
#include "plan/passes/sample_normalization.h"

#include <cuda_runtime_api.h>

#include <exception>
#include <utility>

namespace kiln::cuda
{
namespace
{

using plan::PlanModel;

//! What a build logs where a library's timer does not start: "<what> not timed (<why>); <fallback>".
struct Untimed
{
    char const* what;
    char const* fallback;
};

//! Makes `timer` (a `Timer` on the current GPU whose buffers come from `allocator`, nullptr: Kiln's default) the first
//! time it is asked for, unless `whyNot` already says why the GPU cannot time; `tried` remembers the attempt. Logs
//! `untimed` with the reason where the timer does not start.
template <typename Timer, typename Interface>
void startTimerOnce(bool& tried, std::unique_ptr<Interface>& timer, nvinfer1::IGpuAllocator* allocator,
    std::string whyNot, Untimed untimed)
{
    if (tried)
    {
        return;
    }
    tried = true;
    if (whyNot.empty())
    {
        try
        {
            timer = std::make_unique<Timer>(allocator);
        }
        catch (std::exception const& e)
        {
            whyNot = e.what();
        }
    }
    if (timer == nullptr)
    {
        logInfo(std::string(untimed.what) + " not timed (" + whyNot + "); " + untimed.fallback);
    }
}

//! Reshapes that split an axis a transpose wrote moved before the transpose, where the attention fusion can take the
//! transpose into the operand it reads.
bool splitsBeforeTransposes(PlanModel& model, CudaBuild& /*build*/, std::string& /*error*/)
{
    if (size_t const moved = moveSplitsBeforeTransposes(model); moved > 0)
    {
        logInfo("Transposes: " + std::to_string(moved) + " reshapes that split an axis moved before the transposes");
    }
    return true;
}

//! Loops that run an LSTM, GRU or RNN cell over a sequence, each one kernel that runs every step on the device.
bool recurrenceFusion(PlanModel& model, CudaBuild& /*build*/, std::string& /*error*/)
{
    if (size_t const fused = plan::fuseRecurrences(model, recurrentSequences()); fused > 0)
    {
        logInfo("Recurrences: " + std::to_string(fused) + " loops over a recurrent cell run as one layer each");
    }
    return true;
}

//! The recurrent sequences that read nothing of each other (a bidirectional layer's two directions) as one kernel
//! each pair, whose steps wait at one grid barrier for both.
bool recurrencePairing(PlanModel& model, CudaBuild& /*build*/, std::string& /*error*/)
{
    if (size_t const pairs = plan::pairRecurrences(model); pairs > 0)
    {
        logInfo("Recurrences: " + std::to_string(pairs) + " pairs of them run side by side");
    }
    return true;
}

bool attentionFusion(PlanModel& model, CudaBuild& /*build*/, std::string& /*error*/)
{
    plan::fuseAttention(model, attentionFusions());
    return true;
}

//! Transposes that only reorder rows folded, across the row-wise layers between, into the transpose or attention at
//! the chain's other end (nn.MultiheadAttention's batch_first transposes around its projections).
bool rowTransposes(PlanModel& model, CudaBuild& /*build*/, std::string& /*error*/)
{
    if (size_t const folded = foldRowTransposes(model); folded > 0)
    {
        logInfo("Transposes: " + std::to_string(folded)
            + " that reorder rows folded into the transposes or attentions their rows come from or go to");
    }
    return true;
}

//! Element-wise operations with a constant moved before the transposes they read, so that a transpose back to
//! channels-first feeds the residual sum itself, and a channels-last region can take it as a view.
bool constantsBeforeTransposes(PlanModel& model, CudaBuild& /*build*/, std::string& /*error*/)
{
    if (size_t const moved = moveConstantOperationsBeforeTransposes(model); moved > 0)
    {
        logInfo("Transposes: " + std::to_string(moved)
            + " element-wise operations with a constant moved before the transposes they read");
    }
    return true;
}

//! GELU's ONNX expansion made one activation: one step of a point-wise chain instead of five.
bool geluFusion(PlanModel& model, CudaBuild& /*build*/, std::string& /*error*/)
{
    plan::fuseGelu(model);
    return true;
}

//! Q/DQ layers moved across the layers that only move data, next to the convolutions and products they quantize, so
//! that the quantized fusions find them; the data between moves as INT8 or FP8.
bool quantizationPropagation(PlanModel& model, CudaBuild& /*build*/, std::string& /*error*/)
{
    plan::QuantizationPropagation const moved = plan::propagateQuantization(model, quantizedPoolings());
    if (size_t const all = moved.dequantizationsMoved + moved.quantizationsMoved; all > 0)
    {
        logInfo("Q/DQ propagation: " + std::to_string(moved.dequantizationsMoved) + " dequantizations moved forward, "
            + std::to_string(moved.quantizationsMoved) + " quantizations moved back, "
            + std::to_string(moved.pairsRemoved) + " DQ -> Q pairs of one scale removed");
    }
    return true;
}

//! Q/DQ networks' convolutions on INT8, with what follows them, before the floating-point epilogue fusions take the
//! additions and activations.
bool quantizedFusion(PlanModel& model, CudaBuild& /*build*/, std::string& /*error*/)
{
    if (size_t const fused = plan::fuseQuantizedConvolutions(model, int8Kernels()); fused > 0)
    {
        logInfo("Quantized convolutions: " + std::to_string(fused) + " run on INT8");
    }
    return true;
}

//! Q/DQ networks' products by constant weights on INT8 or FP8 (transformers' projections), with their bias,
//! activation and quantization, before the matrix multiply epilogue fusion takes the bias and the activation.
bool quantizedMatrixMultiplyFusion(PlanModel& model, CudaBuild& build, std::string& /*error*/)
{
    if (size_t const fused = plan::fuseQuantizedMatrixMultiplies(model, quantizedProducts(build.fp8Products()));
        fused > 0)
    {
        logInfo("Quantized matrix multiplies: " + std::to_string(fused) + " run on INT8 or FP8");
    }
    return true;
}

//! Products by constants that scale a floating-point linear layer's columns (moved before their transposes above)
//! folded into its weights. A quantized product has taken its own by then: folded into its weights, they would move
//! them off their INT8 or FP8 grid, and the layer would stay unfused.
bool columnScaleFolding(PlanModel& model, CudaBuild& /*build*/, std::string& /*error*/)
{
    if (size_t const folded = foldColumnScalesIntoProducts(model); folded > 0)
    {
        logInfo("Matrix multiplies: " + std::to_string(folded) + " scales per column folded into their weights");
    }
    return true;
}

bool convolutionEpilogueFusion(PlanModel& model, CudaBuild& /*build*/, std::string& /*error*/)
{
    plan::fuseConvolutionEpilogues(model, cudnnFusions());
    return true;
}

bool matrixMultiplyEpilogueFusion(PlanModel& model, CudaBuild& /*build*/, std::string& /*error*/)
{
    plan::fuseMatrixMultiplyEpilogues(model, cublasLtFusions());
    return true;
}

//! Normalizations with the residual sums they read.
bool normalizationFusion(PlanModel& model, CudaBuild& /*build*/, std::string& /*error*/)
{
    fuseNormalizations(model);
    return true;
}

bool pointwiseChainFusion(PlanModel& model, CudaBuild& /*build*/, std::string& /*error*/)
{
    plan::fusePointwiseChains(model, pointwiseChains());
    return true;
}

bool productMerging(PlanModel& model, CudaBuild& /*build*/, std::string& /*error*/)
{
    if (size_t const merged = mergeProductsOfOneInput(model); merged > 0)
    {
        logInfo("Products of one input: " + std::to_string(merged)
            + " merged into others, one strided-batched GEMM each group");
    }
    return true;
}

//! Channel shuffles as one gather each, which a channels-last region can run in place.
bool channelPermutations(PlanModel& model, CudaBuild& /*build*/, std::string& /*error*/)
{
    if (size_t const gathered = plan::gatherChannelPermutations(model); gathered > 0)
    {
        logInfo("Channel shuffles: " + std::to_string(gathered) + " chains of shuffles run as one gather each");
    }
    return true;
}

//! Group normalizations of one group as normalizations of each sample in place, which a channels-last region runs.
bool sampleNormalizations(PlanModel& model, CudaBuild& /*build*/, std::string& /*error*/)
{
    if (size_t const replaced = plan::normalizeSamplesInPlace(model); replaced > 0)
    {
        logInfo("Normalizations of whole samples: " + std::to_string(replaced)
            + " reshape -> normalization -> reshape made one normalization of the 4-D tensor");
    }
    return true;
}

//! Channels-last regions, as the configuration's ConvolutionLayout says.
bool channelsLastFormats(PlanModel& model, CudaBuild& build, std::string& /*error*/)
{
    if (build.options().convolutionLayout != ConvolutionLayout::kLINEAR)
    {
        chooseChannelsLast(model);
    }
    return true;
}

//! By default (kBY_TIMING) the channels-last regions stay only where they time faster.
bool layoutTiming(PlanModel& model, CudaBuild& build, std::string& error)
{
    bool channelsLastFaster = true;
    if (build.options().convolutionLayout == ConvolutionLayout::kBY_TIMING
        && !channelsLastIsFaster(model, build.options().optShape, build.convolutionTuning(), channelsLastFaster, error))
    {
        return false;
    }
    if (!channelsLastFaster)
    {
        logInfo("FP16 convolutions stay linear (NCHW): at this shape cuDNN's linear algorithms time faster");
        storeLinear(model);
    }
    return true;
}

//! Each convolution's and deconvolution's cuDNN algorithm.
bool convolutionAlgorithms(PlanModel& model, CudaBuild& build, std::string& error)
{
    return tuneConvolutions(model, build.options().optShape, build.convolutionTuning(), error);
}

//! Each matrix multiply's cuBLASLt algorithm.
bool matrixMultiplyAlgorithms(PlanModel& model, CudaBuild& build, std::string& error)
{
    return tuneProducts(model, build.options().optShape, build.options().networkTensors, build.productTuning(), error);
}

//! Whether cuDNN's fused attention or Kiln's kernel runs each attention layer cuDNN may run.
bool attentionAlgorithms(PlanModel& model, CudaBuild& build, std::string& error)
{
    return tuneAttention(
        model, build.options().optShape, build.options().networkTensors, build.attentionTuning(), error);
}

//! Whether cuDNN's graph engines or Kiln's kernels run each INT8 convolution a cuDNN graph may run.
bool quantizedConvolutionAlgorithms(PlanModel& model, CudaBuild& build, std::string& error)
{
    return tuneQuantizedConvolutions(
        model, build.options().optShape, build.options().networkTensors, build.quantizedConvolutionTuning(), error);
}

} // namespace

CudaBuild::CudaBuild(backend::PassOptions const& options, std::string device, std::string whyNoGpu)
    : mOptions(options)
    , mDevice(std::move(device))
    , mWhyNoGpu(std::move(whyNoGpu))
    , mBuildCache(mDevice)
{
    int gpu = 0;
    cudaDeviceProp properties{};
    if (mWhyNoGpu.empty() && cudaGetDevice(&gpu) == cudaSuccess
        && cudaGetDeviceProperties(&properties, gpu) == cudaSuccess)
    {
        mFp8Products = properties.major * 10 + properties.minor >= 89;
    }
    cudaGetLastError(); // a failed query above leaves nothing for the next CUDA call to report
}

CudaBuild::~CudaBuild() = default;

backend::TimingCache& CudaBuild::cache()
{
    return mOptions.timingCache != nullptr ? *mOptions.timingCache : mBuildCache;
}

ConvolutionTuning CudaBuild::convolutionTuning()
{
    startTimerOnce<ConvolutionTimer>(mConvolutionTimerTried, mConvolutionTimer, mOptions.allocator, mWhyNoGpu,
        {"Convolution algorithms are", "cuDNN's heuristics choose them when a context first runs"});
    return ConvolutionTuning{
        cache(), mConvolutionTimer.get(), mDevice, mOptions.workspaceLimit, mOptions.errorOnTimingCacheMiss};
}

bool CudaBuild::times()
{
    convolutionTuning(); // a GPU whose cuDNN cannot time leaves the other libraries untimed too
    return mConvolutionTimer != nullptr;
}

ProductTuning CudaBuild::productTuning()
{
    if (times())
    {
        startTimerOnce<ProductTimer>(mProductTimerTried, mProductTimer, mOptions.allocator, "",
            {"Matrix multiply algorithms are", "cuBLASLt's first heuristic choice runs"});
    }
    return ProductTuning{cache(), mProductTimer.get(), mDevice, mOptions.errorOnTimingCacheMiss};
}

AttentionTuning CudaBuild::attentionTuning()
{
    if (times())
    {
        startTimerOnce<AttentionTimer>(mAttentionTimerTried, mAttentionTimer, mOptions.allocator, "",
            {"Attention is", "cuDNN runs it from 256 keys where it takes the shape"});
    }
    return AttentionTuning{cache(), mAttentionTimer.get(), mDevice, mOptions.errorOnTimingCacheMiss};
}

QuantizedConvolutionTuning CudaBuild::quantizedConvolutionTuning()
{
    if (times())
    {
        startTimerOnce<QuantizedConvolutionTimer>(mQuantizedConvolutionTimerTried, mQuantizedConvolutionTimer,
            mOptions.allocator, "", {"INT8 convolutions are", "Kiln's kernels run them"});
    }
    return QuantizedConvolutionTuning{
        cache(), mQuantizedConvolutionTimer.get(), mDevice, mOptions.errorOnTimingCacheMiss};
}

backend::PassList<CudaBuild> const& cudaPasses()
{
    static backend::PassList<CudaBuild> const passes{
        {"recurrence fusion", recurrenceFusion},
        {"recurrence pairing", recurrencePairing},
        {"splits before transposes", splitsBeforeTransposes},
        {"attention fusion", attentionFusion},
        {"row transposes", rowTransposes},
        {"constants before transposes", constantsBeforeTransposes},
        {"GELU fusion", geluFusion},
        {"Q/DQ propagation", quantizationPropagation},
        {"quantized fusion", quantizedFusion},
        {"quantized matrix multiply fusion", quantizedMatrixMultiplyFusion},
        {"column scale folding", columnScaleFolding},
        {"convolution epilogue fusion", convolutionEpilogueFusion},
        {"matrix multiply epilogue fusion", matrixMultiplyEpilogueFusion},
        {"normalization fusion", normalizationFusion},
        {"point-wise chain fusion", pointwiseChainFusion},
        {"product merging", productMerging},
        {"channel permutations", channelPermutations},
        {"sample normalizations", sampleNormalizations},
        {"channels-last formats", channelsLastFormats},
        {"layout timing", layoutTiming},
        {"convolution algorithms", convolutionAlgorithms},
        {"INT8 convolution algorithms", quantizedConvolutionAlgorithms},
        {"matrix multiply algorithms", matrixMultiplyAlgorithms},
        {"attention algorithms", attentionAlgorithms},
    };
    return passes;
}

} // namespace kiln::cuda
