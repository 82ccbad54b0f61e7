#include "runtime/layer_executor.h"

#include "runtime/cpu_executor.h"

#include <stdexcept>

namespace kiln::runtime
{

std::unique_ptr<LayerExecutor> makeLayerExecutor(Engine const& engine)
{
    if (engine.model().backend != Backend::kCPU)
    {
        throw std::runtime_error(std::string("the plan is for the ") + backendName(engine.model().backend)
            + " backend, which this build of Kiln cannot run");
    }
    return std::make_unique<CpuExecutor>(engine);
}

} // namespace kiln::runtime
