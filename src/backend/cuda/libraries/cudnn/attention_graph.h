// FP16 attention through cuDNN's fused scaled-dot-product operation (the graph API's SDPA_FWD, cuDNN 9.13.1 on):
//     output = softmax(scale * query . keys^T) . values
// over [batch, heads, rows, depth] operands in any strides whose rows are contiguous, without a mask, the products
// accumulated and the softmax computed in FP32. On Hopper its engines are flash attention on the warp-group
// products, 1.7 times as fast as Kiln's own FP16 kernel at Whisper's 1500 tokens (docs/performance.md). They compile
// their kernels when a plan is made (NVRTC), which takes up to about a second.
#pragma once

#include "backend/cuda/libraries/cudnn/cudnn_backend.h"

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>

namespace kiln::cuda
{

//! One operand as the operation reads it: extents and element strides of [batch, heads, rows, columns].
struct SdpaOperand
{
    std::array<int64_t, 4> dims{};
    std::array<int64_t, 4> strides{};
};

//! The four tensors of one attention: query [B, H, Sq, D], keys [B, H, Sk, D], values [B, H, Sk, D], output
//! [B, H, Sq, D].
struct SdpaOperands
{
    SdpaOperand query;
    SdpaOperand keys;
    SdpaOperand values;
    SdpaOperand output;
};

//! Where one run's tensors are, in device memory.
struct SdpaData
{
    void const* query{nullptr};
    void const* keys{nullptr};
    void const* values{nullptr};
    void* output{nullptr};
    void* workspace{nullptr};

    bool operator==(SdpaData const& other) const = default;
};

//! The execution plan of cuDNN's first-ranked engine for one attention at one shape.
class AttentionGraph
{
public:
    //! The plan for `operands` (FP16) with `scale`, or nullopt where cuDNN describes no engine that runs it with at
    //! most `workspaceLimit` bytes of workspace (another GPU, another cuDNN, a shape its kernels do not take). Throws
    //! std::runtime_error when cuDNN fails otherwise.
    static std::optional<AttentionGraph> make(
        cudnnHandle_t handle, SdpaOperands const& operands, float scale, int64_t workspaceLimit);

    //! Queues the attention on `handle`'s stream. Throws std::runtime_error when cuDNN fails.
    void execute(cudnnHandle_t handle, SdpaData const& data);

private:
    AttentionGraph(BackendDescriptor plan, std::deque<BackendDescriptor> parts, float scale);

    std::deque<BackendDescriptor> mParts; //!< the tensors, the operation and the graph the plan was made from
    BackendDescriptor mPlan;
    //! The scale, which a variant pack points to in host memory: on the heap, so that the pointer outlives moves.
    std::unique_ptr<float> mScale;
    //! The variant pack of the last run's addresses: finalizing one costs host time, and a context's activations
    //! keep their addresses from run to run.
    std::optional<BackendDescriptor> mPack;
    SdpaData mPackData;
};

} // namespace kiln::cuda
