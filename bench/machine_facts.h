// The facts about the machine and the build that a benchmark figure depends on.
#pragma once

#include <string>

namespace kiln_bench
{

struct MachineFacts
{
    unsigned logicalCores{0}; //!< 0 when the standard library cannot tell
    std::string cpuModel;     //!< "unknown" off Linux
    std::string buildType;    //!< CMake's build type the benchmark (and Kiln, in the same tree) was compiled with
    std::string compiler;
    //! /proc/loadavg's 1-, 5- and 15-minute figures (empty off Linux): other work on the machine slows the
    //! benchmark, and this shows whether there was any when it started.
    std::string loadAverage;
};

MachineFacts collectMachineFacts();

} // namespace kiln_bench
