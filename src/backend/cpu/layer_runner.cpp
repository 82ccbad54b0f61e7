#include "backend/cpu/layer_runner.h"

#include "backend/cpu/kernels/epilogue.h"
#include "backend/cpu/layer_kernels.h"
#include "backend/shared/kernel_checks.h"
#include "plan/plan_graph.h"

#include <cstddef>
#include <cstring>
#include <exception>

namespace kiln::cpu
{
namespace
{

//! Where the plan gave a layer's output the bytes of its residual (builder/residual_buffers.h), which the kernel
//! overwrites before the epilogue adds the residual: the residual's values copied into `keep`, and the inputs read
//! from there. Else the inputs as they are.
std::vector<ConstTensorView> const& residualSetAside(plan::LayerRecord const& record,
    std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs,
    std::vector<ConstTensorView>& copy, std::vector<std::byte>& keep)
{
    if (!plan::addsResidualInput(record) || inputs.empty() || outputs.empty() || inputs.back().data != outputs[0].data
        || inputs.back().data == nullptr)
    {
        return inputs;
    }
    ConstTensorView const& residual = inputs.back();
    keep.resize(
        static_cast<size_t>(residual.count()) * backend::kernel_checks::byteSizeOf(residual.type, "a fused residual"));
    std::memcpy(keep.data(), residual.data, keep.size());
    copy = inputs;
    copy.back().data = keep.data();
    return copy;
}

} // namespace

bool runLayer(plan::LayerRecord const& record, std::vector<ConstTensorView> const& inputs,
    std::vector<TensorView> const& outputs, std::string& error)
{
    try
    {
        std::vector<ConstTensorView> copy;
        std::vector<std::byte> keep;
        std::vector<ConstTensorView> const& read = residualSetAside(record, inputs, outputs, copy, keep);
        network::visitLayerParams(*record.params, [&](auto const& kind) { run(kind, read, outputs); });
        applyEpilogue(record.epilogue, read, outputs.at(0));
        return true;
    }
    catch (std::exception const& e)
    {
        error = e.what();
        return false;
    }
}

} // namespace kiln::cpu
