// IConcatenationLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/concatenation.h). Seen in the
// order the output is stored, a concatenation copies each input's rows into columns of the output's rows: for
// channels-last tensors joined along the channels, [N * H * W, C_k] into [N * H * W, C]. Rows are copied in the widest
// unit (up to 16 bytes) that every row, column and address allows.
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/storage_order.h"
#include "backend/cuda/kernels/strided_index.cuh"
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/prepared_kernel_layer.h"

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

//! One launch: a batch of inputs, the output and the units it writes (elements, or the wider unit they allow).
struct Launch
{
    Batch batch;
    void* output{nullptr};
    size_t unitBytes{0};
    int64_t count{0};
};

//! Whether `value` bytes, or an address, is a multiple of `unit`.
bool multipleOf(uintptr_t value, size_t unit)
{
    return value % unit == 0;
}

//! The widest unit, at most 16 bytes, that divides every row, column and address of `launch` (widths in elements of
//! `elementBytes`), and the launch rewritten in that unit.
void widenUnits(Launch& launch, size_t elementBytes)
{
    Batch& batch = launch.batch;
    size_t unit = 16;
    while (unit > elementBytes)
    {
        bool fits = multipleOf(reinterpret_cast<uintptr_t>(launch.output), unit)
            && multipleOf(static_cast<uintptr_t>(batch.outputWidth) * elementBytes, unit);
        for (int32_t k = 0; fits && k < batch.count; ++k)
        {
            fits = multipleOf(reinterpret_cast<uintptr_t>(batch.data[k]), unit)
                && multipleOf(static_cast<uintptr_t>(batch.width[k]) * elementBytes, unit)
                && multipleOf(static_cast<uintptr_t>(batch.column[k]) * elementBytes, unit);
        }
        if (fits)
        {
            break;
        }
        unit /= 2;
    }
    auto const perUnit = static_cast<int64_t>(unit / elementBytes);
    for (int32_t k = 0; k < batch.count; ++k)
    {
        batch.width[k] /= perUnit;
        batch.column[k] /= perUnit;
    }
    batch.batchWidth /= perUnit;
    batch.outputWidth /= perUnit;
    launch.count /= perUnit;
    launch.unitBytes = unit;
}

//! The logical axis `a` of tensors stored like `output`, seen as [outer, extent, inner] in storage order.
void splitAround(TensorView const& output, size_t a, int64_t& outer, int64_t& inner)
{
    size_t const rank = output.shape.size();
    outer = 1;
    inner = 1;
    bool past = false;
    for (size_t position = 0; position < rank; ++position)
    {
        size_t const axis = storedAxisAt(output.format, rank, position);
        if (axis == a)
        {
            past = true;
        }
        else
        {
            (past ? inner : outer) *= output.shape[axis];
        }
    }
}

//! Joins `inputs` along `axis` (negative counts from the end). Inputs agree with the output on every other dim and
//! share its byte-addressable type and its format (kLINEAR or kHWC); empty inputs are allowed. Its launches (one kernel
//! per 16 inputs) go into `launches`.
void prepareConcatenation(
    int32_t axis, std::vector<ConstTensorView> const& inputs, TensorView const& output, std::vector<Launch>& launches)
{
    launches.clear(); // keeps its memory: preparing again allocates nothing
    int32_t const rank = output.rank();
    if (axis < -rank || axis >= rank)
    {
        throw std::invalid_argument(
            "concatenation: axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    }
    auto const a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
    if (output.format != TensorFormat::kLINEAR && output.format != TensorFormat::kHWC)
    {
        throw std::invalid_argument("concatenation: the CUDA backend writes kLINEAR or kHWC");
    }
    int64_t outer = 1;
    int64_t inner = 1;
    splitAround(output, a, outer, inner);
    int64_t total = 0;
    for (auto const& input : inputs)
    {
        if (input.format != output.format)
        {
            throw std::invalid_argument("concatenation: an input is stored in another format than the output");
        }
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
    device::withElementOfSize(elementSize(output.type), "concatenation", [](auto) {}); // refuses other sizes now
    int64_t column = 0;
    for (size_t first = 0; first < inputs.size(); first += kInputsPerLaunch)
    {
        Launch launch;
        Batch& batch = launch.batch;
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
        launch.count = outer * batch.batchWidth;
        if (launch.count > 0)
        {
            launch.output = output.data;
            widenUnits(launch, elementSize(output.type));
            launches.push_back(launch);
        }
    }
}

class ConcatenationLayer final : public PreparedKernelLayer
{
public:
    explicit ConcatenationLayer(network::ConcatenationParams const& params)
        : mAxis(params.axis)
    {
    }

private:
    void prepare(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        prepareConcatenation(mAxis, inputs, outputs[0], mLaunches);
    }

    void launch(cudaStream_t stream) override
    {
        for (Launch const& launch : mLaunches)
        {
            auto const copy = [&](auto unit) {
                using T = decltype(unit);
                concatenationKernel<T><<<device::blocksFor(launch.count), device::kThreadsPerBlock, 0, stream>>>(
                    launch.batch, static_cast<T*>(launch.output), launch.count);
            };
            if (launch.unitBytes == sizeof(uint4))
            {
                copy(uint4{});
            }
            else
            {
                device::withElementOfSize(launch.unitBytes, "concatenation", copy);
            }
            check(cudaGetLastError(), "concatenation: launching the kernel");
        }
    }

    int32_t mAxis;
    std::vector<Launch> mLaunches; //!< one per 16 inputs that hold values
};

} // namespace

std::unique_ptr<DeviceLayer> lower(network::ConcatenationParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<ConcatenationLayer>(params);
}

} // namespace kiln::cuda
