// INonZeroLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/non_zero.h): the positions of the
// non-zero elements as the columns of an [input rank, count] matrix, in row-major order of the elements, and the
// count. CUB's stable selection gathers the flat positions of the non-zero elements and counts them (in scratch
// memory kept for the context); a second kernel writes each position's coordinates at its column, and the count in
// the output's type. The execution context then reads the count back to the host, which the layers after need.
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/memory/device_buffer.h"
#include "core/element_non_zero.h"

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::DataType;

//! The input's extents, for unravelling a flat position on the device.
struct Extents
{
    int64_t d[nvinfer1::Dims::MAX_DIMS]{};
    int32_t rank{0};
};

//! Selects the flat positions whose element is non-zero.
struct IsNonZero
{
    void const* data;
    DataType type;

    __device__ bool operator()(int64_t position) const
    {
        return elementIsNonZero(data, type, position);
    }
};

__global__ void writeCoordinatesKernel(int64_t const* positions, int64_t const* found, Extents extents,
    int64_t capacity, void* indices, DataType indicesType, void* count, DataType countType)
{
    int64_t const columns = *found;
    if (blockIdx.x == 0 && threadIdx.x == 0)
    {
        device::storeInteger(count, countType, 0, columns);
    }
    int64_t const stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < columns && j < capacity;
         j += stride)
    {
        int64_t rest = positions[j];
        for (int32_t r = extents.rank - 1; r >= 0; --r)
        {
            device::storeInteger(indices, indicesType, r * columns + j, rest % extents.d[r]);
            rest /= extents.d[r];
        }
    }
}

//! Throws std::invalid_argument, as the CPU reference does, unless the outputs can hold every element's position.
void checkViews(ConstTensorView const& input, TensorView const& indices, TensorView const& count)
{
    std::string const kernel = "nonZero: ";
    if (elementSize(input.type) == 0 || input.type == DataType::kFP8 || input.type == DataType::kE8M0)
    {
        throw std::invalid_argument(kernel + "input type " + dataTypeName(input.type) + " is not supported");
    }
    if (!isIndexType(indices.type) || !isIndexType(count.type) || count.rank() != 0)
    {
        throw std::invalid_argument(kernel + "indices must be INT32 or INT64 and count a 0-D INT32 or INT64 tensor");
    }
    if (indices.rank() != 2 || indices.shape[0] != input.rank() || indices.shape[1] < input.count())
    {
        throw std::invalid_argument(kernel + "indices have no room for the position of every input element");
    }
    for (int64_t extent : input.shape)
    {
        if (indices.type == DataType::kINT32 && extent - 1 > std::numeric_limits<int32_t>::max())
        {
            throw std::invalid_argument(
                kernel + "an extent of " + std::to_string(extent) + " has indices that INT32 cannot hold");
        }
    }
}

class NonZeroLayer final : public DeviceLayer
{
public:
    void run(std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs,
        cudaStream_t stream) override
    {
        ConstTensorView const& input = inputs.at(0);
        checkViews(input, outputs.at(0), outputs.at(1));
        int64_t const elements = input.count();
        thrust::counting_iterator<int64_t> const firstPosition(0);
        IsNonZero const select{input.data, input.type};
        size_t temporaryBytes = 0;
        check(cub::DeviceSelect::If(nullptr, temporaryBytes, firstPosition, static_cast<int64_t*>(nullptr),
                  static_cast<int64_t*>(nullptr), elements, select, stream),
            "nonZero: sizing the selection");
        size_t const positionBytes = alignUp(static_cast<size_t>(elements) * sizeof(int64_t));
        mScratch.reserve(positionBytes + alignUp(sizeof(int64_t)) + temporaryBytes, stream);
        auto* const positions = reinterpret_cast<int64_t*>(mScratch.data());
        auto* const found = reinterpret_cast<int64_t*>(mScratch.data() + positionBytes);
        void* const temporary = mScratch.data() + positionBytes + alignUp(sizeof(int64_t));
        check(
            cub::DeviceSelect::If(temporary, temporaryBytes, firstPosition, positions, found, elements, select, stream),
            "nonZero: selecting the non-zero elements");
        Extents extents;
        extents.rank = input.rank();
        for (int32_t r = 0; r < extents.rank; ++r)
        {
            extents.d[r] = input.shape[static_cast<size_t>(r)];
        }
        writeCoordinatesKernel<<<device::blocksFor(elements), device::kThreadsPerBlock, 0, stream>>>(
            positions, found, extents, elements, outputs[0].data, outputs[0].type, outputs[1].data, outputs[1].type);
        check(cudaGetLastError(), "nonZero: launching the coordinates' kernel");
    }

private:
    static size_t alignUp(size_t bytes)
    {
        constexpr size_t kAlignment = 256;
        return (bytes + kAlignment - 1) / kAlignment * kAlignment;
    }

    DeviceBuffer mScratch; //!< the positions, their count and CUB's temporary storage; grown as inputs grow
};

} // namespace

std::unique_ptr<DeviceLayer> lower(network::NonZeroParams const& /*params*/, LayerContext const& /*context*/)
{
    return std::make_unique<NonZeroLayer>();
}

} // namespace kiln::cuda
