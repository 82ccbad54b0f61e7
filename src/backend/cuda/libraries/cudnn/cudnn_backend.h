// An owning handle on one descriptor of cuDNN's backend (graph) API, which describes work as a
// graph of operations on tensors and runs it through engines that cuDNN's heuristics rank.
// Setting an attribute or finalizing throws with cuDNN's own explanation of what it refused.
#pragma once

#include <cudnn.h>

#include <cstdint>
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

} // namespace kiln::cuda
