// Counts the program's calls of the global operator new (every thread's), so that a benchmark can say how many heap
// allocations a call it times makes. Linking allocation_counter.cpp into a program replaces the global operator new
// and delete for the whole program, shared libraries included; memory still comes from malloc.
#pragma once

#include <cstdint>

namespace kiln_bench
{

//! The calls of operator new (any form) since the program started.
uint64_t allocationCount();

} // namespace kiln_bench
