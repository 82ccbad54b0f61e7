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

} // namespace

bool runTimingLoop(std::vector<ContextBuffers*> const& streams, Options const& options, nvinfer1::IProfiler* profiler,
    TimingResult& result, std::string& error)
{
    Clock::time_point const origin = Clock::now();
    std::atomic<int64_t> measuredQueries{0};
    std::atomic<bool> failed{false};
    std::vector<StreamRun> runs(streams.size());

    auto loop = [&](size_t s) {
        ContextBuffers& stream = *streams[s];
        StreamRun& run = runs[s];
        auto finishOldest = [&](std::vector<InferenceTrace>& done) {
            InferenceTrace trace;
            if (!stream.finish(trace, run.error))
            {
                return false;
            }
            done.push_back(trace);
            return true;
        };
        // Queues one more inference, first waiting for the oldest when stream.depth() are queued: the host
        // prepares the next inference while the GPU runs the last, as in trtexec's loop.
        auto step = [&](std::vector<InferenceTrace>& done) {
            return (stream.inFlight() < stream.depth() || finishOldest(done)) && stream.start(origin, run.error);
        };
        auto drain = [&](std::vector<InferenceTrace>& done) {
            while (stream.inFlight() > 0)
            {
                if (!finishOldest(done))
                {
                    return false;
                }
            }
            return true;
        };
        // Warm-up: inferences until --warmUp ms have passed (none for --warmUp=0).
        bool warmedUp = true;
        while (warmedUp && msSince(origin) < options.warmUpMs && !failed)
        {
            warmedUp = step(run.warmup);
        }
        if (!warmedUp || !drain(run.warmup))
        {
            run.error = "during warm-up: " + run.error;
            failed = true;
            return;
        }
        if (profiler != nullptr)
        {
            stream.context().setProfiler(profiler);
        }
        // Measured: until the streams together started --iterations inferences and each stream's own measured
        // span (first start to last end, so the reported walltime covers it) reaches --duration.
        double const durationMs = options.durationS * 1000.0;
        auto spanMs = [&run] { return run.measured.back().d2hEnd - run.measured.front().h2dStart; };
        while (!failed
            && (measuredQueries.load() < options.iterations || run.measured.empty() || spanMs() < durationMs))
        {
            if (!step(run.measured))
            {
                failed = true;
                return;
            }
            ++measuredQueries;
        }
        if (!drain(run.measured))
        {
            failed = true;
        }
    };

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

    result = TimingResult{};
    for (StreamRun const& run : runs)
    {
        if (!run.error.empty())
        {
            error = run.error;
            return false;
        }
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
