// How long the CPU backend's idle OpenMP threads spin before they sleep, set before libgomp starts.
//
// oneDNN (as Debian builds it) and the CPU backend's own parallel loops run on libgomp's threads. By default a
// libgomp thread that waits (at the barrier ending a parallel region, or for the next region) spins 300,000 times
// before it sleeps: 3 ms by libgomp's estimate, 10 ms or more where a pause instruction takes 100 cycles or more. On
// an idle machine that costs nothing; on cores that other work shares, the spinning threads take the time that the
// thread they wait for needs, at every one of a network's hundreds of barriers, and a run slows down tenfold or more
// (docs/performance.md). 3,000 spins (about 0.1 ms here) still bridge the gap between one layer's parallel region
// and the next within a run, and let the threads sleep soon after other work needs the cores: measured on ResNet-18,
// MobileNetV2 and EfficientNet-B0, within 8% of the default on an idle machine, where sleeping at once
// (OMP_WAIT_POLICY=passive) costs 40% to 150%, and 10 times faster than the default on cores three jobs share.
//
// libgomp reads its settings from the environment once, when the program is loaded, before main() and before any
// library's initialisation could set them. Only the executable's .preinit_array runs earlier, and the C library's
// own initialisation, which follows it, restores the environment the program started with. So the command starts
// itself again with the setting added to its environment, before anything else has run; a user's own
// OMP_WAIT_POLICY or GOMP_SPINCOUNT wins, and where the restart fails the command goes on with libgomp's defaults.
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>

namespace
{

//! libgomp's spin iterations before a waiting thread sleeps (python/kiln/__init__.py sets the same).
constexpr char const* kSpinCount = "GOMP_SPINCOUNT=3000";

bool setsOpenMpWaiting(char const* variable)
{
    return std::strncmp(variable, "OMP_WAIT_POLICY=", 16) == 0 || std::strncmp(variable, "GOMP_SPINCOUNT=", 15) == 0;
}

void restartWithShortSpinning(int /*argc*/, char** argv, char** envp)
{
    std::vector<char*> environment;
    for (char** variable = envp; *variable != nullptr; ++variable)
    {
        if (setsOpenMpWaiting(*variable))
        {
            return;
        }
        environment.push_back(*variable);
    }
    environment.push_back(const_cast<char*>(kSpinCount));
    environment.push_back(nullptr);
    execve("/proc/self/exe", argv, environment.data());
}

[[gnu::used, gnu::section(".preinit_array")]] void (*const kRestartWithShortSpinning)(int, char**, char**)
    = restartWithShortSpinning;

} // namespace
