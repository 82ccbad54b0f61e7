// The attention layer (network/fused/attention.h) on the GPU: through cuDNN's fused attention (attention_graph.h)
// where it takes the problem, else on Kiln's kernels (kernels/attention/). cuDNN runs FP16 attention without a mask,
// roundings or NaN guard whose operands' rows are contiguous and 16-byte aligned, whose batch axes fold into two
// (batch and heads, none broadcast) and whose query and value depths are one multiple of 8 up to 128. Which of the two
// runs a layer cuDNN takes is the builder's timing's choice (passes/attention_tuning.h), kept in the plan
// (plan::LayerRecord::backendChoice); untimed, cuDNN runs problems of at least 256 keys (Whisper's encoder) and Kiln's
// kernel shorter ones. A cuDNN plan is made the first time a shape runs (cuDNN compiles its kernels then, see
// attention_graph.h) and kept for the last few shapes, as is the finding that cuDNN does not take one.
#pragma once

#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/libraries/cudnn/attention_graph.h"

#include <array>
#include <optional>
#include <vector>

namespace kiln::cuda
{

class AttentionLayer final : public DeviceLayer
{
public:
    AttentionLayer(network::AttentionParams const& params, LayerContext const& context);

    void run(LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream) override;

    //! Whether the last run went through cuDNN (else through Kiln's kernel).
    bool ranOnCudnn() const
    {
        return mRanOnCudnn;
    }

private:
    //! cuDNN's plan for one shape of the layer's tensors, or none where cuDNN does not take that shape.
    struct ShapePlan
    {
        std::array<Shape, 4> shapes; //!< query, keys, values, output
        std::optional<AttentionGraph> graph;
        std::array<int64_t, 3> starts{}; //!< the elements query, keys and values start at (their picks)
    };
    static constexpr size_t kShapesKept = 4;
    //! The most workspace a cuDNN plan may take: its Hopper engines take 256 bytes or none, and the buffer is made
    //! with the context, not while a run may be captured into a CUDA graph.
    static constexpr size_t kWorkspaceBytes = size_t{64} << 10;

    //! Which runs the problems cuDNN takes, as the plan records the builder's choice.
    enum class Choice
    {
        kBY_KEYS, //!< untimed: cuDNN from kCudnnFewestKeys keys on
        kCUDNN,
        kKERNEL,
    };
    static Choice choiceOf(plan::LayerRecord const& record);

    //! The plan for this run's shapes: a kept one, else made now (replacing the oldest kept); without a graph where
    //! cuDNN does not take them, or where the choice leaves them to Kiln's kernel.
    ShapePlan& planFor(LayerInputs const& inputs, TensorView const& output, cudaStream_t stream);

    network::AttentionParams const& mParams;
    LibraryHandles& mHandles;
    Choice const mChoice;
    DeviceBuffer mWorkspace;
    std::vector<ShapePlan> mPlans; //!< at most kShapesKept
    size_t mOldestPlan{0};         //!< the one a new shape replaces once mPlans is full
    bool mRanOnCudnn{false};
};

} // namespace kiln::cuda
