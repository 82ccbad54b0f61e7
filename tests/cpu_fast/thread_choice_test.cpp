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
    // Later the tries are a second of runs apart (345 runs of 2.9 ms, fewer than 512): three in 1024 runs.
    EXPECT_LE(runOn(choice, quiet, 1024), 9);
}

TEST(ThreadChoice, AFarSlowerCountIsTriedOneRunAtATime)
{
    // RegNetY-800MF quiet on a Xeon: 7.1 ms on two threads, 12.5 ms on one. Each try but the first (whose first run is
    // not timed) is one run: tries after 8, 16, 32, 64 and 128 runs of two threads, then every 141 (a second of runs):
    // eleven runs of one in 1000.
    ThreadChoice choice(2);
    EXPECT_EQ(runOn(
                  choice, [](int32_t threads) { return threads == 2 ? 7.1 : 12.5; }, 1000),
        11);
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
    // The load leaves: one thread does not slow down, so it is the next try of two threads, at most 286 runs on (a
    // second of runs of 3.5 ms), that finds them faster again.
    int32_t const back = runOn(choice, quiet, 600);
    EXPECT_LE(back, 290);
    EXPECT_EQ(choice.nextRun(), 2);
}

TEST(ThreadChoice, ANetworkOfLongRunsFindsTwoThreadsAgainWithinAFewSeconds)
{
    // RegNetY-800MF on an AMD EPYC's two cores: 8.7 ms on two threads, 16.3 ms on one quiet; beside a busy process,
    // 30 ms on two and the same 16.3 on one.
    Machine const quietRegNet = [](int32_t threads) { return threads == 2 ? 8.7 : 16.3; };
    Machine const loadedRegNet = [](int32_t threads) { return threads == 2 ? 30.0 : 16.3; };
    ThreadChoice choice(2);
    runOn(choice, loadedRegNet, 2000); // two threads lost every try: the interval has grown to its longest
    // On until the next try of two threads has lost too, so that the interval starts when the load leaves.
    while (choice.nextRun() == 1)
    {
        choice.ran(loadedRegNet(1));
    }
    while (choice.nextRun() == 2)
    {
        choice.ran(loadedRegNet(2));
    }
    // The load leaves. One thread does not slow down, so only a try of two threads finds them faster: 128 runs on
    // (2.1 s of runs), where the interval alone would wait 512 (8.3 s).
    int32_t runsBeforeTry = 0;
    while (choice.nextRun() == 1 && runsBeforeTry < 1000)
    {
        choice.ran(quietRegNet(1));
        ++runsBeforeTry;
    }
    EXPECT_EQ(runsBeforeTry, ThreadChoice::kTimedInterval);
    runOn(choice, quietRegNet, static_cast<int32_t>(ThreadChoice::kTryRuns)); // the try, which two threads win
    EXPECT_EQ(choice.nextRun(), 2);
}

TEST(ThreadChoice, TriesOfALongNetworkStayRareWhenQuiet)
{
    // ViT-B/16 on the same cores: 170 ms on two threads, 330 on one. Each try but the first is one run (a plain loss):
    // after 8, 16, 32, 64 and 128 runs of two threads, then every 128 (which take more than a second), where the
    // interval alone would have grown to 256 and 512: eleven runs of one in 1000, about 0.4% of the time more than
    // seven.
    ThreadChoice choice(2);
    int32_t const oneThread = runOn(
        choice, [](int32_t threads) { return threads == 2 ? 170.0 : 330.0; }, 1000);
    EXPECT_EQ(oneThread, 11);
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
