// Builds without CUDA: the CUDA backend's entry points say so.
#include "runtime/device_support.h"

#include <stdexcept>

namespace kiln::runtime
{
namespace
{

[[noreturn]] void noCuda()
{
    throw std::runtime_error("this build of Kiln has no CUDA backend (it was built without CUDA)");
}

} // namespace

std::unique_ptr<Reformatter> makeDeviceReformatter(nvinfer1::IGpuAllocator&)
{
    noCuda();
}

std::unique_ptr<LayerExecutor> makeCudaExecutor(Engine const&, plugin::ContextResources&)
{
    noCuda();
}

} // namespace kiln::runtime
