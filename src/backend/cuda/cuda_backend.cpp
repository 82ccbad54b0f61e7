#include "backend/cuda/cuda_backend.h"

#include "backend/cuda/cuda_executor.h"
#include "backend/cuda/layer_lowering.h"
#include "backend/cuda/passes/attention_fusion.h"
#include "backend/cuda/passes/channels_last.h"
#include "backend/cuda/passes/column_scale_folding.h"
#include "backend/cuda/passes/constant_before_transpose.h"
#include "backend/cuda/passes/convolution_tuning.h"
#include "backend/cuda/passes/normalization_fusion.h"
#include "backend/cuda/passes/product_merging.h"
#include "backend/cuda/passes/product_tuning.h"
#include "backend/cuda/tactic_names.h"
#include "backend/cuda/tuning/convolution_timing.h"
#include "backend/cuda/tuning/product_timing.h"
#include "core/logging.h"
#include "network/layers/matrix_multiply.h"
#include "plan/passes/convolution_fusion.h"
#include "plan/passes/gelu_fusion.h"
#include "plan/passes/matrix_multiply_fusion.h"
#include "plan/passes/pointwise_fusion.h"
#include "plan/plan_graph.h"

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <exception>

namespace kiln::cuda
{
namespace
{

//! A timer (ConvolutionTimer or ProductTimer) on the current GPU whose buffers come from `allocator` (nullptr: Kiln's
//! default); nullptr with `why` where its library cannot start.
template <typename Timer>
std::unique_ptr<Timer> makeTimer(nvinfer1::IGpuAllocator* allocator, std::string& why)
{
    try
    {
        return std::make_unique<Timer>(allocator);
    }
    catch (std::exception const& e)
    {
        why = e.what();
    }
    return nullptr;
}

//! The one activation cuDNN's and cuBLASLt's epilogues apply.
bool relu(network::ActivationParams const& activation)
{
    return activation.activation == nvinfer1::ActivationType::kRELU;
}

//! cuDNN fuses a ReLU into any convolution; an addition only together with one (its identity activation is limited
//! to one algorithm).
plan::ConvolutionFusionRules cudnnFusions()
{
    auto everyConvolution = [](plan::PlanModel const&, plan::LayerRecord const&) { return true; };
    return plan::ConvolutionFusionRules{everyConvolution, relu, true};
}

//! cuBLASLt's epilogue adds a bias row and applies a ReLU, for products that are one GEMM: fully connected (2-D)
//! ones, and those of a batch of untransposed rows by one matrix, which the geometry folds into one GEMM
//! (matrix_multiply_geometry.h), as transformers' linear layers are. The inner extent must be known not to be 0:
//! the epilogue has no form for an empty sum.
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

//! The attention the kernels run over depths of up to kMaxAttentionDepth: FP16 on the tensor cores (attention.cu),
//! FP32 on the CUDA cores (attention_fp32.cu, no TF32, as FP32 plans promise).
AttentionFusionRules attentionFusions()
{
    auto runs = [](nvinfer1::DataType type, int64_t depth, int64_t valueDepth) {
        bool const kernelType = type == nvinfer1::DataType::kHALF || type == nvinfer1::DataType::kFLOAT;
        return kernelType && depth > 0 && depth <= kMaxAttentionDepth && valueDepth > 0
            && valueDepth <= kMaxAttentionDepth;
    };
    return AttentionFusionRules{runs};
}

//! The point-wise chains pointwise.cu runs: built-in layers over floating-point tensors, within the kernel's program
//! size. The kernel reads and writes each tensor in its own type and computes in float, so a layer that converted
//! a tensor (an FP32 constant or network input read by an FP16 layer) joins too, its conversion folded into the load.
plan::PointwiseFusionRules pointwiseChains()
{
    auto floatingPointThroughout = [](plan::PlanModel const& model, plan::LayerRecord const& layer) {
        if (dynamic_cast<network::PluginParams const*>(layer.params.get()) != nullptr)
        {
            return false;
        }
        size_t const inputs = layer.inputs.size();
        for (size_t slot = 0; slot < inputs + layer.outputs.size(); ++slot)
        {
            int32_t const t = slot < inputs ? layer.inputs[slot] : layer.outputs[slot - inputs];
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

class CudaBackend final : public backend::Implementation
{
public:
    bool usable(std::string& why) const override
    {
        int count = 0;
        cudaError_t const status = cudaGetDeviceCount(&count);
        if (status != cudaSuccess || count == 0)
        {
            why = status != cudaSuccess ? std::string("no usable CUDA GPU: ") + cudaGetErrorString(status)
                                        : std::string("no CUDA GPU is present");
            cudaGetLastError(); // clear the error, so that it does not surface in a later CUDA call
            return false;
        }
        return true;
    }

    std::string unsupportedReason(network::LayerParams const& params) const override
    {
        return cuda::unsupportedReason(params);
    }

    //! Attention (first: its patterns hold transposes), element-wise operations with constants moved before the
    //! transposes they read (so that a transpose back to channels-first feeds the residual sum itself, and a
    //! channels-last region can take it as a view) and then folded into a linear layer's weights where they scale
    //! its columns, GELU (its ONNX expansion made one activation: one step of a point-wise chain instead of five),
    //! convolution and matrix multiply fusions, normalizations with the residual sums they read (before the
    //! point-wise chains, which would otherwise take their element-wise layers), point-wise chains, products of one
    //! input merged into one (each with its fused bias, so after the matrix multiply fusions), channels-last regions
    //! (as the configuration's ConvolutionLayout says: by default kept where they time faster), then each
    //! convolution's and deconvolution's cuDNN algorithm by timing.
    bool optimize(plan::PlanModel& model, backend::PassOptions const& options, std::string& error) const override
    {
        fuseAttention(model, attentionFusions());
        if (size_t const moved = moveConstantOperationsBeforeTransposes(model); moved > 0)
        {
            logInfo("Transposes: " + std::to_string(moved)
                + " element-wise operations with a constant moved before the transposes they read");
        }
        if (size_t const folded = foldColumnScalesIntoProducts(model); folded > 0)
        {
            logInfo("Matrix multiplies: " + std::to_string(folded) + " scales per column folded into their weights");
        }
        plan::fuseGelu(model);
        plan::fuseConvolutionEpilogues(model, cudnnFusions());
        plan::fuseMatrixMultiplyEpilogues(model, cublasLtFusions());
        fuseNormalizations(model);
        plan::fusePointwiseChains(model, pointwiseChains());
        if (size_t const merged = mergeProductsOfOneInput(model); merged > 0)
        {
            logInfo("Products of one input: " + std::to_string(merged)
                + " merged into others, one strided-batched GEMM each group");
        }
        if (options.convolutionLayout != ConvolutionLayout::kLINEAR)
        {
            chooseChannelsLast(model);
        }
        std::string const device = deviceIdentity();
        backend::TimingCache buildCache(device); // this build's own, where the application gave none
        std::string noTimer;
        std::unique_ptr<AlgorithmTimer> const timer
            = usable(noTimer) ? makeTimer<ConvolutionTimer>(options.allocator, noTimer) : nullptr;
        if (timer == nullptr)
        {
            logInfo("Convolution algorithms are not timed (" + noTimer
                + "); cuDNN's heuristics choose them when a context first runs");
        }
        ConvolutionTuning const tuning{options.timingCache != nullptr ? *options.timingCache : buildCache, timer.get(),
            device, options.workspaceLimit, options.errorOnTimingCacheMiss};
        bool channelsLastFaster = true;
        if (options.convolutionLayout == ConvolutionLayout::kBY_TIMING
            && !channelsLastIsFaster(model, options.optShape, tuning, channelsLastFaster, error))
        {
            return false;
        }
        if (!channelsLastFaster)
        {
            logInfo("FP16 convolutions stay linear (NCHW): at this shape cuDNN's linear algorithms time faster");
            storeLinear(model);
        }
        if (!tuneConvolutions(model, options.optShape, tuning, error))
        {
            return false;
        }
        std::unique_ptr<ProductAlgorithmTimer> const productTimer
            = timer != nullptr ? makeTimer<ProductTimer>(options.allocator, noTimer) : nullptr;
        if (timer != nullptr && productTimer == nullptr)
        {
            logInfo(
                "Matrix multiply algorithms are not timed (" + noTimer + "); cuBLASLt's first heuristic choice runs");
        }
        ProductTuning const productTuning{tuning.cache, productTimer.get(), device, options.errorOnTimingCacheMiss};
        return tuneProducts(model, options.optShape, options.networkTensors, productTuning, error);
    }

    std::unique_ptr<backend::Executor> makeExecutor(
        backend::LoadedPlan const& plan, plugin::ContextResources& resources) const override
    {
        return std::make_unique<CudaExecutor>(plan, resources);
    }

    //! Each context uploads a constant's weights once; layers read them there, and the constant layer never runs.
    bool bindsConstants() const override
    {
        return true;
    }

    bool copiesShapeInputs() const override
    {
        return true;
    }

    std::string tacticName(plan::LayerRecord const& layer) const override
    {
        return cuda::tacticName(layer);
    }

    bool evaluatesShapesOnHost() const override
    {
        return true;
    }

    //! Layers computing shape tensors run on the host from the values' expressions (CudaExecutor), and a reshape's
    //! kernel takes its output's dimensions from the plan: neither reads the shape tensors it is given.
    bool readsInputData(plan::PlanModel const& model, size_t l, size_t input) const override
    {
        bool const reshapeDimensions = model.layers[l].type == nvinfer1::LayerType::kSHUFFLE && input == 1;
        return !reshapeDimensions && !plan::computesShapesOnly(model, l);
    }

    //! The GPU's name and compute capability, and cuDNN's version.
    std::string deviceIdentity() const override
    {
        std::string why;
        int device = 0;
        cudaDeviceProp properties{};
        if (!usable(why) || cudaGetDevice(&device) != cudaSuccess
            || cudaGetDeviceProperties(&properties, device) != cudaSuccess)
        {
            cudaGetLastError();
            return {};
        }
        return std::string(properties.name) + ", sm_" + std::to_string(properties.major)
            + std::to_string(properties.minor) + ", cuDNN " + std::to_string(cudnnGetVersion());
    }
};

} // namespace

backend::Implementation const& cudaBackend()
{
    static CudaBackend const backend;
    return backend;
}

} // namespace kiln::cuda
