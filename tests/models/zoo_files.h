// What the model zoo's tests (zoo_test.cpp, quantized_test.cpp) share: finding a folder's models, reading a model's
// arrays, and the zoo's measure of how far outputs are from the reference.
#pragma once

#include "npy_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

namespace kiln::test
{

//! The folders of `directory` that hold a model.onnx, by name.
inline std::vector<std::string> modelFoldersIn(std::filesystem::path const& directory)
{
    std::vector<std::string> names;
    for (auto const& entry : std::filesystem::directory_iterator(directory))
    {
        if (std::filesystem::exists(entry.path() / "model.onnx"))
        {
            names.push_back(entry.path().filename().string());
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

//! The files `prefix`_0.npy, `prefix`_1.npy... of a model's folder.
inline std::vector<HostTensor> readArrays(std::filesystem::path const& folder, std::string const& prefix)
{
    std::vector<HostTensor> arrays;
    for (int i = 0; std::filesystem::exists(folder / (prefix + "_" + std::to_string(i) + ".npy")); ++i)
    {
        arrays.push_back(readNpy((folder / (prefix + "_" + std::to_string(i) + ".npy")).string()));
    }
    return arrays;
}

//! max|actual - expected| / max|expected| (the absolute difference when expected is all zeros); NaN counts as
//! infinitely far.
inline double scaledError(HostTensor const& actual, HostTensor const& expected)
{
    std::vector<float> const a = actual.floats();
    std::vector<float> const e = expected.floats();
    double largestDifference = 0.0;
    double largestReference = 0.0;
    for (size_t i = 0; i < e.size(); ++i)
    {
        double const difference = std::fabs(static_cast<double>(a[i]) - e[i]);
        largestDifference = std::isnan(difference) ? INFINITY : std::max(largestDifference, difference);
        largestReference = std::max(largestReference, std::fabs(static_cast<double>(e[i])));
    }
    return largestReference > 0.0 ? largestDifference / largestReference : largestDifference;
}

//! Expects as many outputs as `expected` arrays, each of its array's shape and within `tolerance` of it (scaledError).
inline void expectOutputsWithin(
    std::vector<HostTensor> const& outputs, std::vector<HostTensor> const& expected, double tolerance)
{
    ASSERT_EQ(outputs.size(), expected.size()) << "the number of outputs";
    for (size_t i = 0; i < expected.size(); ++i)
    {
        SCOPED_TRACE("output " + std::to_string(i));
        ASSERT_EQ(outputs[i].shape, expected[i].shape);
        EXPECT_LE(scaledError(outputs[i], expected[i]), tolerance);
    }
}

} // namespace kiln::test
