// On the GPU machine, preloaded into the kiln runs of kiln-turns.sh (LD_PRELOAD): where a run faults (SIGSEGV, SIGBUS,
// SIGABRT), writes the signal, the faulting address and thread, a backtrace, the process's threads and its memory
// map to the file that KILN_FAULT_TRACE names, then lets the signal end the process as it would have. A fault that
// comes once in tens of runs (seen in timing runs, never under cuda-gdb) leaves its trace so; kiln-turns.sh turns the
// frames into function names with addr2line. Not part of Kiln.
#define _GNU_SOURCE
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

// getdents64's entries (glibc 2.36 declares no wrapper for the raw call used here, which is async-signal-safe).
struct linux_dirent64
{
    unsigned long long d_ino;
    long long d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

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
        // Which thread faulted, among the process's: a thread other than the main one (whose id is the process's)
        // is a library's, not the kiln command's.
        char line[128];
        int const length = snprintf(line, sizeof line, "signal %d at address %p in thread %ld of process %ld\n",
            signalNumber, info->si_addr, (long)syscall(SYS_gettid), (long)getpid());
        writeAll(fd, line, (size_t)length);
        void* frames[64];
        backtrace_symbols_fd(frames, backtrace(frames, 64), fd);
        writeAll(fd, "threads:", 8);
        int const tasks = open("/proc/self/task", O_RDONLY | O_DIRECTORY);
        char entries[4096];
        long listed = 0;
        while (tasks >= 0 && (listed = syscall(SYS_getdents64, tasks, entries, sizeof entries)) > 0)
        {
            for (long at = 0; at < listed;)
            {
                struct linux_dirent64* entry = (struct linux_dirent64*)(entries + at);
                if (entry->d_name[0] != '.')
                {
                    writeAll(fd, " ", 1);
                    writeAll(fd, entry->d_name, strlen(entry->d_name));
                }
                at += entry->d_reclen;
            }
        }
        close(tasks);
        writeAll(fd, "\nmemory map:\n", 13);
        int const maps = open("/proc/self/maps", O_RDONLY);
        char buffer[4096];
        ssize_t got = 0;
        while (maps >= 0 && (got = read(maps, buffer, sizeof buffer)) > 0)
        {
            writeAll(fd, buffer, (size_t)got);
        }
        close(maps);
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
