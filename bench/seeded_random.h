// Deterministic pseudo-random floats for the benchmark's weights and images.
#pragma once

#include <cstdint>
#include <random>

namespace kiln_bench
{

//! Uniform floats from a fixed seed. std::mt19937's sequence is fixed by the C++ standard, but
//! std::uniform_real_distribution's mapping is not, so the mapping to floats is done here: the same
//! seed gives the same weights (and figures) with every standard library.
class SeededRandom
{
public:
    explicit SeededRandom(uint32_t seed)
        : mEngine(seed)
    {
    }

    //! A float in [low, high).
    float uniform(float low, float high)
    {
        // The top 24 bits fill a float's mantissa exactly, so every value is representable.
        float const unit = static_cast<float>(mEngine() >> 8) * (1.0F / 16777216.0F);
        return low + (high - low) * unit;
    }

private:
    std::mt19937 mEngine;
};

} // namespace kiln_bench
