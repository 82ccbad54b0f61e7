// On the GPU machine, preloaded into the kiln runs of kiln-turns.sh (LD_PRELOAD): where a run faults (SIGSEGV, SIGBUS,
// SIGABRT), writes the signal, the faulting address, a backtrace and the process's memory map to the file that
// KILN_FAULT_TRACE names, then lets the signal end the process as it would have. A fault that comes once in tens of
// runs (seen in timing runs, never under cuda-gdb) leaves its trace so; kiln-turns.sh turns the frames into function
// names with addr2line. Not part of Kiln.
#define _GNU_SOURCE
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tracePath[512];

// Only async-signal-safe calls from here on (backtrace_symbols_fd writes without allocating; backtrace itself was
// called once at start, so that its library is loaded before any fault).
static void writeAll(int fd, char const* bytes, size_t count)
{
    while (count > 0)
    {
        ssize_t const written = write(fd, bytes, count);
        if (written <= 0)
        {
            return;
        }
        bytes += written;
        count -= (size_t)written;
    }
}

static void onFault(int signalNumber, siginfo_t* info, void* context)
{
    (void)context;
    int const fd = open(tracePath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0)
    {
        char line[128];
        int const length = snprintf(line, sizeof line, "signal %d at address %p\n", signalNumber, info->si_addr);
        writeAll(fd, line, (size_t)length);
        void* frames[64];
        backtrace_symbols_fd(frames, backtrace(frames, 64), fd);
        writeAll(fd, "memory map:\n", 12);
        int const maps = open("/proc/self/maps", O_RDONLY);
        char buffer[4096];
        ssize_t got = 0;
        while (maps >= 0 && (got = read(maps, buffer, sizeof buffer)) > 0)
        {
            writeAll(fd, buffer, (size_t)got);
        }
        close(fd);
    }
    signal(signalNumber, SIG_DFL);
    raise(signalNumber);
}

__attribute__((constructor)) static void installFaultTrace(void)
{
    char const* path = getenv("KILN_FAULT_TRACE");
    if (path == NULL || strlen(path) >= sizeof tracePath)
    {
        return;
    }
    strcpy(tracePath, path);
    void* warm[1];
    backtrace(warm, 1);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = onFault;
    action.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &action, NULL);
    sigaction(SIGBUS, &action, NULL);
    sigaction(SIGABRT, &action, NULL);
}
