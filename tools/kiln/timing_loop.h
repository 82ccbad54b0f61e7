// The measured inference loop: warm up for --warmUp ms, then run until both --iterations
// inferences and --duration seconds are done, on each of --infStreams contexts at once.
#pragma once

#include "context_buffers.h"
#include "inference_trace.h"
#include "options.h"

#include <string>
#include <vector>

namespace kiln::cli
{

struct TimingResult
{
    int64_t warmupQueries{0};
    double warmupMs{0};
    std::vector<InferenceTrace> traces; //!< measured inferences, by start time
    double walltimeMs{0};               //!< first measured start to last measured end
};

//! Runs the loop on every stream (one thread each when there are several). A profiler, if given, is attached after the
//! warm-up, so it sees the measured inferences only. False with error if an inference fails.
bool runTimingLoop(std::vector<ContextBuffers*> const& streams, Options const& options, nvinfer1::IProfiler* profiler,
    TimingResult& result, std::string& error);

//! Runs every stream `count` times (profiling runs); false with error if one fails.
bool runInferences(std::vector<ContextBuffers*> const& streams, int32_t count, std::string& error);

} // namespace kiln::cli
