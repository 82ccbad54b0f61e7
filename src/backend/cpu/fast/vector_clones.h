// How the fast path's loops over arrays are compiled for the processor they run on. Each array function marked
// KILN_VECTOR_CLONES is also compiled for AVX2 and AVX-512, and the loader picks the widest one the processor runs
// (GCC's function multiversioning); elsewhere the compiler's baseline (SSE2 on x86-64) serves. The clones name
// instruction sets, not processors ("arch=..."), which would be chosen by the processor's model, one a virtual machine
// may not report. GCC makes no clones of a function local to its file: array functions have external linkage.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define KILN_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define KILN_VECTOR_CLONES
#endif

// GCC inlines a function into one compiled for another processor only where told to, and a call left in a loop stops
// its vectorisation: the element functions that array functions call are always inlined, and use the compiler's
// built-in functions rather than the standard library's (std::bit_cast, std::fabs and the like are not always inlined).
#define KILN_ELEMENT [[gnu::always_inline]] inline
