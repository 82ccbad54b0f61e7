// What a build pass that chooses algorithms by timing takes (matrix multiplies, attention): the timing cache, the
// timer that measures on this machine's GPU where there is one, and how a cache miss counts.
#pragma once

#include "backend/timing_cache.h"

#include <string>

namespace kiln::cuda
{

template <typename Timer>
struct TimedTuning
{
    backend::TimingCache& cache;
    Timer* timer{nullptr};        //!< nullptr where no GPU is usable: only cached choices are taken
    std::string device;           //!< the CUDA backend's deviceIdentity(): the timer's GPU
    bool errorOnCacheMiss{false}; //!< BuilderFlag::kERROR_ON_TIMING_CACHE_MISS
};

} // namespace kiln::cuda
