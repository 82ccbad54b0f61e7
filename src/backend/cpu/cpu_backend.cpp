#include "backend/cpu/cpu_backend.h"

#include "backend/cpu/cpu_executor.h"
#include "backend/cpu/fast/fast_path.h"
#include "backend/cpu/host_plugin_timer.h"
#include "backend/cpu/passes/pass_list.h"
#include "network/fused/pointwise.h"
#include "network/fused/quantized_convolution.h"

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
    std::unique_ptr<backend::PluginTimer> makePluginTimer(std::string& /*why*/) const override
    {
        return makeHostPluginTimer();
    }
    //! The reference has a kernel for every built-in kind (layer_kernels.h).
    std::string unsupportedReason(network::LayerParams const& /*params*/) const override
    {
        return {};
    }
    //! The passes of passes/pass_list.h, for the fast path. A plan for the reference kernels keeps every layer as the
    //! network describes it, which is what it is a reference for.
    bool optimize(plan::PlanModel& model, backend::PassOptions const& options, std::string& error) const override
    {
        if (options.cpuKernels == CpuKernels::kREFERENCE || !fast::Session::available())
        {
            return true;
        }
        return backend::applyPasses(cpuPasses(), model, options, error);
    }
    std::vector<char const*> passNames() const override
    {
        return backend::passNames(cpuPasses());
    }
    //! The fast path's convolutions, quantized or not, add their residual through oneDNN's sum post-op, which reads
    //! it from the destination: written over, the residual is not copied there first. (Where a marked layer runs on
    //! the reference kernels, they set such a residual aside first: layer_runner.cpp.)
    bool writesOverResidual(plan::PlanModel const& model, size_t l) const override
    {
        plan::LayerRecord const& layer = model.layers[l];
        return fast::isMarked(layer)
            && (layer.type == nvinfer1::LayerType::kCONVOLUTION
                || layer.type == network::kQuantizedConvolutionLayerType);
    }
    //! A plan for the reference kernels runs every layer as the network describes it, reshapes and slices too.
    bool makesViews(backend::PassOptions const& options) const override
    {
        return options.cpuKernels == CpuKernels::kFAST;
    }
    //! Host memory: a layer reads a constant's weights where the plan holds them.
    bool bindsConstants() const override
    {
        return true;
    }
    //! The fast path's kernels take FP32 tensors, row-major or channels-last where their kind does, and the
    //! parameters fast::runsLayer accepts; a plan that marks another layer for them was not made by this backend's
    //! passes.
    std::string refusedLayer(plan::PlanModel const& model, plan::LayerRecord const& layer) const override
    {
        if (fast::isMarked(layer) && fast::Session::available() && !fast::runsLayer(model, layer))
        {
            return "layer \"" + layer.name
                + "\" is marked for the CPU backend's oneDNN kernels, which do not run it as "
                  "recorded (they take FP32 tensors, row-major or channels-last where their kind does, and the "
                  "parameters they support)";
        }
        return {};
    }
    std::string tacticName(plan::LayerRecord const& layer) const override
    {
        // A Kiln without oneDNN runs the layers a plan marks for it on the reference kernels.
        if (!fast::isMarked(layer) || !fast::Session::available() || fast::leavesToReference(layer))
        {
            return "reference";
        }
        return layer.type == network::kPointwiseLayerType ? "fused point-wise chain" : "oneDNN";
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
