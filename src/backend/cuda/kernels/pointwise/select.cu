// ISelectLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/select.h):
// output = condition ? then : else, element by element, with numpy broadcasting of all three. Where each input has
// the output's shape or is one element (attention's guard against rows of NaN, where(isnan(p), 0, p)), a kernel
// without index arithmetic; else each input's offset from the output's index (three divisions an axis, several
// times slower on attention's probabilities).
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/strided_index.cuh"
#include "backend/cuda/layer_kernels.h"

#include <stdexcept>

namespace kiln::cuda
{
namespace
{

using device::StridedShape;

template <typename T>
__global__ void selectKernel(uint8_t const* condition, T const* thenInput, T const* elseInput, T* output,
    StridedShape conditionAt, StridedShape thenAt, StridedShape elseAt, int64_t count)
{
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        output[i] = condition[device::stridedOffset(i, conditionAt)] != 0 ? thenInput[device::stridedOffset(i, thenAt)]
                                                                          : elseInput[device::stridedOffset(i, elseAt)];
    }
}

//! Inputs of the output's shape, or of one element (`single`): the output's index, or 0.
struct AlikeInputs
{
    bool conditionSingle;
    bool thenSingle;
    bool elseSingle;
};

template <typename T>
__global__ void selectAlikeKernel(
    uint8_t const* condition, T const* thenInput, T const* elseInput, T* output, AlikeInputs single, int64_t count)
{
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        output[i] = condition[single.conditionSingle ? 0 : i] != 0 ? thenInput[single.thenSingle ? 0 : i]
                                                                   : elseInput[single.elseSingle ? 0 : i];
    }
}

//! Whether `input` is one element or has the output's shape (as a view of the same count).
bool alike(Shape const& input, Shape const& output, bool& single)
{
    single = volume(input) == 1;
    return single || input == output;
}

//! The output's extents with `input`'s strides, 0 where an extent of 1 (or a missing leading dim) broadcasts.
StridedShape broadcastTo(Shape const& input, Shape const& output)
{
    if (input.size() > output.size())
    {
        throw std::invalid_argument("select: an input has a higher rank than the output");
    }
    size_t const lead = output.size() - input.size();
    std::vector<int64_t> const inputStrides = device::rowMajorStrides(input);
    std::vector<int64_t> strides(output.size(), 0);
    for (size_t d = 0; d < input.size(); ++d)
    {
        if (input[d] != output[lead + d] && input[d] != 1)
        {
            throw std::invalid_argument("select: an input's shape does not broadcast to the output's");
        }
        strides[lead + d] = input[d] == output[lead + d] ? inputStrides[d] : 0;
    }
    return device::makeStridedShape(output, strides);
}

//! The condition is BOOL (any nonzero byte is true); then, else and output share one byte-addressable type.
//! Inputs of lower rank are aligned to the output's last dims. Throws std::invalid_argument otherwise.
void selectOnDevice(ConstTensorView const& condition, ConstTensorView const& thenInput,
    ConstTensorView const& elseInput, TensorView const& output, cudaStream_t stream)
{
    if (condition.type != nvinfer1::DataType::kBOOL)
    {
        throw std::invalid_argument("select: the condition must be BOOL");
    }
    if (thenInput.type != output.type || elseInput.type != output.type)
    {
        throw std::invalid_argument("select: then, else and output must have the same type");
    }
    StridedShape const conditionAt = broadcastTo(condition.shape, output.shape);
    StridedShape const thenAt = broadcastTo(thenInput.shape, output.shape);
    StridedShape const elseAt = broadcastTo(elseInput.shape, output.shape);
    int64_t const count = output.count();
    if (count == 0)
    {
        return;
    }
    AlikeInputs single{};
    bool const alikeInputs = alike(condition.shape, output.shape, single.conditionSingle)
        && alike(thenInput.shape, output.shape, single.thenSingle)
        && alike(elseInput.shape, output.shape, single.elseSingle);
    device::withElementOfSize(elementSize(output.type), "select", [&](auto element) {
        using T = decltype(element);
        if (alikeInputs)
        {
            selectAlikeKernel<T><<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
                static_cast<uint8_t const*>(condition.data), static_cast<T const*>(thenInput.data),
                static_cast<T const*>(elseInput.data), static_cast<T*>(output.data), single, count);
            return;
        }
        selectKernel<T><<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
            static_cast<uint8_t const*>(condition.data), static_cast<T const*>(thenInput.data),
            static_cast<T const*>(elseInput.data), static_cast<T*>(output.data), conditionAt, thenAt, elseAt, count);
    });
    check(cudaGetLastError(), "select: launching the kernel");
}

} // namespace

void run(network::SelectParams const& /*params*/, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream)
{
    selectOnDevice(inputs[0], inputs[1], inputs[2], outputs[0], stream);
}

} // namespace kiln::cuda
