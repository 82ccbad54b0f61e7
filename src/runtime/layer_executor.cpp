#include "runtime/layer_executor.h"

#include "runtime/cpu_executor.h"
#include "runtime/device_support.h"

namespace kiln::runtime
{

std::unique_ptr<LayerExecutor> makeLayerExecutor(Engine const& engine, plugin::ContextResources& resources)
{
    if (engine.model().backend == Backend::kCUDA)
    {
        return makeCudaExecutor(engine, resources);
    }
    return std::make_unique<CpuExecutor>(engine, resources);
}

} // namespace kiln::runtime
