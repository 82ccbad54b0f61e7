// Deterministic test inputs that a reference script (torch, numpy) can rebuild exactly: element i of the tensor is
// ((i * multiplier) mod modulus) * scale + shift, computed in float.
#pragma once

#include "host_tensor.h"

#include <cstdint>
#include <vector>

namespace kiln::test
{

inline std::vector<float> patternValues(size_t count, int64_t multiplier, int64_t modulus, float scale, float shift)
{
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i)
    {
        values[i] = static_cast<float>((static_cast<int64_t>(i) * multiplier) % modulus) * scale + shift;
    }
    return values;
}

inline HostTensor pattern(Shape const& shape, int64_t multiplier, int64_t modulus, float scale, float shift,
    nvinfer1::DataType type = nvinfer1::DataType::kFLOAT)
{
    return fromFloats(
        shape, patternValues(static_cast<size_t>(volume(shape)), multiplier, modulus, scale, shift), type);
}

} // namespace kiln::test
