// Counts the program's calls of the global operator new (every thread's), so that a benchmark can say how many heap
// allocations a call it times makes. Linking allocation_counter.cpp into a program replaces the global operator new
// and delete for the whole program, shared libraries included; memory still comes from malloc.
#pragma once

#include <cstdint>

namespace kiln_bench
{

//! The calls of operator new (any form) since the program started.
uint64_t allocationCount();

//! While on, the calls of operator new made directly by NVIDIA's libraries' code (cuDNN, cuBLAS) are also counted
//! apart, in libraryAllocationCount: their internals are beyond what Kiln can change (cuDNN's graph API allocates in
//! every cudnnBackendExecute), and a test of Kiln's host path tells them from Kiln's own.
void attributeAllocations(bool on);

//! The calls of operator new made directly from cuDNN's or cuBLAS's code while attributeAllocations was on.
uint64_t libraryAllocationCount();

//! While on, every operator new also writes the native stack that called it to standard error (function names where
//! the libraries export them, else library and offset for addr2line): a test that finds allocations where there
//! should be none turns it on for one more call to say where they come from.
void traceAllocations(bool on);

} // namespace kiln_bench
