#include "machine_facts.h"

#include <fstream>
#include <thread>

// bench/CMakeLists.txt passes the configuration; a build outside CMake still compiles.
#ifndef KILN_BENCH_BUILD_TYPE
#define KILN_BENCH_BUILD_TYPE ""
#endif

namespace kiln_bench
{
namespace
{

//! The first "model name" line of /proc/cpuinfo (Linux on x86 and most ARM servers have one).
std::string readCpuModel()
{
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line))
    {
        if (line.rfind("model name", 0) == 0)
        {
            size_t const colon = line.find(':');
            if (colon != std::string::npos && colon + 2 <= line.size())
            {
                return line.substr(colon + 2);
            }
        }
    }
    return "unknown";
}

std::string readLoadAverage()
{
    std::ifstream loadavg("/proc/loadavg");
    std::string one;
    std::string five;
    std::string fifteen;
    if (!(loadavg >> one >> five >> fifteen))
    {
        return {};
    }
    return one + " " + five + " " + fifteen;
}

} // namespace

MachineFacts collectMachineFacts()
{
    MachineFacts facts;
    facts.logicalCores = std::thread::hardware_concurrency();
    facts.cpuModel = readCpuModel();
    facts.loadAverage = readLoadAverage();
    facts.buildType = KILN_BENCH_BUILD_TYPE[0] != '\0' ? KILN_BENCH_BUILD_TYPE : "(none set)";
#if defined(__clang__)
    facts.compiler = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
    facts.compiler = std::string("gcc ") + __VERSION__;
#else
    facts.compiler = "unknown";
#endif
    return facts;
}

} // namespace kiln_bench
