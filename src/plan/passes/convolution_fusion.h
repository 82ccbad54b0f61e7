// TensorRT's convolution fusions: a convolution followed by the addition of a same-shaped tensor (a ResNet
// block's shortcut) and/or an activation becomes one layer whose epilogue does both, saving a pass over memory for
// each layer it absorbs. The activation may be self-gated, x * f(x) (SiLU, hard-swish: an activation and the product
// of its input by its output). Each backend says which chains its kernels run as one.
#pragma once

#include "network/layers/activation.h"
#include "plan/plan_model.h"

#include <functional>

namespace kiln::plan
{

struct ConvolutionFusionRules
{
    //! Whether the backend runs this convolution (unfused, FP32 or not) with an epilogue at all.
    std::function<bool(PlanModel const&, LayerRecord const&)> fusesInto;
    //! Whether the backend's fused kernel applies this activation.
    std::function<bool(network::ActivationParams const&)> fusesActivation;
    //! Whether a chain must end in an activation to be fused (cuDNN fuses an addition only together with one).
    bool needsActivation{false};
    //! Whether the backend's fused kernel applies this activation self-gated, x * f(x) (Epilogue::selfGated); empty:
    //! none. The network writes it as the activation and a product of its input by its output.
    std::function<bool(network::ActivationParams const&)> fusesSelfGated{};
    //! Whether a residual may have the convolution's extents by other expressions of the same values, where the
    //! profile fixes them (an export's shape arithmetic, ResNeSt's reshapes by Shape(x)), not only by the same
    //! expressions: the CPU's fused kernels read the shapes each run gives. The CUDA backend keeps the same
    //! expressions until its fused kernels have run such residuals on a GPU.
    bool residualsOfEqualExtents{false};
};

//! Rewrites `model`'s layer list in place. Runs after every layer is recorded and before memory planning; the
//! absorbed layers' intermediate tensors are then used by no layer. A chain is fused only where nothing else reads
//! its intermediate tensors and every layer in it computes in the same precision on the same types.
void fuseConvolutionEpilogues(PlanModel& model, ConvolutionFusionRules const& rules);

} // namespace kiln::plan
