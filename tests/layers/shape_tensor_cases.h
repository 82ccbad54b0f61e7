// Shape tensors through every layer kind that carries their values, described once for both backends' tests.
// Each case computes shape tensors from [a, b], an INT32 [2] tensor that is either Cast(Shape(x)) for a FLOAT input
// "x" of shape [a, b] (values known symbolically from the input's shape) or the shape-tensor input "s" (values given
// at run time), marks them as outputs and lets them shape a fill. One execution context runs each case for several
// [a, b], and every output's shape and values are checked against values worked out by hand.
#pragma once

#include "core/data_type.h"
#include "test_logger.h"

#include <NvInfer.h>
#include <kiln/Backend.h>

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace kiln::test::shape_tensors
{

using namespace nvinfer1;

//! Where [a, b] comes from.
enum class Source
{
    kSYMBOLIC, //!< the shape of input "x": values known as expressions of its extents
    kRUN_TIME, //!< the values of shape-tensor input "s", read from host memory at every run
};

//! One output after one run: its shape and its values (whole numbers, whatever the output's type).
struct Check
{
    std::string name;
    std::vector<int64_t> shape;
    std::vector<double> values;
};

//! One run of a case: [a, b] and what every output must then be.
struct Run
{
    int32_t a;
    int32_t b;
    std::vector<Check> checks;
};

struct Case
{
    char const* name;
    //! Adds the layers that compute from `ab` (INT32 [2], [a, b]) and marks every output.
    std::function<void(INetworkDefinition&, ITensor& ab)> make;
    std::vector<Run> runs;
};

//! How gtest names a case in its messages.
inline void PrintTo(Case const& c, std::ostream* out)
{
    *out << c.name;
}

// Layers the cases are made of. An add* that fails (a null layer) throws, so the test reports it and goes on.

template <typename Layer>
Layer& made(Layer* layer)
{
    if (layer == nullptr)
    {
        throw std::runtime_error("a layer could not be added");
    }
    return *layer;
}

inline ITensor& ints(INetworkDefinition& network, std::vector<int32_t> const& values, bool scalar = false)
{
    Dims const dims = scalar ? Dims{0, {}} : Dims{1, {static_cast<int64_t>(values.size())}};
    Weights const weights{DataType::kINT32, values.data(), static_cast<int64_t>(values.size())};
    return *made(network.addConstant(dims, weights)).getOutput(0);
}

inline ITensor& floats(INetworkDefinition& network, std::vector<float> const& values)
{
    Dims const dims{1, {static_cast<int64_t>(values.size())}};
    Weights const weights{DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())};
    return *made(network.addConstant(dims, weights)).getOutput(0);
}

inline ITensor& binary(INetworkDefinition& network, ITensor& a, ITensor& b, ElementWiseOperation op)
{
    return *made(network.addElementWise(a, b, op)).getOutput(0);
}

inline ITensor& cast(INetworkDefinition& network, ITensor& input, DataType type)
{
    return *made(network.addCast(input, type)).getOutput(0);
}

//! The entries of 1-D `input` at `indices` (1-D), or the one entry at `index` (0-D).
inline ITensor& entries(INetworkDefinition& network, ITensor& input, std::vector<int32_t> const& indices)
{
    return *made(network.addGather(input, ints(network, indices), 0)).getOutput(0);
}

inline ITensor& entry(INetworkDefinition& network, ITensor& input, int32_t index)
{
    return *made(network.addGather(input, ints(network, {index}, true), 0)).getOutput(0);
}

//! `input` reshaped to `dims` (a squeeze to 0-D, an unsqueeze to [1]).
inline ITensor& reshaped(INetworkDefinition& network, ITensor& input, Dims const& dims)
{
    IShuffleLayer& shuffle = made(network.addShuffle(input));
    shuffle.setReshapeDimensions(dims);
    return *shuffle.getOutput(0);
}

inline ITensor& concatenated(INetworkDefinition& network, std::vector<ITensor*> const& inputs)
{
    return *made(network.addConcatenation(inputs.data(), static_cast<int32_t>(inputs.size()))).getOutput(0);
}

inline void output(INetworkDefinition& network, ITensor& tensor, char const* name)
{
    tensor.setName(name);
    network.markOutput(tensor);
}

//! Marks 1-D `shape` as output `name`, and a FLOAT kLINSPACE fill of that shape as `name`_filled: the shape tensor
//! decides an output's shape. The fill counts in decimal digits: the element at (i, j, k) is 100 i + 10 j + k.
inline void shapeOutput(INetworkDefinition& network, ITensor& shape, char const* name)
{
    output(network, shape, name);
    Dims const dims = shape.getDimensions();
    if (dims.nbDims != 1 || dims.d[0] < 0)
    {
        throw std::runtime_error(std::string(name) + " is not a 1-D tensor of known length");
    }
    int64_t const rank = dims.d[0];
    std::vector<float> deltas(static_cast<size_t>(rank));
    float weight = 1.0F;
    for (int64_t i = rank - 1; i >= 0; --i, weight *= 10.0F)
    {
        deltas[static_cast<size_t>(i)] = weight;
    }
    float const zero = 0.0F;
    IFillLayer& fill = made(network.addFill(Dims{1, {1}}, FillOperation::kLINSPACE, DataType::kFLOAT));
    fill.setInput(0, shape);
    fill.setInput(1, *made(network.addConstant(Dims{0, {}}, Weights{DataType::kFLOAT, &zero, 1})).getOutput(0));
    fill.setInput(2, floats(network, deltas));
    output(network, *fill.getOutput(0), (std::string(name) + "_filled").c_str());
}

// What the runs expect.

inline Check scalar(char const* name, double value)
{
    return Check{name, {}, {value}};
}

inline Check vector(char const* name, std::vector<double> values)
{
    return Check{name, {static_cast<int64_t>(values.size())}, std::move(values)};
}

//! The two outputs shapeOutput marks: the shape tensor's values and the fill of that shape (its digits).
inline std::vector<Check> shapeChecks(char const* name, std::vector<int64_t> const& shape)
{
    std::vector<double> digits{0.0};
    for (int64_t extent : shape)
    {
        std::vector<double> next;
        for (double prefix : digits)
        {
            for (int64_t i = 0; i < extent; ++i)
            {
                next.push_back(prefix * 10.0 + static_cast<double>(i));
            }
        }
        digits = std::move(next);
    }
    return {Check{name, {static_cast<int64_t>(shape.size())}, std::vector<double>(shape.begin(), shape.end())},
        Check{std::string(name) + "_filled", shape, std::move(digits)}};
}

//! A run of [a, b]: the shape tensors shapeOutput marked, by name, and any other outputs' checks.
inline Run at(int32_t a, int32_t b, std::vector<std::pair<char const*, std::vector<int64_t>>> const& shapes,
    std::vector<Check> others = {})
{
    Run run{a, b, std::move(others)};
    for (auto const& [name, values] : shapes)
    {
        std::vector<Check> const both = shapeChecks(name, values);
        run.checks.insert(run.checks.end(), both.begin(), both.end());
    }
    return run;
}

std::vector<Case> allCases();

// Running a case on a backend.

//! Where a backend's I/O buffers live: host memory for the CPU backend, device memory for the CUDA backend.
struct Buffers
{
    std::function<void*(size_t)> allocate;
    std::function<void(void*)> release;
    std::function<void(void* device, void const* host, size_t bytes)> upload;
    std::function<void(void* host, void const* device, size_t bytes)> download;
};

Buffers hostBuffers();

//! Builds `c` for `backend` with [a, b] from `source`, then runs every one of its runs in one execution context.
void runCase(Case const& c, Source source, kiln::Backend backend, Buffers const& buffers);

//! The plan of the network `make` adds, for `backend`, with an optimization profile for inputs "x" ([1, 1] to
//! [8, 8]) and "s" (values [1, 1] to [8, 8]) where it has them; null with the failure in `logger`.
std::unique_ptr<IHostMemory> buildPlan(
    RecordingLogger& logger, kiln::Backend backend, std::function<void(INetworkDefinition&)> const& make);

//! Expects `c`'s network, with [a, b] from `source`, to build for `backend` (no device needed).
void buildsFor(Case const& c, Source source, kiln::Backend backend);

//! buildPlan's plan loaded; null engine with the failure in `logger` when either step fails.
std::unique_ptr<ICudaEngine> buildEngine(RecordingLogger& logger, std::unique_ptr<IRuntime>& runtime,
    kiln::Backend backend, std::function<void(INetworkDefinition&)> const& make);

//! The test name of a case and a source: "Slice_RunTime".
inline std::string caseName(::testing::TestParamInfo<std::tuple<Case, Source>> const& info)
{
    return std::string(std::get<0>(info.param).name)
        + (std::get<1>(info.param) == Source::kSYMBOLIC ? "_Symbolic" : "_RunTime");
}

} // namespace kiln::test::shape_tensors
