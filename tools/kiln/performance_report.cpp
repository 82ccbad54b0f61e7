#include "performance_report.h"

#include "cli_logger.h"
#include "statistics.h"

#include <functional>
#include <sstream>

namespace kiln::cli
{
namespace
{

std::string format(double value)
{
    std::ostringstream s;
    s << value;
    return s.str();
}

std::string metricLine(std::vector<InferenceTrace> const& traces, std::function<double(InferenceTrace const&)> metric,
    std::vector<float> const& percentiles, Statistics* out = nullptr)
{
    std::vector<double> values;
    values.reserve(traces.size());
    for (InferenceTrace const& trace : traces)
    {
        values.push_back(metric(trace));
    }
    Statistics const s = summarize(std::move(values), percentiles);
    std::string line = "min = " + format(s.min) + " ms, max = " + format(s.max) + " ms, mean = " + format(s.mean)
        + " ms, median = " + format(s.median) + " ms";
    for (size_t i = 0; i < percentiles.size(); ++i)
    {
        line += ", percentile(" + format(percentiles[i]) + "%) = " + format(s.percentiles[i]) + " ms";
    }
    if (out != nullptr)
    {
        *out = s;
    }
    return line;
}

void printTraceAverages(std::vector<InferenceTrace> const& traces, int32_t runs, bool gpu)
{
    // One line per --avgRuns inferences: thousands of lines on a fast model, so verbose only.
    logVerbose("=== Trace details ===");
    logVerbose("Trace averages of " + std::to_string(runs) + " runs:");
    for (size_t first = 0; first + static_cast<size_t>(runs) <= traces.size(); first += static_cast<size_t>(runs))
    {
        double compute = 0;
        double latency = 0;
        double enqueue = 0;
        for (size_t i = first; i < first + static_cast<size_t>(runs); ++i)
        {
            compute += traces[i].computeMs();
            latency += traces[i].latencyMs();
            enqueue += traces[i].enqueueMs();
        }
        logVerbose("Average on " + std::to_string(runs) + " runs - " + (gpu ? "GPU" : "Compute")
            + " latency: " + format(compute / runs) + " ms - Host latency: " + format(latency / runs) + " ms (enqueue "
            + format(enqueue / runs) + " ms)");
    }
}

void printExplanations(bool gpu)
{
    std::string const compute = gpu ? "GPU Compute Time" : "Compute Time";
    logVerbose("=== Explanations of the performance metrics ===");
    logVerbose("Total Host Walltime: from the start of the first measured query to the end of the last one.");
    logVerbose(compute + ": the time the " + (gpu ? "GPU" : "CPU backend") + " spends running one query's layers.");
    logVerbose("Total " + compute + ": the sum of " + compute
        + " over all queries; much less than Total Host "
          "Walltime means the "
        + (gpu ? "GPU" : "CPU") + " waits for host-side work or transfers.");
    logVerbose("Throughput: queries divided by Total Host Walltime.");
    logVerbose("Enqueue Time: the host time to enqueue one query"
        + std::string(
            gpu ? "." : "; on the CPU backend enqueueV3 runs the query before it returns, so it equals Compute Time."));
    logVerbose("H2D Latency: host-to-device copies of one query's inputs (none on the CPU backend).");
    logVerbose("D2H Latency: device-to-host copies of one query's outputs (none on the CPU backend).");
    logVerbose("Latency: H2D Latency + " + compute + " + D2H Latency, the latency of one query on its own.");
}

} // namespace

void printPerformanceReport(TimingResult const& result, Options const& options, Backend backend)
{
    bool const gpu = backend == Backend::kCUDA;
    std::vector<InferenceTrace> const& traces = result.traces;
    logInfo("Warmup completed " + std::to_string(result.warmupQueries) + " queries over " + format(options.warmUpMs)
        + " ms");
    logInfo("Timing trace has " + std::to_string(traces.size()) + " queries over " + format(result.walltimeMs / 1000)
        + " s");
    printTraceAverages(traces, options.avgRuns, gpu);

    auto const& p = options.percentiles;
    Statistics enqueue, h2d, compute, d2h;
    std::string const computeName = gpu ? "GPU Compute Time" : "Compute Time";
    double const throughput = result.walltimeMs > 0 ? static_cast<double>(traces.size()) / result.walltimeMs * 1000 : 0;
    logInfo("");
    logInfo("=== Performance summary ===");
    logInfo("Throughput: " + format(throughput) + " qps");
    logInfo("Latency: " + metricLine(traces, &InferenceTrace::latencyMs, p));
    logInfo("Enqueue Time: " + metricLine(traces, &InferenceTrace::enqueueMs, p, &enqueue));
    logInfo("H2D Latency: " + metricLine(traces, &InferenceTrace::h2dMs, p, &h2d));
    logInfo(computeName + ": " + metricLine(traces, &InferenceTrace::computeMs, p, &compute));
    logInfo("D2H Latency: " + metricLine(traces, &InferenceTrace::d2hMs, p, &d2h));
    logInfo("Total Host Walltime: " + format(result.walltimeMs / 1000) + " s");
    logInfo("Total " + computeName + ": " + format(compute.mean * static_cast<double>(traces.size()) / 1000) + " s");

    if (gpu)
    {
        // trtexec's warnings about what bounds the throughput; on the CPU backend enqueue is the
        // compute and there are no transfers, so they would always or never fire.
        if (enqueue.median > 0.8 * compute.median)
        {
            logWarning("* Throughput may be bound by Enqueue Time rather than GPU Compute and the GPU may be "
                       "under-utilized.");
            logWarning("  If not already in use, --useCudaGraph (utilize CUDA graphs where possible) may increase "
                       "the throughput.");
        }
        if (h2d.median >= compute.median)
        {
            logWarning("* Throughput may be bound by host-to-device transfers for the inputs rather than GPU Compute "
                       "and the GPU may be under-utilized.");
            logWarning("  Add --noDataTransfers flag to disable data transfers.");
        }
        if (d2h.median >= compute.median)
        {
            logWarning("* Throughput may be bound by device-to-host transfers for the outputs rather than GPU "
                       "Compute and the GPU may be under-utilized.");
            logWarning("  Add --noDataTransfers flag to disable data transfers.");
        }
    }
    else
    {
        logInfo("On the CPU backend enqueueV3 computes before it returns, so Enqueue Time equals Compute Time, and "
                "there are no host-device transfers (H2D and D2H Latency are 0).");
    }
    constexpr double kUnstable = 0.01; // trtexec warns above 1%
    if (compute.coefficientOfVariation > kUnstable)
    {
        logWarning("* " + std::string(gpu ? "GPU compute" : "Compute")
            + " time is unstable, with coefficient of "
              "variance = "
            + format(compute.coefficientOfVariation * 100) + "%.");
        logWarning(gpu ? "  If not already in use, locking GPU clock frequency or adding --useSpinWait may improve "
                         "the stability."
                       : "  Other processes on this machine, or CPU frequency scaling, may be the cause.");
    }
    logInfo("Explanations of the performance metrics are printed in the verbose logs.");
    printExplanations(gpu);
    logInfo("");
}

} // namespace kiln::cli
