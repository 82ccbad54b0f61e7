// How many threads a CPU context's next run takes: the most it may use (its setting), or one, chosen by the times of
// its own runs.
//
// Where other work shares the cores, a thread of a parallel region that is not running holds up the others at the
// region's end, and a network of many short regions (a mobile CNN's: about 0.1 ms each) runs several times slower on
// two threads than on one, which waits for no one (ShuffleNetV2 beside one busy process on two cores: 11 ms on two
// threads, 3.5 ms on one); on an idle machine the two threads win (2.9 ms). No fixed count is right for both, so the
// context runs on the count that has timed faster, and tries the other now and then:
//  - at once where its runs have slowed down by a third against those it chose from (the load changed);
//  - else after an interval of runs that doubles each time the other count loses (8 runs up to 512), so that on an
//    idle machine, where one thread keeps losing, trying it costs next to nothing; but never more than 128 runs apart
//    once those have taken a second. Load that leaves does not slow one thread, so a context that load moved to one
//    thread finds two faster again only at a try: within 128 runs (2 s) for a network of 16 ms on one thread
//    (RegNetY-800MF), where 512 runs would have been 8 s at half its speed. A try of one thread on an idle machine
//    costs that network one run of 16.3 ms where two threads take 8.7 ms (a plain loss, below): 0.7% of 128 runs.
// A count's first run is not timed: it makes the layers' primitives for that count (so a context whose steady state
// allocates nothing allocates once more, at its first try of one thread; choosing itself allocates nothing). A try is
// three timed runs, or one that takes half as long again as the chosen count's runs (a plain loss), and counts are
// compared by the medians of their last runs (a try's against the chosen count's last five), so that one slow run (a
// page fault, a preemption) does not decide in favour of the other count. Kiln's results are the same at every thread
// count (include/kiln/CpuBackend.h), so no output depends on the choice.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace kiln::cpu
{

class ThreadChoice
{
public:
    //! Chooses between `most` threads and one; always `most` where it is 1 or less.
    explicit ThreadChoice(int32_t most);

    //! The threads the next run takes.
    int32_t nextRun() const;
    //! Tells how long the run that nextRun() gave its count to took.
    void ran(double milliseconds);

    //! Runs between tries of the other count: at first, and at most.
    static constexpr int32_t kFirstInterval = 8;
    static constexpr int32_t kLongestInterval = 512;
    //! Runs after which the other count is tried once they have taken kTimedIntervalMilliseconds, however long the
    //! interval has grown.
    static constexpr int32_t kTimedInterval = 128;
    static constexpr double kTimedIntervalMilliseconds = 1000.0;
    //! The runs of each count whose median stands for it, and the timed runs of a try.
    static constexpr size_t kSamples = 5;
    static constexpr size_t kTryRuns = 3;

private:
    //! Index 0: `most` threads; 1: one thread. Fixed arrays: a run allocates nothing (steady-state enqueues don't).
    struct Count
    {
        std::array<double, kSamples> recent{}; //!< the last `timed` timed runs (at most kSamples), oldest first
        size_t timed{0};
        bool ranBefore{false}; //!< false until its first run, which is not timed

        void add(double milliseconds);
    };

    //! The count the coming run takes: the other one during a try.
    size_t running() const
    {
        return mTrying ? 1 - mChosen : mChosen;
    }
    double median(size_t count) const;
    //! After a try: keeps the faster count.
    void decide();

    int32_t mMost;
    size_t mChosen{0};   //!< the count the context runs on
    bool mTrying{false}; //!< the next run tries the other count
    int32_t mInterval{kFirstInterval};
    int32_t mSinceTry{0};              //!< runs of the chosen count since the last try
    double mMillisecondsSinceTry{0.0}; //!< their time
    double mChosenAtDecision{0};       //!< the chosen count's median when it was last chosen or kept
    std::array<Count, 2> mCounts;
};

} // namespace kiln::cpu
