#include "backend/cpu/kernels/tensor/top_k.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

namespace kiln::cpu
{
namespace
{

using nvinfer1::TopKOperation;
using namespace tensor_detail;

constexpr char const* kKernel = "topK";

int32_t reducedAxis(Shape const& input, uint32_t reduceAxes)
{
    if (std::popcount(reduceAxes) != 1)
    {
        fail(kKernel, "reduceAxes must have exactly one bit set");
    }
    int32_t const axis = std::countr_zero(reduceAxes);
    if (static_cast<size_t>(axis) >= input.size())
    {
        fail(kKernel, "reduce axis " + std::to_string(axis) + " is beyond rank " + std::to_string(input.size()));
    }
    return axis;
}

// "a ranks before b" for kMAX; NaN counts as the greatest value.
template <typename Key>
bool greaterThan(Key a, Key b)
{
    if constexpr (std::is_floating_point_v<Key>)
    {
        if (std::isnan(a) || std::isnan(b))
        {
            return std::isnan(a) && !std::isnan(b);
        }
    }
    return a > b;
}

template <typename Key>
struct Candidate
{
    Key key;
    int64_t index;
};

template <typename Key, typename ReadKey>
void selectRows(ConstTensorView const& input, TensorView const& values, TensorView const& indices,
    TopKOperation operation, int64_t k, int32_t axis, ReadKey&& readKey)
{
    int64_t const n = input.shape[static_cast<size_t>(axis)];
    int64_t outer = 1;
    for (int32_t d = 0; d < axis; ++d)
    {
        outer *= input.shape[static_cast<size_t>(d)];
    }
    int64_t const inner = n == 0 ? 0 : input.count() / outer / n;
    size_t const bytes = elementSize(input.type);
    auto const* source = static_cast<uint8_t const*>(input.data);
    auto* valueBytes = static_cast<uint8_t*>(values.data);
    bool const wantMax = operation == TopKOperation::kMAX;
    // A strict total order (the index breaks ties), so the selection is deterministic.
    auto ranksBefore = [wantMax](Candidate<Key> const& a, Candidate<Key> const& b) {
        if (greaterThan(a.key, b.key))
        {
            return wantMax;
        }
        if (greaterThan(b.key, a.key))
        {
            return !wantMax;
        }
        return a.index < b.index;
    };
    std::vector<Candidate<Key>> row(static_cast<size_t>(n));
    for (int64_t o = 0; o < outer; ++o)
    {
        for (int64_t i = 0; i < inner; ++i)
        {
            int64_t const inputBase = o * n * inner + i;
            for (int64_t j = 0; j < n; ++j)
            {
                row[static_cast<size_t>(j)] = {readKey(inputBase + j * inner), j};
            }
            std::partial_sort(row.begin(), row.begin() + k, row.end(), ranksBefore);
            int64_t const outputBase = o * k * inner + i;
            for (int64_t j = 0; j < k; ++j)
            {
                int64_t const target = outputBase + j * inner;
                int64_t const chosen = row[static_cast<size_t>(j)].index;
                std::memcpy(valueBytes + target * static_cast<int64_t>(bytes),
                    source + (inputBase + chosen * inner) * static_cast<int64_t>(bytes), bytes);
                writeInteger(indices.data, indices.type, target, chosen);
            }
        }
    }
}

} // namespace

Shape topKOutputShape(Shape const& input, network::TopKParams const& params, int64_t k)
{
    int32_t const axis = reducedAxis(input, params.reduceAxes);
    if (k < 0 || k > input[static_cast<size_t>(axis)])
    {
        fail(kKernel,
            "k = " + std::to_string(k) + " is outside [0, " + std::to_string(input[static_cast<size_t>(axis)]) + "]");
    }
    Shape output = input;
    output[static_cast<size_t>(axis)] = k;
    return output;
}

void topK(ConstTensorView const& input, TensorView const& values, TensorView const& indices,
    network::TopKParams const& params, int64_t k)
{
    Shape const expected = topKOutputShape(input.shape, params, k);
    expectShape(values.shape, expected, kKernel, "values");
    expectShape(indices.shape, expected, kKernel, "indices");
    if (values.type != input.type)
    {
        fail(kKernel,
            std::string("values are ") + dataTypeName(values.type) + " but input is " + dataTypeName(input.type));
    }
    if (!isIndexType(indices.type))
    {
        fail(kKernel, std::string("indices must be INT32 or INT64, not ") + dataTypeName(indices.type));
    }
    int32_t const axis = reducedAxis(input.shape, params.reduceAxes);
    if (values.count() == 0)
    {
        return;
    }
    if (isFloatType(input.type))
    {
        selectRows<float>(input, values, indices, params.operation, k, axis,
            [&](int64_t i) { return readFloat(input.data, input.type, i); });
    }
    else if (isIndexType(input.type))
    {
        selectRows<int64_t>(input, values, indices, params.operation, k, axis,
            [&](int64_t i) { return readInteger(input.data, input.type, i); });
    }
    else
    {
        fail(kKernel, std::string("unsupported type ") + dataTypeName(input.type));
    }
}

void run(network::TopKParams const& p, LayerInputs const& in, LayerOutputs const& out)
{
    // Input 1, when given, holds k; the kernel checks it against the axis extent and the outputs' shape.
    int64_t const k = hasInput(in, 1) ? tensor_detail::readInteger(in[1].data, in[1].type, 0) : p.k;
    if (k < 1)
    {
        throw std::invalid_argument("top-k: k (input 1) is " + std::to_string(k) + "; must be positive");
    }
    topK(in[0], out[0], out[1], p, k);
}

} // namespace kiln::cpu
