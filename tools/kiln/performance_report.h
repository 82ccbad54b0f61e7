// trtexec's performance report: the warm-up and trace prolog, averages of --avgRuns runs,
// "=== Performance summary ===" with its metrics, and the warnings that explain them.
#pragma once

#include "options.h"
#include "timing_loop.h"

namespace kiln::cli
{

//! Prints the report through the logger. backend decides the names ("GPU Compute Time" on CUDA,
//! "Compute Time" on the CPU) and which of trtexec's warnings apply.
void printPerformanceReport(TimingResult const& result, Options const& options, Backend backend);

} // namespace kiln::cli
