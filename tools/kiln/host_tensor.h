// A tensor's bytes in host memory, with its name, type and shape; and reading its elements as
// numbers whatever the type (for dumps, exports and comparisons).
#pragma once

#include "core/data_type.h"

#include <NvInferRuntime.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::cli
{

struct HostTensor
{
    std::string name;
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    nvinfer1::Dims dims{};
    std::vector<uint8_t> bytes;

    int64_t elementCount() const;
    //! Element i as a double (half, bfloat16, integers and bool converted).
    double value(int64_t i) const;
};

int64_t volume(nvinfer1::Dims const& dims);

//! Fills t with deterministic pseudo-random values, as trtexec fills inputs it was not given:
//! floating point in [-1, 1], integers in [0, 4] (small, so they are safe as indices), bool 0 or 1.
void fillRandom(HostTensor& t, uint32_t seed);

} // namespace kiln::cli
