#include "backend/cpu/kernels/tensor/non_zero.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"
#include "core/element_non_zero.h"

#include <limits>
#include <string>

namespace kiln::cpu
{
namespace
{

using namespace tensor_detail;

constexpr char const* kKernel = "nonZero";

//! Throws unless the outputs can hold the positions of every element of `input`.
void checkOutputs(ConstTensorView const& input, TensorView const& indices, TensorView const& count)
{
    if (elementSize(input.type) == 0 || input.type == DataType::kFP8 || input.type == DataType::kE8M0)
    {
        fail(kKernel, std::string("input type ") + dataTypeName(input.type) + " is not supported");
    }
    if (!isIndexType(indices.type) || !isIndexType(count.type) || count.rank() != 0)
    {
        fail(kKernel, "indices must be INT32 or INT64 and count a 0-D INT32 or INT64 tensor");
    }
    if (indices.rank() != 2 || indices.shape[0] != input.rank() || indices.shape[1] < input.count())
    {
        fail(kKernel,
            "indices have shape " + shapeText(indices.shape) + "; expected [" + std::to_string(input.rank()) + ", "
                + std::to_string(input.count()) + "], room for every element of the input");
    }
    bool const narrow = indices.type == DataType::kINT32;
    for (int64_t extent : input.shape)
    {
        if (narrow && extent - 1 > std::numeric_limits<int32_t>::max())
        {
            fail(kKernel, "an extent of " + std::to_string(extent) + " has indices that INT32 cannot hold");
        }
    }
}

} // namespace

void nonZero(ConstTensorView const& input, TensorView const& indices, TensorView const& count)
{
    checkOutputs(input, indices, count);
    int64_t const elements = input.count();
    int64_t found = 0;
    for (int64_t i = 0; i < elements; ++i)
    {
        found += elementIsNonZero(input.data, input.type, i) ? 1 : 0;
    }
    writeInteger(count.data, count.type, 0, found);
    int64_t const rank = input.rank();
    int64_t column = 0;
    for (int64_t i = 0; i < elements; ++i)
    {
        if (!elementIsNonZero(input.data, input.type, i))
        {
            continue;
        }
        // Unravel i, last axis fastest; row r of the [rank, found] matrix starts at r * found.
        int64_t rest = i;
        for (int64_t r = rank - 1; r >= 0; --r)
        {
            writeInteger(indices.data, indices.type, r * found + column, rest % input.shape[r]);
            rest /= input.shape[r];
        }
        ++column;
    }
}

void run(network::NonZeroParams const&, LayerInputs const& in, LayerOutputs const& out)
{
    nonZero(in[0], out[0], out[1]);
}

} // namespace kiln::cpu
