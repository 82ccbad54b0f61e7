// The builder's stopwatch for work queued on the default stream: a pair of CUDA events around runs queued back to
// back, so that what is measured is the GPU's time, not the host's.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>

namespace kiln::cuda
{

class EventStopwatch
{
public:
    //! Throws std::runtime_error when the events cannot be made.
    EventStopwatch();
    ~EventStopwatch();
    EventStopwatch(EventStopwatch const&) = delete;
    EventStopwatch& operator=(EventStopwatch const&) = delete;

    //! The mean time of `runs` runs of `run`, after one untimed run that loads its kernels (and makes whatever a
    //! library makes at a first run). Throws std::runtime_error naming `what` when CUDA fails.
    float meanMilliseconds(int runs, std::function<void()> const& run, char const* what);

private:
    cudaEvent_t mStart{nullptr};
    cudaEvent_t mStop{nullptr};
};

} // namespace kiln::cuda
