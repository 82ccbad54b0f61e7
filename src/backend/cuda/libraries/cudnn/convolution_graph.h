// A convolution and the epilogue the builder fused into it, as one cuDNN operation graph:
//     output = relu(convolution(input, kernel) + bias + residual)
// with each stage after the convolution present only where the layer has it. Where cuDNN has no
// precompiled engine for the residual (Hopper with cuDNN 9 offers only engines that compile their
// kernels at run time), the graph stops before it and one more kernel adds the residual and the
// ReLU after it (an element-wise sum with its ReLU fused, kernels.h). cuDNN's heuristics rank the
// engine configurations that can run the graph; the builder times the first few and stores the
// rank of the fastest in the plan, and a context makes that rank's execution plan again. The
// graph API reaches Hopper's own kernels, which the older per-call API does not.
#pragma once

#include "backend/cuda/device_layer.h"
#include "backend/cuda/libraries/cudnn/convolution_descriptors.h"
#include "backend/cuda/libraries/cudnn/cudnn_backend.h"
#include "core/tensor_view.h"
#include "network/layers/convolution.h"
#include "plan/plan_model.h"

#include <deque>
#include <memory>
#include <optional>
#include <vector>

namespace kiln::cuda
{

//! Where a graph's tensors are for one run: the bias and residual only where the graph has them.
struct ConvolutionGraphData
{
    void const* input{nullptr};
    void const* kernel{nullptr};
    void const* bias{nullptr};
    void const* residual{nullptr};
    void* output{nullptr};
    void* workspace{nullptr};
};

//! The part of the epilogue that runs after the graph, where the graph leaves it out.
struct ResidualPass
{
    bool present{false};
    bool relu{false};
    int64_t count{0}; //!< output elements
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
};

//! The forward convolution of `input` by `kernel` into `output` (graph tensors) with `geometry`'s window, summed in
//! `accumulator`; its window descriptor is kept in `parts`.
BackendDescriptor convolutionOperation(BackendDescriptor const& input, BackendDescriptor const& kernel,
    BackendDescriptor const& output, cudnnDataType_t accumulator, ConvolutionGeometry const& geometry,
    std::deque<BackendDescriptor>& parts);

//! One engine configuration made ready to run a graph at its shape.
class ConvolutionGraphPlan
{
public:
    ConvolutionGraphPlan(
        BackendDescriptor plan, int64_t workspaceBytes, bool bias, bool residualInGraph, ResidualPass const& after);

    int64_t workspaceBytes() const
    {
        return mWorkspaceBytes;
    }

    //! Queues the graph (and any residual pass) on `handle`'s stream. Throws std::invalid_argument when a tensor is
    //! not 16-byte aligned, as the graph was described, and std::runtime_error when cuDNN fails.
    void execute(cudnnHandle_t handle, ConvolutionGraphData const& data);

private:
    //! The variant pack naming `data`'s tensors: one kept from an earlier run at the same addresses, else a new one,
    //! which replaces the oldest kept. Finalizing a pack costs host time and heap allocations inside cuDNN, and an
    //! application that pipelines alternates between a few sets of buffers, so the last kPacksKept sets keep theirs.
    BackendDescriptor const& packFor(ConvolutionGraphData const& data);

    //! A variant pack and the addresses it names.
    struct KeptPack
    {
        ConvolutionGraphData data;
        BackendDescriptor pack;
    };
    static constexpr size_t kPacksKept = 4;

    BackendDescriptor mPlan;
    int64_t mWorkspaceBytes;
    bool mBias;
    bool mResidualInGraph;
    ResidualPass mAfter;
    std::vector<KeptPack> mPacks; //!< at most kPacksKept
    size_t mOldestPack{0};        //!< the one a new pack replaces once mPacks is full
    // The residual pass as an element-wise sum over flat views of the output and the residual, kept with their shapes
    // so that a run only points them at its tensors: it allocates nothing, and prepares again only for new addresses.
    std::unique_ptr<DeviceLayer> mResidualSum;
    std::vector<ConstTensorView> mSumInputs;
    std::vector<TensorView> mSumOutputs;
};

class ConvolutionGraph
{
public:
    //! The graph of convolution `params`, with its fused `epilogue` and a bias when `bias`, on an input of
    //! `inputShape` (the channels cuDNN reads, see cudnnChannels) in `type`, stored in `format`. FP32 computes
    //! without TF32, FP16 on tensor cores with FP32 accumulation. Throws std::runtime_error when cuDNN refuses
    //! the graph, std::invalid_argument for what cuDNN cannot describe.
    ConvolutionGraph(cudnnHandle_t handle, network::ConvolutionParams const& params, plan::Epilogue const& epilogue,
        bool bias, Shape const& inputShape, nvinfer1::DataType type, TensorFormat format);

    //! How many engine configurations cuDNN's heuristics rank for the graph, less those whose numerics the layer
    //! does not allow (see keepsNumerics).
    int64_t candidateCount() const
    {
        return static_cast<int64_t>(mConfigs.size());
    }

    //! The execution plan of candidate `rank` (0: cuDNN's first choice), or nullopt where the engine cannot run the
    //! graph after all, or needs more than `workspaceLimit` bytes.
    std::optional<ConvolutionGraphPlan> plan(int64_t rank, int64_t workspaceLimit = INT64_MAX) const;

    //! The plan of candidate `rank` where it can be made, else of the first candidate that can; nullopt when none
    //! can.
    std::optional<ConvolutionGraphPlan> planOrFirstWorking(int64_t rank) const;

    Shape const& outputShape() const
    {
        return mOutputShape;
    }

private:
    //! Describes the graph, with the residual (and the ReLU after it) or without, and ranks its engines.
    void describe(network::ConvolutionParams const& params, plan::Epilogue const& epilogue, Shape const& inputShape,
        TensorFormat format, bool residualInGraph);

    //! What the output-shaped tensors of the graph share: their dimensions, strides and data type.
    struct GraphTensors
    {
        Shape outputDims;
        Shape outputStrides;
        cudnnDataType_t type;
    };

    //! One pointwise stage of the epilogue: its operation and, for a binary one, its second input.
    struct Stage
    {
        cudnnPointwiseMode_t mode;
        BackendDescriptor const* operand;
    };

    //! The epilogue's stages in the order they apply (bias, residual, ReLU), each present only where the graph has
    //! it; their operand tensors join mParts.
    std::vector<Stage> epilogueStages(
        ConvolutionGeometry const& geometry, GraphTensors const& tensors, bool reluInGraph);

    //! Appends the convolution to `operations` and returns the tensor it writes: the output, or an FP32
    //! intermediate when the epilogue `hasStages`.
    BackendDescriptor const& describeConvolution(ConvolutionGeometry const& geometry, TensorFormat format,
        GraphTensors const& tensors, bool hasStages, std::vector<BackendDescriptor>& operations);

    //! Makes mGraph of `operations`, which then join mParts.
    void assemble(std::vector<BackendDescriptor> operations);

    //! Fills mConfigs with the engines cuDNN's heuristics rank for mGraph, keeping those keepsNumerics allows.
    void rankEngines();

    //! Whether an engine with these notes computes as the layer must: deterministically; FP32 without TF32 or
    //! FP16 down-conversion; no FFT or Winograd transforms and no FP16 accumulation, whose rounding exceeds the
    //! FP16 tolerance; and without compiling kernels at run time, which would make every context slow to start.
    bool keepsNumerics(BackendDescriptor const& config) const;

    cudnnHandle_t mHandle;
    nvinfer1::DataType mType;
    bool mBias;
    bool mResidualInGraph{false};
    ResidualPass mAfter;
    Shape mOutputShape;
    std::deque<BackendDescriptor> mParts; //!< what the graph refers to (a deque keeps references valid as it grows)
    std::optional<BackendDescriptor> mGraph;
    std::vector<BackendDescriptor> mConfigs; //!< ranked by cuDNN, best first
};

} // namespace kiln::cuda
