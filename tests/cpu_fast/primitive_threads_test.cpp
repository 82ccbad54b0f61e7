// How many threads the fast path gives a oneDNN primitive over few elements (a reorder, an eltwise, a pooling): one up
// to kParallelElements, as Kiln's own loops, since waking the others costs more than they save and, where another
// process shares the cores, each parallel region waits for a thread kept off its core. oneDNN takes the count from
// the calling thread's OpenMP setting, which primitiveThreads sets.
#include "backend/cpu/fast/kernels.h"

#include <gtest/gtest.h>
#include <omp.h>

namespace kiln::cpu::fast
{
namespace
{

TEST(FastPrimitiveThreads, FewElementsTakeOneThreadAndOpenMpIsSetSo)
{
    State state;
    state.threads = 3;
    EXPECT_EQ(primitiveThreads(state, kParallelElements), 1);
    EXPECT_EQ(omp_get_max_threads(), 1);
    EXPECT_EQ(primitiveThreads(state, kParallelElements + 1), 3);
    EXPECT_EQ(omp_get_max_threads(), 3);
    EXPECT_EQ(primitiveThreads(state, 1), 1);
    EXPECT_EQ(omp_get_max_threads(), 1);
}

} // namespace
} // namespace kiln::cpu::fast
