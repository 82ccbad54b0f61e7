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
        // Warm-up: inferences until --warmUp ms have passed (none for --warmUp=0).
        while (msSince(origin) < options.warmUpMs && !failed)
        {
            InferenceTrace trace;
            if (!stream.infer(origin, trace, run.error))
            {
                run.error = "during warm-up: " + run.error;
                failed = true;
                return;
            }
            run.warmup.push_back(trace);
        }
        if (profiler != nullptr)
        {
            stream.context().setProfiler(profiler);
        }
        // Measured: until the streams together ran --iterations inferences and each stream's own measured
        // span (first start to last end, so the reported walltime covers it) reaches --duration.
        double const durationMs = options.durationS * 1000.0;
        auto spanMs = [&run] { return run.measured.back().d2hEnd - run.measured.front().h2dStart; };
        while (!failed && (measuredQueries.load() < options.iterations || run.measured.empty() || spanMs() < durationMs))
        {
            InferenceTrace trace;
            if (!stream.infer(origin, trace, run.error))
            {
                failed = true;
                return;
            }
            run.measured.push_back(trace);
            ++measuredQueries;
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
