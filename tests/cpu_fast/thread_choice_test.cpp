// The CPU context's choice of thread count (backend/cpu/thread_choice.h), fed run times as a quiet machine and one
// with a busy process beside gave them for ShuffleNetV2 on two cores (2.9 ms on two threads, 3.5 ms on one quiet;
// 11 ms and 3.5 ms loaded), and RegNetY-800MF's quiet ones, with the load arriving and leaving: which count it runs
// on, and how many runs it spends on the other.
#include "backend/cpu/thread_choice.h"

#include <gtest/gtest.h>

#include <functional>

namespace
{

using kiln::cpu::ThreadChoice;

//! Milliseconds a run takes on `threads` threads.
using Machine = std::function<double(int32_t threads)>;

double quiet(int32_t threads)
{
    return threads == 2 ? 2.9 : 3.5;
}

double loaded(int32_t threads)
{
    return threads == 2 ? 11.0 : 3.5;
}

//! Runs `runs` runs on `machine`; returns how many took one thread.
int32_t runOn(ThreadChoice& choice, Machine const& machine, int32_t runs)
{
    int32_t oneThread = 0;
    for (int32_t run = 0; run < runs; ++run)
    {
        int32_t const threads = choice.nextRun();
        oneThread += threads == 1 ? 1 : 0;
        choice.ran(machine(threads));
    }
    return oneThread;
}

TEST(ThreadChoice, QuietMachineKeepsTheThreadsAndTriesOneRarely)
{
    ThreadChoice choice(2);
    // Tries after 8, 16, 32, ... runs, each four runs (the first untimed) then three: about 25 runs of 1000.
    EXPECT_LE(runOn(choice, quiet, 1000), 30);
    EXPECT_EQ(choice.nextRun(), 2);
    // Later the tries are 512 runs apart.
    EXPECT_LE(runOn(choice, quiet, 1024), 6);
}

TEST(ThreadChoice, AFarSlowerCountIsTriedOneRunAtATime)
{
    // RegNetY-800MF quiet: 7.1 ms on two threads, 12.5 ms on one. Each try but the first (whose first run is not
    // timed) is one run: tries after 8, 16, 32 ... 512 runs of two threads, seven runs of one in 1000.
    ThreadChoice choice(2);
    EXPECT_EQ(runOn(
                  choice, [](int32_t threads) { return threads == 2 ? 7.1 : 12.5; }, 1000),
        7);
}

TEST(ThreadChoice, BusyNeighbourMovesItToOneThread)
{
    ThreadChoice choice(2);
    // Eight runs on two threads, then the first try of one (four runs, the first untimed) wins, and it stays.
    EXPECT_EQ(runOn(choice, loaded, 14), 6);
    EXPECT_EQ(choice.nextRun(), 1);
    // Two threads keep losing: their tries grow rare.
    EXPECT_GE(runOn(choice, loaded, 1000), 1000 - 25);
}

TEST(ThreadChoice, FollowsTheLoadAsItComesAndGoes)
{
    ThreadChoice choice(2);
    runOn(choice, quiet, 2000); // tries 512 runs apart by now
    // The load arrives: the runs slow by more than a third, so it tries one thread within a few runs.
    int32_t const loadedRuns = 30;
    EXPECT_GE(runOn(choice, loaded, loadedRuns), loadedRuns - 12);
    EXPECT_EQ(choice.nextRun(), 1);
    runOn(choice, loaded, 500);
    // The load leaves: one thread does not slow down, so it is the next try of two threads, at most 512 runs on, that
    // finds them faster again.
    int32_t const back = runOn(choice, quiet, 600);
    EXPECT_LT(back, 600);
    EXPECT_EQ(choice.nextRun(), 2);
}

TEST(ThreadChoice, OneSlowRunDecidesNothing)
{
    ThreadChoice choice(2);
    int32_t run = 0;
    // Quiet, but every seventh run of two threads is preempted and takes 30 ms.
    Machine const noisy = [&run](int32_t threads) { return threads == 2 && ++run % 7 == 0 ? 30.0 : quiet(threads); };
    runOn(choice, noisy, 3000);
    EXPECT_EQ(choice.nextRun(), 2);
}

TEST(ThreadChoice, OneThreadAtMostIsAlwaysOne)
{
    ThreadChoice choice(1);
    EXPECT_EQ(runOn(choice, loaded, 100), 100);
    ThreadChoice none(0);
    EXPECT_EQ(none.nextRun(), 1);
}

} // namespace
