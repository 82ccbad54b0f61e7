// IShuffleLayer on the GPU: first transpose, reshape, second transpose, as the CPU reference
// (backend/cpu/kernels/tensor/shuffle.h). The runtime has already resolved the output shape
// (placeholders, -1, a shape-tensor input), so the reshape is only a reinterpretation.
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/device_access.cuh"
#include "backend/cuda/strided_index.cuh"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::cuda
{
namespace
{

using device::StridedShape;

//! Output element i: its coordinates, read through `reshaped`'s strides, give its position in the first
//! transpose's (contiguous) result; that position, read through `transposed`'s strides, gives the input element.
//! An identity first transpose skips the second step.
template <typename T>
__global__ void shuffleKernel(
    T const* input, T* output, StridedShape reshaped, StridedShape transposed, bool firstIsIdentity, int64_t count)
{
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        int64_t const position = device::stridedOffset(i, reshaped);
        output[i] = input[firstIsIdentity ? position : device::stridedOffset(position, transposed)];
    }
}

bool isIdentity(std::vector<int32_t> const& order)
{
    for (size_t i = 0; i < order.size(); ++i)
    {
        if (order[i] != static_cast<int32_t>(i))
        {
            return false;
        }
    }
    return true;
}

//! Checks that `order` permutes `rank` dims.
void requirePermutation(std::vector<int32_t> const& order, size_t rank, char const* which)
{
    std::vector<bool> seen(rank, false);
    bool valid = order.size() == rank;
    for (size_t i = 0; valid && i < order.size(); ++i)
    {
        valid = order[i] >= 0 && static_cast<size_t>(order[i]) < rank && !seen[static_cast<size_t>(order[i])];
        if (valid)
        {
            seen[static_cast<size_t>(order[i])] = true;
        }
    }
    if (!valid)
    {
        throw std::invalid_argument(std::string("shuffle: the ") + which + " transpose is not a permutation of "
            + std::to_string(rank) + " dims");
    }
}

//! `firstTranspose` has one entry per input dim, `secondTranspose` one per output dim (out.shape[i] =
//! reshaped[secondTranspose[i]]). Every byte-addressable type; input and output share it. One kernel, or one
//! device-to-device copy when neither transpose moves anything.
void shuffleOnDevice(std::vector<int32_t> const& firstTranspose, std::vector<int32_t> const& secondTranspose,
    ConstTensorView const& input, TensorView const& output, cudaStream_t stream)
{
    requirePermutation(firstTranspose, input.shape.size(), "first");
    requirePermutation(secondTranspose, output.shape.size(), "second");
    if (input.type != output.type || input.count() != output.count())
    {
        throw std::invalid_argument("shuffle: the output must have the input's type and element count");
    }
    int64_t const count = output.count();
    size_t const bytes = elementSize(input.type);
    if (count == 0)
    {
        return;
    }
    if (isIdentity(firstTranspose) && isIdentity(secondTranspose))
    {
        check(cudaMemcpyAsync(
                  output.data, input.data, static_cast<size_t>(count) * bytes, cudaMemcpyDeviceToDevice, stream),
            "shuffle: copying");
        return;
    }
    // The reshape's result, in which the second transpose picks: reshaped[second[i]] = out.shape[i].
    std::vector<int64_t> reshapedExtents(output.shape.size());
    for (size_t i = 0; i < output.shape.size(); ++i)
    {
        reshapedExtents[static_cast<size_t>(secondTranspose[i])] = output.shape[i];
    }
    std::vector<int64_t> const reshapedStrides = device::rowMajorStrides(reshapedExtents);
    std::vector<int64_t> outputStrides(output.shape.size());
    for (size_t i = 0; i < output.shape.size(); ++i)
    {
        outputStrides[i] = reshapedStrides[static_cast<size_t>(secondTranspose[i])];
    }
    // The first transpose's result, row-major, read through the input's strides.
    std::vector<int64_t> const inputStrides = device::rowMajorStrides(input.shape);
    std::vector<int64_t> transposedExtents(input.shape.size());
    std::vector<int64_t> transposedStrides(input.shape.size());
    for (size_t i = 0; i < input.shape.size(); ++i)
    {
        transposedExtents[i] = input.shape[static_cast<size_t>(firstTranspose[i])];
        transposedStrides[i] = inputStrides[static_cast<size_t>(firstTranspose[i])];
    }
    StridedShape const reshaped = device::makeStridedShape(output.shape, outputStrides);
    StridedShape const transposed = device::makeStridedShape(transposedExtents, transposedStrides);
    bool const firstIsIdentity = isIdentity(firstTranspose);
    device::withElementOfSize(bytes, "shuffle", [&](auto element) {
        using T = decltype(element);
        shuffleKernel<T>
            <<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(static_cast<T const*>(input.data),
                static_cast<T*>(output.data), reshaped, transposed, firstIsIdentity, count);
    });
    check(cudaGetLastError(), "shuffle: launching the kernel");
}

} // namespace

void run(
    network::ShuffleParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream)
{
    std::vector<int32_t> const first(params.firstTranspose.order, params.firstTranspose.order + inputs[0].rank());
    std::vector<int32_t> const second(params.secondTranspose.order, params.secondTranspose.order + outputs[0].rank());
    shuffleOnDevice(first, second, inputs[0], outputs[0], stream);
}

} // namespace kiln::cuda
