#include "network/fused/recurrent_sequence.h"

namespace kiln::network
{

bool RecurrentSequenceParams::infer(InferenceContext& ctx) const
{
    return ctx.fail("a recurrent sequence is made by a backend's fusion pass, never added to a network");
}

bool RecurrentSequencePairParams::infer(InferenceContext& ctx) const
{
    return ctx.fail("a pair of recurrent sequences is made by a backend's fusion pass, never added to a network");
}

} // namespace kiln::network
