#include "backend/cpu/thread_choice.h"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace kiln::cpu
{

ThreadChoice::ThreadChoice(int32_t most)
    : mMost(std::max(most, 1))
{
}

int32_t ThreadChoice::nextRun() const
{
    return running() == 0 ? mMost : 1;
}

void ThreadChoice::Count::add(double milliseconds)
{
    if (timed == kSamples)
    {
        std::copy(recent.begin() + 1, recent.end(), recent.begin());
        --timed;
    }
    recent[timed++] = milliseconds;
}

double ThreadChoice::median(size_t count) const
{
    Count const& c = mCounts[count];
    if (c.timed == 0)
    {
        return 0.0;
    }
    // An insertion sort of the few timed runs, in place of std::sort over part of the array, which GCC's bounds
    // warning misreads.
    std::array<double, kSamples> sorted = c.recent;
    for (size_t i = 1; i < c.timed; ++i)
    {
        for (size_t j = i; j > 0 && sorted[j - 1] > sorted[j]; --j)
        {
            std::swap(sorted[j - 1], sorted[j]);
        }
    }
    return sorted[c.timed / 2];
}

void ThreadChoice::ran(double milliseconds)
{
    if (mMost == 1)
    {
        return;
    }
    Count& ran = mCounts[running()];
    if (ran.ranBefore) // the first run of a count makes its primitives
    {
        ran.add(milliseconds);
    }
    ran.ranBefore = true;
    if (mTrying)
    {
        // A try ends after kTryRuns timed runs, or after one where it is plainly slower (half as long again).
        bool const lost = ran.timed > 0 && milliseconds > median(mChosen) * 1.5;
        if (ran.timed >= kTryRuns || lost)
        {
            mTrying = false;
            decide();
        }
        return;
    }
    ++mSinceTry;
    mMillisecondsSinceTry += milliseconds;
    bool const slowed = ran.timed == kSamples && mChosenAtDecision > 0.0
        && median(mChosen) > mChosenAtDecision * 4.0 / 3.0;
    if (slowed)
    {
        mInterval = kFirstInterval;
    }
    bool const due = mSinceTry >= mInterval
        || (mSinceTry >= kTimedInterval && mMillisecondsSinceTry >= kTimedIntervalMilliseconds);
    if (ran.timed > 0 && (slowed || due))
    {
        mTrying = true;
        mCounts[1 - mChosen].timed = 0; // times from before may be of another load
    }
}

void ThreadChoice::decide()
{
    mSinceTry = 0;
    mMillisecondsSinceTry = 0.0;
    size_t const other = 1 - mChosen;
    if (median(other) < median(mChosen))
    {
        mChosen = other;
        mInterval = kFirstInterval;
    }
    else
    {
        mInterval = std::min(mInterval * 2, kLongestInterval);
    }
    mChosenAtDecision = median(mChosen);
}

} // namespace kiln::cpu
