// Work items of a fast kernel spread over the calling thread's OpenMP threads, each item on one thread: the kernels
// whose items each run a oneDNN primitive (which then runs on that thread alone) or a loop of their own.
#pragma once

#include <cstddef>
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

} // namespace kiln::cpu::fast
