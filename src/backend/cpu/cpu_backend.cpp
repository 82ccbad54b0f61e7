#include "backend/cpu/cpu_backend.h"

#include "backend/cpu/cpu_executor.h"

namespace kiln::cpu
{
namespace
{

class CpuBackend final : public backend::Implementation
{
public:
    bool usable(std::string& /*why*/) const override
    {
        return true;
    }
    //! The reference has a kernel for every built-in kind (layer_kernels.h).
    std::string unsupportedReason(network::LayerParams const& /*params*/) const override
    {
        return {};
    }
    //! None yet: the reference runs every layer as the network describes it, which is what it is a reference for.
    bool optimize(plan::PlanModel& /*model*/, backend::PassOptions const& /*options*/,
        std::string& /*error*/) const override
    {
        return true;
    }
    std::unique_ptr<backend::Executor> makeExecutor(
        backend::LoadedPlan const& plan, plugin::ContextResources& resources) const override
    {
        return std::make_unique<CpuExecutor>(plan, resources);
    }
};

} // namespace

backend::Implementation const& cpuBackend()
{
    static CpuBackend const backend;
    return backend;
}

} // namespace kiln::cpu
