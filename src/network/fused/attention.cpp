#include "network/fused/attention.h"

namespace kiln::network
{

bool AttentionParams::infer(InferenceContext& ctx) const
{
    return ctx.fail("an attention layer is made by the CUDA backend's fusion, never added to a network");
}

} // namespace kiln::network
