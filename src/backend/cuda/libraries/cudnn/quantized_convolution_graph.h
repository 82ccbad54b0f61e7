// A QuantizedConvolution (network/fused/quantized_convolution.h) as one cuDNN operation graph, for the layers Model
// Optimizer's INT8 CNNs are made of: INT8 channels-last input and filters, sums in INT32, then
//     output = quantize(activation(sums * multiplier[k] + bias[k] + residual * residualMultiplier))
// with the output scale folded into the multipliers (each the input scale times map k's filter scale, over the output
// scale) and the bias, the residual and the activation (ReLU, or SiLU: y * sigmoid(y)) only where the layer has them.
// SiLU does not commute with the scaling, so its graph keeps the multipliers unfolded and divides by the output scale
// after the activation.
// On Hopper cuDNN 9 runs such graphs only through engines that compile their kernels at run time (each plan takes about
// half a second to make); at ResNet-50's shapes they took 1.3x-2x less time than FP16 convolutions with bias and ReLU
// (bench/cudnn_int8_graph_probe.cpp). The builder times them against Kiln's own kernels (quantized_convolution.h) and
// keeps the rank of the faster engine in the plan; a context makes that rank's plan again.
//
// The folded multipliers round once where Kiln's kernels scale and then divide by the output scale: an output may take
// the neighbouring INT8 step where the value lies within FP32 rounding of a step's boundary, as quantized_convolution.h
// already allows against the CPU reference.
#pragma once

#include "backend/cuda/libraries/cudnn/cudnn_backend.h"
#include "backend/cuda/memory/device_buffer.h"
#include "core/tensor_view.h"
#include "network/fused/quantized_convolution.h"

#include <deque>
#include <memory>
#include <optional>
#include <vector>

namespace kiln::cuda
{

//! Where a run's tensors are: the residual only where the layer adds one.
struct QuantizedConvolutionGraphData
{
    void const* input{nullptr};
    void const* residual{nullptr};
    void* output{nullptr};
    void* workspace{nullptr};
};

//! A layer's constants in the form its graphs read them, uploaded once and shared by its graphs at every shape.
struct QuantizedConvolutionGraphConstants
{
    //! Uploads `params`' constants (from the allocator in scope). Throws std::runtime_error when out of memory.
    explicit QuantizedConvolutionGraphConstants(network::QuantizedConvolutionParams const& params);

    // The multipliers, the bias and the residual's multiplier are over the output scale unless the graph divides by it
    // after a SiLU.
    DeviceBuffer filters;            //!< INT8 [K, R, S, C]
    DeviceBuffer multipliers;        //!< FP32 [K]: inputScale * kernelScales[k] (/ outputScale)
    DeviceBuffer bias;               //!< FP32 [K]: bias[k] (/ outputScale; zeros without a bias)
    DeviceBuffer residualMultiplier; //!< FP32 [1]: residualScale (/ outputScale)
    DeviceBuffer outputScale;        //!< FP32 [1]
};

class QuantizedConvolutionGraph
{
public:
    //! The most workspace an engine may take: they need none or little at the shapes measured.
    static constexpr int64_t kWorkspaceLimit = int64_t{256} << 20;

    //! Whether a graph may run `params` on input `inputShape` stored in `format`: channels-last 4-D INT8, one group,
    //! symmetric padding, channels and maps multiples of 16 (cuDNN's INT8 kernels load 16 channels at a time), an INT8
    //! output, an INT8 residual or none, ReLU, SiLU or no activation. cuDNN's heuristics have the last word.
    static bool takes(network::QuantizedConvolutionParams const& params, Shape const& inputShape, TensorFormat format);

    //! The graph of `params` on an input of `inputShape`, which takes() accepts, reading `constants` (made of the
    //! same `params`). Throws std::runtime_error when cuDNN refuses the graph.
    QuantizedConvolutionGraph(cudnnHandle_t handle, network::QuantizedConvolutionParams const& params,
        Shape const& inputShape, std::shared_ptr<QuantizedConvolutionGraphConstants const> constants);

    //! How many engine configurations cuDNN's heuristics rank for the graph, less those that approximate.
    int64_t candidateCount() const
    {
        return static_cast<int64_t>(mConfigs.size());
    }

    //! Makes candidate `rank`'s execution plan the one execute() runs (compiling its kernels, where the engine does
    //! at run time); false where the engine cannot run the graph after all or needs more than `workspaceLimit` bytes.
    bool choose(int64_t rank, int64_t workspaceLimit);

    //! choose(rank), else the first candidate that can be chosen; false when none can.
    bool chooseOrFirstWorking(int64_t rank, int64_t workspaceLimit);

    //! The workspace the chosen plan needs.
    int64_t workspaceBytes() const
    {
        return mWorkspaceBytes;
    }

    //! Queues the chosen plan on `handle`'s stream. Throws std::invalid_argument when a tensor is not 16-byte aligned,
    //! std::runtime_error when cuDNN fails.
    void execute(cudnnHandle_t handle, QuantizedConvolutionGraphData const& data);

private:
    void describe(network::QuantizedConvolutionParams const& params, Shape const& inputShape);

    cudnnHandle_t mHandle;
    bool mResidual{false};
    bool mDividesAfterActivation{false};
    std::deque<BackendDescriptor> mParts; //!< the graph's tensors and operations, which it refers to
    std::optional<BackendDescriptor> mGraph;
    std::vector<BackendDescriptor> mConfigs;
    std::optional<BackendDescriptor> mPlan;
    int64_t mWorkspaceBytes{0};
    std::shared_ptr<QuantizedConvolutionGraphConstants const> mConstants;
    // The variant pack of the last run's addresses: a context runs the layer on the same tensors every time (a new
    // pack costs host time and allocations inside cuDNN).
    std::optional<BackendDescriptor> mPack;
    QuantizedConvolutionGraphData mPackData;
};

} // namespace kiln::cuda
