#include "backend/cuda/kernels/tensor/reformat.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/kernels.h"
#include "backend/shared/channel_order.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::DataType;

constexpr int kTile = 32;
constexpr int kRowsPerPass = 8; //!< a block is kTile x kRowsPerPass threads; each moves kTile / kRowsPerPass elements

//! An element as the tile holds it: its own bits when the type does not change (NaN payloads survive), else its
//! value as a float's bits.
__device__ unsigned int loadElement(void const* data, DataType from, DataType to, int64_t i)
{
    if (from != to)
    {
        return __float_as_uint(device::loadFloat(data, from, i));
    }
    switch (from)
    {
    case DataType::kFLOAT: return static_cast<unsigned int const*>(data)[i];
    case DataType::kINT8: return static_cast<uint8_t const*>(data)[i];
    default: return static_cast<uint16_t const*>(data)[i];
    }
}

//! An element as loadElement holds it, as the bits `to` stores (16 of them for FP16 and BF16): converted where the
//! types differ.
__device__ unsigned int storedBits(DataType from, DataType to, unsigned int element)
{
    if (from == to)
    {
        return element;
    }
    float const value = __uint_as_float(element);
    switch (to)
    {
    case DataType::kHALF: return device::floatAsHalfBits(value);
    case DataType::kBF16: return device::floatAsBf16Bits(value);
    default: return element;
    }
}

__device__ void storeElement(void* data, DataType from, DataType to, int64_t i, unsigned int element)
{
    unsigned int const bits = storedBits(from, to, element);
    switch (to)
    {
    case DataType::kFLOAT: static_cast<unsigned int*>(data)[i] = bits; break;
    case DataType::kINT8: static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(bits); break;
    default: static_cast<uint16_t*>(data)[i] = static_cast<uint16_t>(bits); break;
    }
}

//! Transposes each of the batch's rows x columns matrices through a shared-memory tile, so that both the reads and
//! the writes are coalesced, converting the type on the way. Blocks: (column tiles, row tiles, batches).
__global__ void transposeKernel(
    void const* input, DataType from, void* output, DataType to, int64_t batches, int64_t rows, int64_t columns)
{
    __shared__ unsigned int tile[kTile][kTile + 1]; // +1: the transposed reads hit distinct banks
    int64_t const row0 = static_cast<int64_t>(blockIdx.y) * kTile;
    int64_t const column0 = static_cast<int64_t>(blockIdx.x) * kTile;
    for (int64_t batch = blockIdx.z; batch < batches; batch += gridDim.z)
    {
        int64_t const base = batch * rows * columns;
        for (int r = threadIdx.y; r < kTile; r += kRowsPerPass)
        {
            int64_t const row = row0 + r;
            int64_t const column = column0 + threadIdx.x;
            if (row < rows && column < columns)
            {
                tile[r][threadIdx.x] = loadElement(input, from, to, base + row * columns + column);
            }
        }
        __syncthreads();
        // The output is columns x rows: its row is the input's column.
        for (int c = threadIdx.y; c < kTile; c += kRowsPerPass)
        {
            int64_t const column = column0 + c;
            int64_t const row = row0 + threadIdx.x;
            if (row < rows && column < columns)
            {
                storeElement(output, from, to, base + column * rows + row, tile[threadIdx.x][c]);
            }
        }
        __syncthreads(); // the tile is refilled for the next batch
    }
}

//! The same transposition where one side has fewer than kTile elements (an RGB image's 3 channels), which would
//! leave most of a tile's threads idle: a thread per element of the long side, looping over the narrow side, so
//! that the reads of each step are coalesced and each thread writes (or reads) its narrow run contiguously.
__global__ void transposeNarrowKernel(void const* input, DataType from, void* output, DataType to, int64_t batches,
    int64_t rows, int64_t columns, bool narrowRows)
{
    int64_t const length = narrowRows ? columns : rows;
    int64_t const narrow = narrowRows ? rows : columns;
    for (int64_t batch = blockIdx.y; batch < batches; batch += gridDim.y)
    {
        int64_t const base = batch * rows * columns;
        for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < length;
             i += static_cast<int64_t>(blockDim.x) * gridDim.x)
        {
            for (int64_t j = 0; j < narrow; ++j)
            {
                int64_t const row = narrowRows ? j : i;
                int64_t const column = narrowRows ? i : j;
                storeElement(output, from, to, base + column * rows + row,
                    loadElement(input, from, to, base + row * columns + column));
            }
        }
    }
}

//! Into kHWC8: one thread per position and octet of its padded channels, reading them from a kLINEAR (`linear`) or a
//! kHWC input and converting the type, writes the octet as 16-byte vectors (one for FP16 and BF16, two for FP32), so
//! that a warp's stores fill whole sectors: stored a channel at a time, an RGB image's octets took four times the
//! memory's time.
__global__ void padChannelsKernel(void const* input, DataType from, void* output, DataType to, int64_t channels,
    int64_t octets, int64_t spatial, int64_t positions, bool linear)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < positions * octets;
         i += static_cast<int64_t>(blockDim.x) * gridDim.x)
    {
        int64_t const position = i / octets;
        int64_t const firstChannel = (i - position * octets) * 8;
        int64_t const batch = position / spatial;
        int64_t const pixel = position - batch * spatial;
        unsigned int bits[8];
#pragma unroll
        for (int k = 0; k < 8; ++k)
        {
            int64_t const channel = firstChannel + k;
            bits[k] = 0; // +0 in every type
            if (channel < channels)
            {
                int64_t const at = linear ? (batch * channels + channel) * spatial + pixel
                                          : position * channels + channel;
                bits[k] = storedBits(from, to, loadElement(input, from, to, at));
            }
        }
        if (to == DataType::kFLOAT)
        {
            static_cast<uint4*>(output)[2 * i] = uint4{bits[0], bits[1], bits[2], bits[3]};
            static_cast<uint4*>(output)[2 * i + 1] = uint4{bits[4], bits[5], bits[6], bits[7]};
        }
        else
        {
            static_cast<uint4*>(output)[i] = uint4{
                bits[0] | bits[1] << 16, bits[2] | bits[3] << 16, bits[4] | bits[5] << 16, bits[6] | bits[7] << 16};
        }
    }
}

//! Between kLINEAR and a vector-major format (kCHW4, kCHW32), elements of `Element`'s size moved as they are: a
//! thread per element of the vector-major side, so that its accesses are the coalesced ones (reads when unpacking,
//! writes when packing, the padding of the last vectors written as zeros).
template <typename Element>
__global__ void vectorLayoutKernel(Element const* input, Element* output, VectorLayout layout, bool packs)
{
    int64_t const count = layout.storedCount();
    int64_t const vectors = layout.vectors();
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(blockDim.x) * gridDim.x)
    {
        // i = ((o * vectors + v) * inner + s) * width + lane
        int64_t const lane = i % layout.width;
        int64_t const s = i / layout.width % layout.inner;
        int64_t const v = i / (layout.width * layout.inner) % vectors;
        int64_t const o = i / (layout.width * layout.inner * vectors);
        int64_t const c = v * layout.width + lane;
        int64_t const linear = (o * layout.channels + c) * layout.inner + s;
        if (packs)
        {
            output[i] = c < layout.channels ? input[linear] : Element{0};
        }
        else if (c < layout.channels)
        {
            output[linear] = input[i];
        }
    }
}

//! `input` into `output`, one of them kLINEAR and the other kCHW4 or kCHW32, in one type.
void reformatVectorized(ConstTensorView const& input, TensorView const& output, cudaStream_t stream)
{
    bool const packs = backend::vectorWidth(output.format) > 0;
    TensorFormat const other = packs ? input.format : output.format;
    if ((other != TensorFormat::kLINEAR && input.format != output.format) || input.type != output.type
        || input.rank() < 3)
    {
        throw std::invalid_argument("reformat: kCHW4 and kCHW32 convert only from and into kLINEAR, in one type, "
                                    "for tensors of at least three axes");
    }
    if (input.format == output.format)
    {
        // Element for element, the padding included.
        size_t const bytes
            = static_cast<size_t>(backend::reformattedCount(input.shape, input.format)) * elementSize(input.type);
        check(cudaMemcpyAsync(output.data, input.data, bytes, cudaMemcpyDeviceToDevice, stream),
            "reformat: copying a vector-major tensor");
        return;
    }
    VectorLayout const layout = backend::vectorLayout(input.shape, packs ? output.format : input.format);
    if (layout.storedCount() == 0)
    {
        return;
    }
    unsigned const blocks = device::blocksFor(layout.storedCount());
    switch (elementSize(input.type))
    {
    case 1:
        vectorLayoutKernel<<<blocks, device::kThreadsPerBlock, 0, stream>>>(
            static_cast<uint8_t const*>(input.data), static_cast<uint8_t*>(output.data), layout, packs);
        break;
    case 2:
        vectorLayoutKernel<<<blocks, device::kThreadsPerBlock, 0, stream>>>(
            static_cast<uint16_t const*>(input.data), static_cast<uint16_t*>(output.data), layout, packs);
        break;
    case 4:
        vectorLayoutKernel<<<blocks, device::kThreadsPerBlock, 0, stream>>>(
            static_cast<uint32_t const*>(input.data), static_cast<uint32_t*>(output.data), layout, packs);
        break;
    default: throw std::invalid_argument("reformat: kCHW4 and kCHW32 take elements of 1, 2 or 4 bytes");
    }
    check(cudaGetLastError(), "reformat: launching the vector-major layout kernel");
}

//! `input` (kLINEAR or kHWC) into kHWC8 `output`.
void padChannels(ConstTensorView const& input, TensorView const& output, cudaStream_t stream)
{
    int64_t const channels = input.shape[1];
    int64_t const positions = channels == 0 ? 0 : input.count() / channels;
    if (positions == 0)
    {
        return;
    }
    int64_t const spatial = positions / input.shape[0];
    int64_t const octets = storedChannels(output.shape, TensorFormat::kHWC8) / 8;
    padChannelsKernel<<<device::blocksFor(positions * octets), device::kThreadsPerBlock, 0, stream>>>(input.data,
        input.type, output.data, output.type, channels, octets, spatial, positions,
        input.format == TensorFormat::kLINEAR);
    check(cudaGetLastError(), "reformat: launching the channel padding");
}

} // namespace

void reformatOnDevice(ConstTensorView const& input, TensorView const& output, cudaStream_t stream)
{
    if (!backend::reformattedFormat(input.format) || !backend::reformattedFormat(output.format))
    {
        throw std::invalid_argument("reformat: Kiln converts tensors between kLINEAR, kHWC, kHWC8, kCHW4 and kCHW32 "
                                    "only");
    }
    if (input.shape != output.shape)
    {
        throw std::invalid_argument("reformat: the output's shape differs from the input's");
    }
    if (backend::vectorWidth(input.format) > 0 || backend::vectorWidth(output.format) > 0)
    {
        reformatVectorized(input, output, stream);
        return;
    }
    if (input.format == output.format)
    {
        // Element for element, kHWC8's padding included.
        Shape const stored{storedCount(input.shape, input.format)};
        castOnDevice(
            ConstTensorView(input.type, stored, input.data), TensorView{output.type, stored, output.data}, stream);
        return;
    }
    // INT8 moves between kLINEAR and kHWC as it is (the CUDA backend's quantized convolutions read and write it so).
    bool const int8 = input.type == DataType::kINT8 && output.type == DataType::kINT8
        && output.format != TensorFormat::kHWC8 && input.format != TensorFormat::kHWC8;
    if (input.rank() < 3 || !(int8 || (isFloatType(input.type) && isFloatType(output.type))))
    {
        throw std::invalid_argument("reformat: moving between kLINEAR, kHWC and kHWC8 takes FP32, FP16 or BF16 "
                                    "tensors of [N, C, spatial...] (and INT8 ones between kLINEAR and kHWC); this "
                                    "one has "
            + std::to_string(input.rank()) + " axes");
    }
    if (output.count() == 0)
    {
        return;
    }
    if (output.format == TensorFormat::kHWC8)
    {
        padChannels(input, output, stream);
        return;
    }
    if (input.format == TensorFormat::kHWC8)
    {
        // Only convolutions read kHWC8, and nothing writes it but this reformat.
        throw std::invalid_argument("reformat: the CUDA backend converts into kHWC8, not out of it");
    }
    int64_t const batches = input.shape[0];
    int64_t const channels = input.shape[1];
    int64_t const spatial = input.count() / (batches * channels);
    bool const toChannelsLast = output.format == TensorFormat::kHWC;
    int64_t const rows = toChannelsLast ? channels : spatial;
    int64_t const columns = toChannelsLast ? spatial : channels;
    if (rows < kTile || columns < kTile)
    {
        int64_t const length = rows < kTile ? columns : rows;
        dim3 const grid(device::blocksFor(length), static_cast<unsigned>(std::min<int64_t>(batches, 65535)));
        transposeNarrowKernel<<<grid, device::kThreadsPerBlock, 0, stream>>>(
            input.data, input.type, output.data, output.type, batches, rows, columns, rows < kTile);
        check(cudaGetLastError(), "reformat: launching the kernel");
        return;
    }
    int64_t const rowTiles = (rows + kTile - 1) / kTile;
    int64_t const columnTiles = (columns + kTile - 1) / kTile;
    if (rowTiles > 65535 || columnTiles > int64_t{0x7FFFFFFF})
    {
        throw std::invalid_argument(
            "reformat: the tensor has more channels or spatial positions than one launch covers");
    }
    dim3 const grid(static_cast<unsigned>(columnTiles), static_cast<unsigned>(rowTiles),
        static_cast<unsigned>(std::min<int64_t>(batches, 65535)));
    transposeKernel<<<grid, dim3(kTile, kRowsPerPass), 0, stream>>>(
        input.data, input.type, output.data, output.type, batches, rows, columns);
    check(cudaGetLastError(), "reformat: launching the kernel");
}

} // namespace kiln::cuda
