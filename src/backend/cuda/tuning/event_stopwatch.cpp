#include "backend/cuda/tuning/event_stopwatch.h"

#include "backend/cuda/cuda_error.h"

namespace kiln::cuda
{

EventStopwatch::EventStopwatch()
{
    check(cudaEventCreate(&mStart), "creating a timing event");
    cudaError_t const status = cudaEventCreate(&mStop);
    if (status != cudaSuccess)
    {
        cudaEventDestroy(mStart); // the destructor does not run for a constructor that throws
        check(status, "creating a timing event");
    }
}

EventStopwatch::~EventStopwatch()
{
    cudaEventDestroy(mStart);
    cudaEventDestroy(mStop);
}

float EventStopwatch::meanMilliseconds(int runs, std::function<void()> const& run, char const* what)
{
    run();
    check(cudaEventRecord(mStart, nullptr), what);
    for (int i = 0; i < runs; ++i)
    {
        run();
    }
    check(cudaEventRecord(mStop, nullptr), what);
    check(cudaEventSynchronize(mStop), what);
    float milliseconds = 0.0F;
    check(cudaEventElapsedTime(&milliseconds, mStart, mStop), what);
    return milliseconds / static_cast<float>(runs);
}

} // namespace kiln::cuda
