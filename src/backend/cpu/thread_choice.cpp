#include "backend/cpu/thread_choice.h"

#include <algorithm>

namespace kiln::cpu
{

ThreadChoice::ThreadChoice(int32_t most)
    : mMost(std::max(most, 1))
{
}

int32_t ThreadChoice::nextRun() const
{
    size_t const count = mTrying ? 1 - mChosen : mChosen;
    return count == 0 ? mMost : 1;
}

double ThreadChoice::median(size_t count) const
{
    std::vector<double> sorted = mCounts[count].recent;
    std::sort(sorted.begin(), sorted.end());
    return sorted.empty() ? 0.0 : sorted[sorted.size() / 2];
}

void ThreadChoice::ran(double milliseconds)
{
    if (mMost == 1)
    {
        return;
    }
    size_t const count = mTrying ? 1 - mChosen : mChosen;
    Count& ran = mCounts[count];
    if (ran.runs++ > 0) // the first run of a count makes its primitives
    {
        ran.recent.push_back(milliseconds);
        if (ran.recent.size() > kSamples)
        {
            ran.recent.erase(ran.recent.begin());
        }
    }
    if (mTrying)
    {
        // A try ends after kTryRuns timed runs, or after one where it is plainly slower (half as slow again).
        bool const lost = !ran.recent.empty() && milliseconds > median(mChosen) * 1.5;
        if (ran.recent.size() >= kTryRuns || lost)
        {
            mTrying = false;
            decide();
        }
        return;
    }
    ++mSinceTry;
    bool const slowed = ran.recent.size() == kSamples && mChosenAtDecision > 0.0
        && median(mChosen) > mChosenAtDecision * 4.0 / 3.0;
    if (slowed)
    {
        mInterval = kFirstInterval;
    }
    if (!ran.recent.empty() && (slowed || mSinceTry >= mInterval))
    {
        mTrying = true;
        mCounts[1 - mChosen].recent.clear(); // times from before may be of another load
    }
}

void ThreadChoice::decide()
{
    mSinceTry = 0;
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
