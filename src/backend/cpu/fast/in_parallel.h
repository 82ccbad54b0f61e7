// Work items of a fast kernel spread over the calling thread's OpenMP threads, each item on one thread: the kernels
// whose items each run a oneDNN primitive (which then runs on that thread alone) or a loop of their own, once or step
// by step.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>

namespace kiln::cpu::fast
{

//! Calls run(i) for each i below `count` on the calling thread's OpenMP threads; rethrows what a call threw.
template <typename Run>
void inParallel(size_t count, Run&& run)
{
    std::exception_ptr failure;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < count; ++i)
    {
        try
        {
            run(i);
        }
        catch (...)
        {
#pragma omp critical(kiln_fast_path_failure)
            failure = std::current_exception();
        }
    }
    if (failure)
    {
        std::rethrow_exception(failure);
    }
}

//! Calls run(i, k) for each i below `count` and each k below `steps`, each i on one of `count` threads and the steps in
//! order: every call of step k returns before any of step k + 1 starts. One parallel region and one barrier a step,
//! where a region a step would wake and join the threads each time. After a call threw, the step it threw in is the
//! last; rethrows what it threw.
template <typename Run>
void inLockstep(size_t count, int64_t steps, Run&& run)
{
    std::exception_ptr failure;
    // The first step a call threw in. A thread reads it after a step's barrier, by which every call of that step and
    // of the steps before it has returned: all threads leave after the same step.
    std::atomic<int64_t> failedStep{steps};
    auto const wanted = static_cast<int>(count);
#pragma omp parallel num_threads(wanted)
    {
        auto const threads = static_cast<size_t>(omp_get_num_threads());
        for (int64_t k = 0; k < steps; ++k)
        {
            for (auto i = static_cast<size_t>(omp_get_thread_num()); i < count; i += threads)
            {
                try
                {
                    run(i, k);
                }
                catch (...)
                {
#pragma omp critical(kiln_fast_path_failure)
                    {
                        failure = std::current_exception();
                        failedStep = std::min(failedStep.load(), k);
                    }
                }
            }
#pragma omp barrier
            if (failedStep.load() <= k)
            {
                break;
            }
        }
    }
    if (failure)
    {
        std::rethrow_exception(failure);
    }
}

} // namespace kiln::cpu::fast
