// One inference's timeline, as trtexec traces it.
#pragma once

namespace kiln::cli
{

//! One inference's timeline, in ms since the loop started (trtexec's trace fields).
struct InferenceTrace
{
    double enqStart{0};
    double enqEnd{0};
    double h2dStart{0};
    double h2dEnd{0};
    double computeStart{0};
    double computeEnd{0};
    double d2hStart{0};
    double d2hEnd{0};

    double enqueueMs() const
    {
        return enqEnd - enqStart;
    }
    double h2dMs() const
    {
        return h2dEnd - h2dStart;
    }
    double computeMs() const
    {
        return computeEnd - computeStart;
    }
    double d2hMs() const
    {
        return d2hEnd - d2hStart;
    }
    //! H2D + compute + D2H: the latency of one query on its own.
    double latencyMs() const
    {
        return h2dMs() + computeMs() + d2hMs();
    }
};

} // namespace kiln::cli
