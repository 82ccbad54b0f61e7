// The random numbers of IFillLayer's kRANDOM_UNIFORM and kRANDOM_NORMAL, shared by the CPU reference and the CUDA
// kernel so that both backends produce the same tensor.
//
// A counter-based generator: draw n is a pure function of n (SplitMix64's output function applied to the n-th
// step of its Weyl sequence; Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014). Each
// GPU thread computes its own elements' draws without a sequential state to share, and a constant seed makes every
// run repeat. Element i of a fill uses draws 2i and 2i + 1.
//
// The arithmetic that turns draws into values is written with explicit fma, no other additions after
// multiplications, so that no compiler may contract it differently on the host and on the device: the uniform
// values are bit-identical across backends. The normal values go through log and cos, whose last bit may differ
// between the host's C library and CUDA's (CUDA documents at most 1 and 2 ulp), so they agree to about 1e-15
// before rounding to the output type.
#pragma once

#include <cmath>
#include <cstdint>

#ifndef KILN_HOST_DEVICE
#if defined(__CUDACC__)
#define KILN_HOST_DEVICE __host__ __device__
#else
#define KILN_HOST_DEVICE
#endif
#endif

namespace kiln::counter_random
{

//! Any constant works; a fixed one makes every run reproducible.
constexpr uint64_t kSeed = 0x6b696c6eULL;

//! Draw `n` of the stream: 64 well-mixed bits.
KILN_HOST_DEVICE inline uint64_t draw(uint64_t n)
{
    uint64_t z = kSeed + (n + 1) * 0x9e3779b97f4a7c15ULL; // the Weyl step (the golden ratio's 64-bit fraction)
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

//! Uniform in [0, 1): the top 53 bits, the precision of a double (the product is exact).
KILN_HOST_DEVICE inline double unitInterval(uint64_t bits)
{
    return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

//! Element `element` of a kRANDOM_UNIFORM fill on [minimum, maximum] (minimum <= maximum, both finite).
KILN_HOST_DEVICE inline double uniformElement(double minimum, double maximum, uint64_t element)
{
    double const value = ::fma(maximum - minimum, unitInterval(draw(2 * element)), minimum);
    // The rounded difference may exceed the true one by half an ulp; the clamp keeps the promise of [min, max].
    return value > maximum ? maximum : value;
}

//! Element `element` of a kRANDOM_NORMAL fill with the given mean and standard deviation (Box-Muller).
KILN_HOST_DEVICE inline double normalElement(double mean, double deviation, uint64_t element)
{
    // 1 - u lies in (0, 1], so the logarithm is finite; 2 * pi is a double constant on both sides.
    constexpr double kTwoPi = 6.283185307179586476925286766559;
    double const radius = ::sqrt(-2.0 * ::log(1.0 - unitInterval(draw(2 * element))));
    double const angle = kTwoPi * unitInterval(draw(2 * element + 1));
    return ::fma(deviation, radius * ::cos(angle), mean);
}

} // namespace kiln::counter_random
