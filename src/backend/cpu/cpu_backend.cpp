#include "backend/cpu/cpu_backend.h"

#include "backend/cpu/cpu_executor.h"
#include "backend/cpu/fast/fast_path.h"
#include "backend/cpu/passes/scale_folding.h"
#include "network/layers/pointwise.h"
#include "plan/passes/convolution_fusion.h"
#include "plan/passes/gelu_fusion.h"
#include "plan/passes/matrix_multiply_fusion.h"
#include "plan/passes/pointwise_fusion.h"

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
    //! For the fast path: batch norm folded into convolutions, GELU's ONNX expansion made one activation, the
    //! epilogues of convolutions and matrix multiplies fused, chains of element-wise layers fused, and the layers the
    //! fast path runs marked. A plan for the
    //! reference kernels keeps every layer as the network describes it, which is what it is a reference for.
    bool optimize(plan::PlanModel& model, backend::PassOptions const& options, std::string& /*error*/) const override
    {
        if (options.cpuKernels == CpuKernels::kREFERENCE || !fast::Session::available())
        {
            return true;
        }
        foldScalesIntoConvolutions(model);
        plan::fuseGelu(model);
        // Only where oneDNN runs the convolution or the product: the reference kernels gain nothing from a fused
        // epilogue.
        plan::fuseConvolutionEpilogues(
            model, plan::ConvolutionFusionRules{fast::runsLayer, fast::fusesActivation, false});
        plan::fuseMatrixMultiplyEpilogues(
            model, plan::MatrixMultiplyFusionRules{fast::runsLayer, fast::fusesActivation});
        // Last: what is left of the element-wise layers between the convolutions and products runs in one pass.
        plan::fusePointwiseChains(model, plan::PointwiseFusionRules{fast::joinsPointwiseChain});
        for (plan::LayerRecord& layer : model.layers)
        {
            if (fast::runsLayer(model, layer))
            {
                fast::mark(layer);
            }
        }
        return true;
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
    //! The fast path's kernels take FP32 row-major tensors and the parameters fast::runsLayer accepts; a plan that
    //! marks another layer for them was not made by this backend's passes.
    std::string refusedLayer(plan::PlanModel const& model, plan::LayerRecord const& layer) const override
    {
        if (fast::isMarked(layer) && fast::Session::available() && !fast::runsLayer(model, layer))
        {
            return "layer \"" + layer.name
                + "\" is marked for the CPU backend's oneDNN kernels, which do not run it as "
                  "recorded (they take FP32 row-major tensors and the parameters they support)";
        }
        return {};
    }
    std::string tacticName(plan::LayerRecord const& layer) const override
    {
        // A Kiln without oneDNN runs the layers a plan marks for it on the reference kernels.
        if (!fast::isMarked(layer) || !fast::Session::available())
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
