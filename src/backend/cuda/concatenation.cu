// IConcatenationLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/concatenation.h).
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

constexpr int32_t kInputsPerLaunch = 16;

//! A run of inputs copied by one launch. Seen as [outer, width]: an input's row is its axis extent times the
//! volume after the axis, placed at `column` within the output's row of `outputWidth`.
struct Batch
{
    int32_t count{0};
    void const* data[kInputsPerLaunch]{};
    int64_t width[kInputsPerLaunch]{};
    int64_t column[kInputsPerLaunch]{};
    int64_t batchWidth{0}; //!< the inputs' widths summed
    int64_t outputWidth{0};
};

template <typename T>
__global__ void concatenationKernel(Batch batch, T* output, int64_t count)
{
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        int64_t const row = i / batch.batchWidth;
        int64_t within = i % batch.batchWidth;
        int32_t k = 0;
        while (within >= batch.width[k])
        {
            within -= batch.width[k];
            ++k;
        }
        output[row * batch.outputWidth + batch.column[k] + within]
            = static_cast<T const*>(batch.data[k])[row * batch.width[k] + within];
    }
}

//! Joins `inputs` along `axis` (negative counts from the end). Inputs agree with the output on every other dim and
//! share its byte-addressable type; empty inputs are allowed. One kernel per 16 inputs.
void concatenationOnDevice(
    int32_t axis, std::vector<ConstTensorView> const& inputs, TensorView const& output, cudaStream_t stream)
{
    int32_t const rank = output.rank();
    if (axis < -rank || axis >= rank)
    {
        throw std::invalid_argument(
            "concatenation: axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    }
    auto const a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
    int64_t outer = 1;
    int64_t inner = 1;
    for (size_t d = 0; d < output.shape.size(); ++d)
    {
        if (d < a)
        {
            outer *= output.shape[d];
        }
        else if (d > a)
        {
            inner *= output.shape[d];
        }
    }
    int64_t total = 0;
    for (auto const& input : inputs)
    {
        bool agrees = input.type == output.type && input.rank() == rank;
        for (size_t d = 0; agrees && d < output.shape.size(); ++d)
        {
            agrees = d == a || input.shape[d] == output.shape[d];
        }
        if (!agrees)
        {
            throw std::invalid_argument("concatenation: an input differs from the output off the axis, or in type");
        }
        total += input.shape[a];
    }
    if (total != output.shape[a])
    {
        throw std::invalid_argument("concatenation: the inputs' extents along the axis do not add up to the output's");
    }
    if (output.count() == 0)
    {
        return;
    }
    int64_t column = 0;
    for (size_t first = 0; first < inputs.size(); first += kInputsPerLaunch)
    {
        Batch batch;
        batch.outputWidth = output.shape[a] * inner;
        for (size_t k = first; k < inputs.size() && k < first + kInputsPerLaunch; ++k)
        {
            int64_t const width = inputs[k].shape[a] * inner;
            if (width > 0) // empty inputs add nothing and would stall the kernel's search
            {
                batch.data[batch.count] = inputs[k].data;
                batch.width[batch.count] = width;
                batch.column[batch.count] = column;
                batch.batchWidth += width;
                ++batch.count;
            }
            column += width;
        }
        int64_t const count = outer * batch.batchWidth;
        if (count == 0)
        {
            continue;
        }
        device::withElementOfSize(elementSize(output.type), "concatenation", [&](auto element) {
            using T = decltype(element);
            concatenationKernel<T><<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
                batch, static_cast<T*>(output.data), count);
        });
        check(cudaGetLastError(), "concatenation: launching the kernel");
    }
}

} // namespace

void run(network::ConcatenationParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream)
{
    concatenationOnDevice(params.axis, inputs, outputs[0], stream);
}

} // namespace kiln::cuda
