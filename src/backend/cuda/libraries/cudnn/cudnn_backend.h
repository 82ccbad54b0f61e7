// An owning handle on one descriptor of cuDNN's backend (graph) API, which describes work as a
// graph of operations on tensors and runs it through engines that cuDNN's heuristics rank, and
// the steps every graph of Kiln's takes: its tensors, its ranked engines, their execution plans,
// a run's variant pack. Setting an attribute or finalizing throws with cuDNN's own explanation of
// what it refused.
#pragma once

#include <cudnn.h>

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace kiln::cuda
{

class BackendDescriptor
{
public:
    //! A new descriptor of `type`. Throws std::runtime_error when cuDNN cannot make one.
    explicit BackendDescriptor(cudnnBackendDescriptorType_t type);
    ~BackendDescriptor();
    BackendDescriptor(BackendDescriptor&& other) noexcept;
    BackendDescriptor& operator=(BackendDescriptor&& other) noexcept;
    BackendDescriptor(BackendDescriptor const&) = delete;
    BackendDescriptor& operator=(BackendDescriptor const&) = delete;

    cudnnBackendDescriptor_t get() const
    {
        return mDescriptor;
    }

    //! Sets attribute `name` to `count` values of `type` at `values`; throws naming `what` is being described.
    BackendDescriptor& set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t count,
        void const* values, char const* what);
    BackendDescriptor& set(cudnnBackendAttributeName_t name, int64_t value, char const* what);
    BackendDescriptor& set(cudnnBackendAttributeName_t name, std::vector<int64_t> const& values, char const* what);
    //! An attribute that refers to another descriptor.
    BackendDescriptor& set(cudnnBackendAttributeName_t name, BackendDescriptor const& other, char const* what);
    BackendDescriptor& set(
        cudnnBackendAttributeName_t name, std::vector<BackendDescriptor const*> const& others, char const* what);

    //! Finalizes the descriptor; throws std::runtime_error naming `what` and cuDNN's reason if cuDNN refuses it.
    void finalize(char const* what);
    //! The same, for a descriptor cuDNN may refuse in the normal course (an engine unsupported at this shape).
    bool tryFinalize();

private:
    cudnnBackendDescriptor_t mDescriptor{nullptr};
};

//! Throws std::runtime_error naming `what`, with cuDNN's last error message, when `status` is an error.
void checkBackend(cudnnStatus_t status, char const* what);

//! The alignment Kiln's graphs promise cuDNN for every tensor in memory: what its vectorized kernels load by.
constexpr int64_t kGraphTensorAlignment = 16;

//! Whether `data` (null: a tensor the graph does not have) is aligned as kGraphTensorAlignment promises.
inline bool graphAligned(void const* data)
{
    return reinterpret_cast<uintptr_t>(data) % kGraphTensorAlignment == 0;
}

//! A tensor of a graph, named by `id` in a run's variant pack: in memory, or `isVirtual` (an intermediate that
//! stays inside the engine's kernels), or `byValue` (a scalar the variant pack points to in host memory).
BackendDescriptor graphTensor(int64_t id, std::vector<int64_t> const& dims, std::vector<int64_t> const& strides,
    cudnnDataType_t type, bool isVirtual, bool byValue = false);

//! An element-wise operation `mode` of `x` (and `b`, for a binary one) into `y`, computed in FP32, NaN propagated (it
//! stays NaN through a ReLU, as on the CPU reference). Its function descriptor is kept in `parts`.
BackendDescriptor pointwiseOperation(cudnnPointwiseMode_t mode, BackendDescriptor const& x, BackendDescriptor const* b,
    BackendDescriptor const& y, std::deque<BackendDescriptor>& parts);

//! The finalized operation graph of `operations` on `handle`.
BackendDescriptor operationGraph(cudnnHandle_t handle, std::vector<BackendDescriptor> const& operations);

//! The engine configurations `mode`'s heuristics rank for the finalized operation `graph`, best first.
std::vector<BackendDescriptor> rankedEngineConfigs(BackendDescriptor const& graph, cudnnBackendHeurMode_t mode);

//! The engine of configuration `config`, whose notes (CUDNN_ATTR_ENGINE_*_NOTE) say how it computes.
BackendDescriptor engineOf(BackendDescriptor const& config);

//! Whether `engine`'s notes of attribute `name` (of type `type`: CUDNN_TYPE_NUMERICAL_NOTE or
//! CUDNN_TYPE_BEHAVIOR_NOTE) include `note`.
bool engineHasNote(
    BackendDescriptor const& engine, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int32_t note);

//! Whether `engine` computes other than the graph says, by its numerical notes: results that vary between runs,
//! inputs or sums in a narrower type, FFT or Winograd transforms. Kiln's layers run no such engine.
bool approximates(BackendDescriptor const& engine);

//! The execution plan of engine configuration `config` on `handle`, or nullopt where the engine cannot run its
//! graph after all.
std::optional<BackendDescriptor> executionPlan(cudnnHandle_t handle, BackendDescriptor const& config);

//! The bytes of workspace a finalized execution `plan` needs.
int64_t workspaceBytesOf(BackendDescriptor const& plan);

//! A run's variant pack: the tensors named `ids` at `pointers` (device memory, or host memory for by-value
//! scalars), and the workspace.
BackendDescriptor variantPack(std::vector<int64_t> const& ids, std::vector<void*> const& pointers, void* workspace);

} // namespace kiln::cuda
