// Constants of a test network whose values vary by position, so that a misplaced channel, tap or unit shows.
#pragma once

#include <NvInfer.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace kiln::test
{

//! Small weights that vary by position: multiples of 0.04 from -0.24 to 0.24, shifted by 0.01 * `phase`.
inline std::vector<float> weightsOf(size_t count, float phase)
{
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i)
    {
        values[i] = 0.04F * static_cast<float>(static_cast<int64_t>((i * 7 + 3) % 13) - 6) + 0.01F * phase;
    }
    return values;
}

//! A FP32 constant of `values` with extents `dims`, its weights kept alive for the builds that read them.
inline nvinfer1::ITensor* constantOf(
    nvinfer1::INetworkDefinition& network, nvinfer1::Dims const& dims, std::vector<float> const& values)
{
    static std::deque<std::vector<float>> kept; // a deque: earlier networks' weights stay where they are
    kept.push_back(values);
    nvinfer1::Weights const weights{
        nvinfer1::DataType::kFLOAT, kept.back().data(), static_cast<int64_t>(kept.back().size())};
    return network.addConstant(dims, weights)->getOutput(0);
}

} // namespace kiln::test
