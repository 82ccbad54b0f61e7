#include "backend/cpu/kernels/tensor/reduce.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace kiln::cpu
{
namespace
{

using nvinfer1::ReduceOperation;
using namespace tensor_detail;

//! ReduceOperation::kNONE (TensorRT 10.16's, for collective layers) reduces nothing: the reduce layer refuses it when
//! it is added, so a plan holding it is malformed.
constexpr char const* kNoneIsRefused = "reduce: ReduceOperation::kNONE is not a reduction";

constexpr char const* kKernel = "reduce";

void checkAxes(Shape const& input, uint32_t axes)
{
    if (input.size() < 32 && (axes >> input.size()) != 0)
    {
        fail(kKernel, "reduceAxes mask has bits beyond rank " + std::to_string(input.size()));
    }
}

//! Input strides that map each input element onto its output accumulator (0 along reduced dims).
Shape accumulatorStrides(Shape const& input, uint32_t axes)
{
    Shape kept = input;
    for (size_t i = 0; i < input.size(); ++i)
    {
        if ((axes >> i) & 1u)
        {
            kept[i] = 1;
        }
    }
    Shape strides = contiguousStrides(kept);
    for (size_t i = 0; i < input.size(); ++i)
    {
        if ((axes >> i) & 1u)
        {
            strides[i] = 0;
        }
    }
    return strides;
}

template <typename Accumulator, typename Combine>
std::vector<Accumulator> accumulate(ConstTensorView const& input, uint32_t axes, int64_t outputCount,
    Accumulator identity, Combine&& combine, auto&& readElement)
{
    std::vector<Accumulator> accumulators(static_cast<size_t>(outputCount), identity);
    int64_t inputIndex = 0;
    forEachIndex<1>(input.shape, {accumulatorStrides(input.shape, axes)}, [&](std::array<int64_t, 1> const& offsets) {
        Accumulator& acc = accumulators[static_cast<size_t>(offsets[0])];
        acc = combine(acc, readElement(inputIndex++));
    });
    return accumulators;
}

void reduceFloat(
    ConstTensorView const& input, TensorView const& output, network::ReduceParams const& params, int64_t reducedCount)
{
    auto read = [&](int64_t i) { return static_cast<double>(readFloat(input.data, input.type, i)); };
    double const inf = std::numeric_limits<double>::infinity();
    std::vector<double> result;
    switch (params.operation)
    {
    case ReduceOperation::kSUM:
    case ReduceOperation::kAVG:
        result = accumulate<double>(
            input, params.reduceAxes, output.count(), 0.0, [](double a, double b) { return a + b; }, read);
        break;
    case ReduceOperation::kPROD:
        result = accumulate<double>(
            input, params.reduceAxes, output.count(), 1.0, [](double a, double b) { return a * b; }, read);
        break;
    case ReduceOperation::kMAX:
        result = accumulate<double>(
            input, params.reduceAxes, output.count(), -inf,
            [](double a, double b) { return (std::isnan(a) || a >= b) ? a : b; }, read);
        break;
    case ReduceOperation::kMIN:
        result = accumulate<double>(
            input, params.reduceAxes, output.count(), inf,
            [](double a, double b) { return (std::isnan(a) || a <= b) ? a : b; }, read);
        break;
    case ReduceOperation::kNONE: throw std::invalid_argument(kNoneIsRefused);
    }
    for (int64_t i = 0; i < output.count(); ++i)
    {
        double value = result[static_cast<size_t>(i)];
        if (params.operation == ReduceOperation::kAVG)
        {
            value = reducedCount == 0 ? std::numeric_limits<double>::quiet_NaN() : value / reducedCount;
        }
        writeFloat(output.data, output.type, i, static_cast<float>(value));
    }
}

void reduceInteger(
    ConstTensorView const& input, TensorView const& output, network::ReduceParams const& params, int64_t reducedCount)
{
    // Unsigned arithmetic wraps on overflow instead of being undefined.
    auto read = [&](int64_t i) { return readInteger(input.data, input.type, i); };
    bool const is32 = input.type == DataType::kINT32;
    int64_t const lowest = is32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
    int64_t const highest = is32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
    auto wrapAdd = [](int64_t a, int64_t b) {
        return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    };
    auto wrapMul = [](int64_t a, int64_t b) {
        return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    };
    std::vector<int64_t> result;
    switch (params.operation)
    {
    case ReduceOperation::kSUM:
    case ReduceOperation::kAVG:
        result = accumulate<int64_t>(input, params.reduceAxes, output.count(), 0, wrapAdd, read);
        break;
    case ReduceOperation::kPROD:
        result = accumulate<int64_t>(input, params.reduceAxes, output.count(), 1, wrapMul, read);
        break;
    case ReduceOperation::kMAX:
        result = accumulate<int64_t>(
            input, params.reduceAxes, output.count(), lowest, [](int64_t a, int64_t b) { return std::max(a, b); },
            read);
        break;
    case ReduceOperation::kMIN:
        result = accumulate<int64_t>(
            input, params.reduceAxes, output.count(), highest, [](int64_t a, int64_t b) { return std::min(a, b); },
            read);
        break;
    case ReduceOperation::kNONE: throw std::invalid_argument(kNoneIsRefused);
    }
    for (int64_t i = 0; i < output.count(); ++i)
    {
        int64_t value = result[static_cast<size_t>(i)];
        if (params.operation == ReduceOperation::kAVG)
        {
            value = reducedCount == 0 ? 0 : value / reducedCount;
        }
        writeInteger(output.data, output.type, i, value);
    }
}

} // namespace

Shape reduceOutputShape(Shape const& input, network::ReduceParams const& params)
{
    checkAxes(input, params.reduceAxes);
    Shape output;
    for (size_t i = 0; i < input.size(); ++i)
    {
        bool const reduced = (params.reduceAxes >> i) & 1u;
        if (!reduced)
        {
            output.push_back(input[i]);
        }
        else if (params.keepDimensions)
        {
            output.push_back(1);
        }
    }
    return output;
}

void reduce(ConstTensorView const& input, TensorView const& output, network::ReduceParams const& params)
{
    expectShape(output.shape, reduceOutputShape(input.shape, params), kKernel, "output");
    if (input.type != output.type)
    {
        fail(kKernel,
            std::string("input is ") + dataTypeName(input.type) + " but output is " + dataTypeName(output.type));
    }
    int64_t reducedCount = 1;
    for (size_t i = 0; i < input.shape.size(); ++i)
    {
        if ((params.reduceAxes >> i) & 1u)
        {
            reducedCount *= input.shape[i];
        }
    }
    if (output.count() == 0)
    {
        return;
    }
    if (isFloatType(input.type))
    {
        reduceFloat(input, output, params, reducedCount);
    }
    else if (isIndexType(input.type))
    {
        reduceInteger(input, output, params, reducedCount);
    }
    else
    {
        fail(kKernel, std::string("unsupported type ") + dataTypeName(input.type));
    }
}

void run(network::ReduceParams const& p, LayerInputs const& in, LayerOutputs const& out)
{
    reduce(in[0], out[0], p);
}

} // namespace kiln::cpu
