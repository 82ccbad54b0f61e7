// IShuffleLayer on the GPU: first transpose, reshape, second transpose, as the CPU reference
// (backend/cpu/kernels/tensor/shuffle.h). The runtime has already resolved the output shape
// (placeholders, -1, a shape-tensor input), so the reshape is only a reinterpretation. A shuffle that permutes axes
// (axis_permutation.h) moves whole rows in vectors of up to 16 bytes when the innermost axis stays innermost (the
// attention heads' split and merge, (0, 2, 1, 3)), and goes through 32x32 tiles in shared memory when it moves, so
// that reads and writes are both coalesced; other shuffles take a kernel that finds each element's source alone.
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/axis_permutation.h"
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/device_access.cuh"
#include "backend/cuda/strided_index.cuh"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
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

//! The innermost axis stays innermost: rows of `rowVectors` vectors move as units. Output row r (linear over the
//! output's outer axes, `rows.extents`) is input row stridedOffset(r, rows), strides counted in rows.
template <typename V, typename Index>
__global__ void moveRowsKernel(V const* input, V* output, StridedShape rows, Index rowVectors, Index count)
{
    for (Index v = blockIdx.x * static_cast<Index>(blockDim.x) + threadIdx.x; v < count;
         v += static_cast<Index>(blockDim.x) * gridDim.x)
    {
        Index const row = v / rowVectors;
        Index sourceRow = 0;
        Index rest = row;
        for (int32_t axis = rows.rank - 1; axis >= 0; --axis)
        {
            auto const extent = static_cast<Index>(rows.extents[axis]);
            sourceRow += rest % extent * static_cast<Index>(rows.strides[axis]);
            rest /= extent;
        }
        output[v] = input[sourceRow * rowVectors + (v - row * rowVectors)];
    }
}

constexpr int kTile = 32;
constexpr int kTileRowsPerPass = 8; //!< a block is kTile x kTileRowsPerPass threads; each moves four elements

//! The innermost axis moves: a batch of matrices, each `rows` x `columns` in the input (columns contiguous, rows
//! `inRowStride` apart) and transposed in the output (rows contiguous, columns `outColumnStride` apart), the batch
//! along the other axes. Each block moves 32x32 tiles through shared memory.
struct TileMove
{
    int64_t rows{0};
    int64_t columns{0};
    int64_t inRowStride{0};
    int64_t outColumnStride{0};
    int64_t tileRows{0};    //!< tiles along the rows
    int64_t tileColumns{0}; //!< and along the columns
    int64_t tiles{0};       //!< in all, the batch included
    int32_t batchRank{0};
    int64_t batchExtents[device::kMaxRank]{};
    int64_t batchInStrides[device::kMaxRank]{};
    int64_t batchOutStrides[device::kMaxRank]{};
};

template <typename T>
__global__ void __launch_bounds__(kTile* kTileRowsPerPass)
    transposeTilesKernel(T const* input, T* output, TileMove move)
{
    __shared__ T tile[kTile][kTile + 1]; // the extra column keeps a column's reads in distinct banks
    int64_t const tilesPerMatrix = move.tileRows * move.tileColumns;
    for (int64_t t = blockIdx.x; t < move.tiles; t += gridDim.x)
    {
        int64_t batch = t / tilesPerMatrix;
        int64_t const within = t - batch * tilesPerMatrix;
        int64_t const row0 = within / move.tileColumns * kTile;
        int64_t const column0 = within % move.tileColumns * kTile;
        int64_t inBase = 0;
        int64_t outBase = 0;
        for (int32_t axis = move.batchRank - 1; axis >= 0; --axis)
        {
            int64_t const coordinate = batch % move.batchExtents[axis];
            batch /= move.batchExtents[axis];
            inBase += coordinate * move.batchInStrides[axis];
            outBase += coordinate * move.batchOutStrides[axis];
        }
        for (int j = threadIdx.y; j < kTile; j += kTileRowsPerPass)
        {
            int64_t const row = row0 + j;
            int64_t const column = column0 + threadIdx.x;
            if (row < move.rows && column < move.columns)
            {
                tile[j][threadIdx.x] = input[inBase + row * move.inRowStride + column];
            }
        }
        __syncthreads();
        for (int j = threadIdx.y; j < kTile; j += kTileRowsPerPass)
        {
            int64_t const column = column0 + j;
            int64_t const row = row0 + threadIdx.x;
            if (row < move.rows && column < move.columns)
            {
                output[outBase + column * move.outColumnStride + row] = tile[threadIdx.x][j];
            }
        }
        __syncthreads(); // the tile is refilled for the next one
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

void copyWhole(ConstTensorView const& input, TensorView const& output, cudaStream_t stream)
{
    size_t const bytes = static_cast<size_t>(output.count()) * elementSize(input.type);
    check(cudaMemcpyAsync(output.data, input.data, bytes, cudaMemcpyDeviceToDevice, stream), "shuffle: copying");
}

//! Any shuffle: each output element's source found through both transposes (shuffleKernel).
void moveEachElement(std::vector<int32_t> const& firstTranspose, std::vector<int32_t> const& secondTranspose,
    ConstTensorView const& input, TensorView const& output, cudaStream_t stream)
{
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
    int64_t const count = output.count();
    device::withElementOfSize(elementSize(input.type), "shuffle", [&](auto element) {
        using T = decltype(element);
        shuffleKernel<T>
            <<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(static_cast<T const*>(input.data),
                static_cast<T*>(output.data), reshaped, transposed, firstIsIdentity, count);
    });
}

//! The output's extents and, for each output axis, the input's stride along it.
struct PermutedStrides
{
    std::vector<int64_t> extents;
    std::vector<int64_t> inputStrides;
};

PermutedStrides permutedStrides(AxisPermutation const& p)
{
    std::vector<int64_t> const strides = device::rowMajorStrides(p.extents);
    PermutedStrides permuted{std::vector<int64_t>(p.order.size()), std::vector<int64_t>(p.order.size())};
    for (size_t i = 0; i < p.order.size(); ++i)
    {
        permuted.extents[i] = p.extents[static_cast<size_t>(p.order[i])];
        permuted.inputStrides[i] = strides[static_cast<size_t>(p.order[i])];
    }
    return permuted;
}

//! A permutation that keeps the innermost axis: rows moved in the widest vectors that divide a row and both tensors'
//! alignment (16 bytes for the 64-element FP16 rows of attention heads).
void moveRows(AxisPermutation const& p, ConstTensorView const& input, TensorView const& output, cudaStream_t stream)
{
    auto const rowBytes = static_cast<uint64_t>(p.extents.back()) * elementSize(input.type);
    uint64_t const address = reinterpret_cast<uintptr_t>(input.data) | reinterpret_cast<uintptr_t>(output.data);
    uint64_t width = 16;
    while (width > 1 && (rowBytes % width != 0 || address % width != 0))
    {
        width /= 2;
    }
    // The outer axes, in rows: the input's row-major strides over its axes but the innermost.
    AxisPermutation outer{std::vector<int64_t>(p.extents.begin(), p.extents.end() - 1),
        std::vector<int32_t>(p.order.begin(), p.order.end() - 1)};
    PermutedStrides const rows = permutedStrides(outer);
    StridedShape const shape = device::makeStridedShape(rows.extents, rows.inputStrides);
    auto const rowVectors = static_cast<int64_t>(rowBytes / width);
    int64_t const count = output.count() * static_cast<int64_t>(elementSize(input.type)) / static_cast<int64_t>(width);
    auto const launch = [&](auto vector) {
        using V = decltype(vector);
        auto const* from = static_cast<V const*>(input.data);
        auto* to = static_cast<V*>(output.data);
        if (count <= INT32_MAX) // grid-stride steps stay below 2^32 past any index
        {
            moveRowsKernel<V, uint32_t><<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
                from, to, shape, static_cast<uint32_t>(rowVectors), static_cast<uint32_t>(count));
        }
        else
        {
            moveRowsKernel<V, int64_t>
                <<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(from, to, shape, rowVectors, count);
        }
    };
    switch (width)
    {
    case 16: launch(uint4{}); break;
    case 8: launch(uint2{}); break;
    case 4: launch(uint32_t{}); break;
    case 2: launch(uint16_t{}); break;
    default: launch(uint8_t{}); break;
    }
}

//! A permutation that moves the innermost axis, both tile axes at least a quarter tile long: through shared memory.
void transposeTiles(
    AxisPermutation const& p, ConstTensorView const& input, TensorView const& output, cudaStream_t stream)
{
    auto const rank = static_cast<int32_t>(p.extents.size());
    std::vector<int64_t> const inputStrides = device::rowMajorStrides(p.extents);
    std::vector<int64_t> const outputStrides = device::rowMajorStrides(permutedStrides(p).extents);
    std::vector<int32_t> position(p.order.size()); // where each input axis lies in the output
    for (size_t i = 0; i < p.order.size(); ++i)
    {
        position[static_cast<size_t>(p.order[i])] = static_cast<int32_t>(i);
    }
    auto const inner = static_cast<size_t>(rank - 1);
    auto const outputInner = static_cast<size_t>(p.order.back()); // the input axis the output keeps innermost
    TileMove move;
    move.rows = p.extents[outputInner];
    move.columns = p.extents[inner];
    move.inRowStride = inputStrides[outputInner];
    move.outColumnStride = outputStrides[static_cast<size_t>(position[inner])];
    move.tileRows = (move.rows + kTile - 1) / kTile;
    move.tileColumns = (move.columns + kTile - 1) / kTile;
    int64_t batches = 1;
    for (size_t axis = 0; axis < inner; ++axis)
    {
        if (axis != outputInner)
        {
            move.batchExtents[move.batchRank] = p.extents[axis];
            move.batchInStrides[move.batchRank] = inputStrides[axis];
            move.batchOutStrides[move.batchRank] = outputStrides[static_cast<size_t>(position[axis])];
            ++move.batchRank;
            batches *= p.extents[axis];
        }
    }
    move.tiles = batches * move.tileRows * move.tileColumns;
    unsigned const blocks = static_cast<unsigned>(move.tiles < 65535 * 8 ? move.tiles : 65535 * 8);
    device::withElementOfSize(elementSize(input.type), "shuffle", [&](auto element) {
        using T = decltype(element);
        transposeTilesKernel<T><<<blocks, dim3(kTile, kTileRowsPerPass), 0, stream>>>(
            static_cast<T const*>(input.data), static_cast<T*>(output.data), move);
    });
}

//! Any other permutation: each output element's source along the simplified axes (shuffleKernel's single step).
void gatherPermuted(
    AxisPermutation const& p, ConstTensorView const& input, TensorView const& output, cudaStream_t stream)
{
    PermutedStrides const permuted = permutedStrides(p);
    StridedShape const shape = device::makeStridedShape(permuted.extents, permuted.inputStrides);
    int64_t const count = output.count();
    device::withElementOfSize(elementSize(input.type), "shuffle", [&](auto element) {
        using T = decltype(element);
        shuffleKernel<T><<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
            static_cast<T const*>(input.data), static_cast<T*>(output.data), shape, shape, true, count);
    });
}

//! `firstTranspose` has one entry per input dim, `secondTranspose` one per output dim (out.shape[i] =
//! reshaped[secondTranspose[i]]). Every byte-addressable type; input and output share it. One kernel, or one
//! device-to-device copy when the shuffle moves no element.
void shuffleOnDevice(std::vector<int32_t> const& firstTranspose, std::vector<int32_t> const& secondTranspose,
    ConstTensorView const& input, TensorView const& output, cudaStream_t stream)
{
    requirePermutation(firstTranspose, input.shape.size(), "first");
    requirePermutation(secondTranspose, output.shape.size(), "second");
    if (input.type != output.type || input.count() != output.count())
    {
        throw std::invalid_argument("shuffle: the output must have the input's type and element count");
    }
    if (output.count() == 0)
    {
        return;
    }
    device::withElementOfSize(elementSize(input.type), "shuffle", [](auto) {}); // refuses sub-byte types
    std::vector<int64_t> reshaped(output.shape.size());
    for (size_t i = 0; i < output.shape.size(); ++i)
    {
        reshaped[static_cast<size_t>(secondTranspose[i])] = output.shape[i];
    }
    std::optional<AxisPermutation> const permutation
        = shuffleAsPermutation(firstTranspose, secondTranspose, input.shape, reshaped);
    if (!permutation)
    {
        moveEachElement(firstTranspose, secondTranspose, input, output, stream);
        check(cudaGetLastError(), "shuffle: launching the kernel");
        return;
    }
    AxisPermutation const simple = simplifyPermutation(*permutation);
    size_t const rank = simple.order.size();
    if (rank == 1)
    {
        copyWhole(input, output, stream);
        return;
    }
    bool const tiles = std::min(simple.extents[static_cast<size_t>(simple.order.back())], simple.extents.back())
        >= kTile / 4;
    if (simple.order.back() == static_cast<int32_t>(rank - 1))
    {
        moveRows(simple, input, output, stream);
    }
    else if (tiles)
    {
        transposeTiles(simple, input, output, stream);
    }
    else
    {
        gatherPermuted(simple, input, output, stream);
    }
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
