#include "timing_loop.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace kiln::cli
{
namespace
{

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

//! What one stream's thread records.
struct StreamRun
{
    std::vector<InferenceTrace> warmup;
    std::vector<InferenceTrace> measured;
    std::string error;
};

//! What the streams' threads share: the clock's origin, the measured inferences all streams started, and whether
//! one failed (the others then stop).
struct SharedProgress
{
    Clock::time_point origin;
    std::atomic<int64_t> measuredQueries{0};
    std::atomic<bool> failed{false};
};

//! One stream's loop, run on its own thread where there are several.
class StreamLoop
{
public:
    StreamLoop(ContextBuffers& stream, StreamRun& run, SharedProgress& shared)
        : mStream(stream)
        , mRun(run)
        , mShared(shared)
    {
    }

    void operator()(Options const& options, nvinfer1::IProfiler* profiler)
    {
        mIdle = std::chrono::milliseconds(options.idleTimeMs);
        if (!warmUp(options.warmUpMs))
        {
            mRun.error = "during warm-up: " + mRun.error;
            mShared.failed = true;
            return;
        }
        if (profiler != nullptr)
        {
            mStream.context().setProfiler(profiler);
        }
        if (!measure(options.iterations, options.durationS * 1000.0))
        {
            mShared.failed = true;
        }
    }

private:
    //! Inferences until `warmUpMs` have passed (none for 0), all finished.
    bool warmUp(double warmUpMs)
    {
        while (msSince(mShared.origin) < warmUpMs && !mShared.failed)
        {
            if (!step(mRun.warmup))
            {
                return false;
            }
        }
        return drain(mRun.warmup);
    }

    //! Inferences until the streams together started `iterations` and this stream's own measured span (first
    //! start to last end, so the reported walltime covers it) reaches `durationMs`, all finished.
    bool measure(int64_t iterations, double durationMs)
    {
        auto spanMs = [this] { return mRun.measured.back().d2hEnd - mRun.measured.front().h2dStart; };
        while (!mShared.failed
            && (mShared.measuredQueries.load() < iterations || mRun.measured.empty() || spanMs() < durationMs))
        {
            if (!step(mRun.measured))
            {
                return false;
            }
            ++mShared.measuredQueries;
        }
        return drain(mRun.measured);
    }

    //! Queues one more inference, first waiting for the oldest when depth() are queued: the host prepares the next
    //! inference while the GPU runs the last, as in trtexec's loop. With --idleTime, the host first sleeps that long
    //! after every inference but the stream's first.
    bool step(std::vector<InferenceTrace>& done)
    {
        if (mIdle.count() > 0 && mStarted)
        {
            std::this_thread::sleep_for(mIdle);
        }
        mStarted = true;
        return (mStream.inFlight() < mStream.depth() || finishOldest(done))
            && mStream.start(mShared.origin, mRun.error);
    }

    bool drain(std::vector<InferenceTrace>& done)
    {
        while (mStream.inFlight() > 0)
        {
            if (!finishOldest(done))
            {
                return false;
            }
        }
        return true;
    }

    bool finishOldest(std::vector<InferenceTrace>& done)
    {
        InferenceTrace trace;
        if (!mStream.finish(trace, mRun.error))
        {
            return false;
        }
        done.push_back(trace);
        return true;
    }

    ContextBuffers& mStream;
    StreamRun& mRun;
    SharedProgress& mShared;
    std::chrono::milliseconds mIdle{0}; //!< --idleTime
    bool mStarted{false};               //!< whether this stream has queued an inference
};

//! The streams' measured inferences together, by start time, with the warm-up's count and length and the walltime.
TimingResult combine(std::vector<StreamRun> const& runs)
{
    TimingResult result;
    for (StreamRun const& run : runs)
    {
        result.warmupQueries += static_cast<int64_t>(run.warmup.size());
        result.traces.insert(result.traces.end(), run.measured.begin(), run.measured.end());
        for (InferenceTrace const& trace : run.warmup)
        {
            result.warmupMs = std::max(result.warmupMs, trace.d2hEnd);
        }
    }
    std::sort(result.traces.begin(), result.traces.end(),
        [](InferenceTrace const& a, InferenceTrace const& b) { return a.enqStart < b.enqStart; });
    if (!result.traces.empty())
    {
        double lastEnd = 0;
        for (InferenceTrace const& trace : result.traces)
        {
            lastEnd = std::max(lastEnd, trace.d2hEnd);
        }
        result.walltimeMs = lastEnd - result.traces.front().h2dStart;
    }
    return result;
}

} // namespace

bool runTimingLoop(std::vector<ContextBuffers*> const& streams, Options const& options, nvinfer1::IProfiler* profiler,
    TimingResult& result, std::string& error)
{
    SharedProgress shared;
    shared.origin = Clock::now();
    std::vector<StreamRun> runs(streams.size());
    auto loop = [&](size_t s) { StreamLoop(*streams[s], runs[s], shared)(options, profiler); };
    if (streams.size() == 1)
    {
        loop(0);
    }
    else
    {
        std::vector<std::thread> threads;
        for (size_t s = 0; s < streams.size(); ++s)
        {
            threads.emplace_back(loop, s);
        }
        for (auto& thread : threads)
        {
            thread.join();
        }
    }
    for (StreamRun const& run : runs)
    {
        if (!run.error.empty())
        {
            error = run.error;
            return false;
        }
    }
    result = combine(runs);
    return true;
}

bool runInferences(std::vector<ContextBuffers*> const& streams, int32_t count, std::string& error)
{
    auto const origin = Clock::now();
    for (int32_t i = 0; i < count; ++i)
    {
        for (ContextBuffers* stream : streams)
        {
            InferenceTrace ignored;
            if (!stream->infer(origin, ignored, error))
            {
                return false;
            }
        }
    }
    return true;
}

} // namespace kiln::cli
