#include "backend/cuda/libraries/cudnn/cudnn_backend.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace kiln::cuda
{

void checkBackend(cudnnStatus_t status, char const* what)
{
    if (status == CUDNN_STATUS_SUCCESS)
    {
        return;
    }
    // cuDNN 9 keeps a sentence on why it refused; it is far more useful than the status name alone.
    char reason[512] = {};
    cudnnGetLastErrorString(reason, sizeof(reason));
    std::string message = std::string("convolution: ") + what + ": " + cudnnGetErrorString(status);
    if (reason[0] != '\0')
    {
        message += " (" + std::string(reason) + ")";
    }
    throw std::runtime_error(message);
}

BackendDescriptor::BackendDescriptor(cudnnBackendDescriptorType_t type)
{
    checkBackend(cudnnBackendCreateDescriptor(type, &mDescriptor), "creating a graph descriptor");
}

BackendDescriptor::~BackendDescriptor()
{
    if (mDescriptor != nullptr)
    {
        cudnnBackendDestroyDescriptor(mDescriptor);
    }
}

BackendDescriptor::BackendDescriptor(BackendDescriptor&& other) noexcept
    : mDescriptor(std::exchange(other.mDescriptor, nullptr))
{
}

BackendDescriptor& BackendDescriptor::operator=(BackendDescriptor&& other) noexcept
{
    std::swap(mDescriptor, other.mDescriptor);
    return *this;
}

BackendDescriptor& BackendDescriptor::set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
    int64_t count, void const* values, char const* what)
{
    checkBackend(cudnnBackendSetAttribute(mDescriptor, name, type, count, values), what);
    return *this;
}

BackendDescriptor& BackendDescriptor::set(cudnnBackendAttributeName_t name, int64_t value, char const* what)
{
    return set(name, CUDNN_TYPE_INT64, 1, &value, what);
}

BackendDescriptor& BackendDescriptor::set(
    cudnnBackendAttributeName_t name, std::vector<int64_t> const& values, char const* what)
{
    return set(name, CUDNN_TYPE_INT64, static_cast<int64_t>(values.size()), values.data(), what);
}

BackendDescriptor& BackendDescriptor::set(
    cudnnBackendAttributeName_t name, BackendDescriptor const& other, char const* what)
{
    cudnnBackendDescriptor_t const descriptor = other.get();
    return set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &descriptor, what);
}

BackendDescriptor& BackendDescriptor::set(
    cudnnBackendAttributeName_t name, std::vector<BackendDescriptor const*> const& others, char const* what)
{
    std::vector<cudnnBackendDescriptor_t> descriptors;
    for (BackendDescriptor const* other : others)
    {
        descriptors.push_back(other->get());
    }
    return set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<int64_t>(descriptors.size()), descriptors.data(), what);
}

void BackendDescriptor::finalize(char const* what)
{
    checkBackend(cudnnBackendFinalize(mDescriptor), what);
}

bool BackendDescriptor::tryFinalize()
{
    return cudnnBackendFinalize(mDescriptor) == CUDNN_STATUS_SUCCESS;
}

} // namespace kiln::cuda
