// IShuffleLayer on the GPU: first transpose, reshape, second transpose, as the CPU reference
// (backend/cpu/kernels/tensor/shuffle.h). The runtime has already resolved the output shape
// (placeholders, -1, a shape-tensor input), so the reshape is only a reinterpretation. A shuffle that permutes axes
// (axis_permutation.h) moves whole rows in vectors of up to 16 bytes when the innermost axis stays innermost (the
// attention heads' split and merge, (0, 2, 1, 3)), and goes through 32x32 tiles in shared memory when it moves, so
// that reads and writes are both coalesced; other shuffles take a kernel that finds each element's source alone. A
// shuffle that moves no element is a copy (copy.cu), where views (builder/view_layers.h) have not made it nothing.
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/kernels.h"
#include "backend/cuda/kernels/strided_index.cuh"
#include "backend/cuda/kernels/tensor/axis_permutation.h"
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/prepared_kernel_layer.h"

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

bool isIdentity(int32_t const* order, size_t rank)
{
    for (size_t i = 0; i < rank; ++i)
    {
        if (order[i] != static_cast<int32_t>(i))
        {
            return false;
        }
    }
    return true;
}

//! Checks that `order` permutes `rank` dims (at most nvinfer1::Dims::MAX_DIMS).
void requirePermutation(int32_t const* order, size_t rank, char const* which)
{
    bool seen[nvinfer1::Dims::MAX_DIMS]{};
    bool valid = rank <= static_cast<size_t>(nvinfer1::Dims::MAX_DIMS);
    for (size_t i = 0; valid && i < rank; ++i)
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

//! Row-major strides of the `rank` extents.
void rowMajorStrides(int64_t const* extents, size_t rank, int64_t* strides)
{
    int64_t stride = 1;
    for (size_t axis = rank; axis-- > 0;)
    {
        strides[axis] = stride;
        stride *= extents[axis];
    }
}

//! Which kernel a shuffle runs.
enum class ShuffleMove
{
    kNOTHING,      //!< no element
    kCOPY,         //!< no element moves: a copy
    kEACH_ELEMENT, //!< not one permutation: each element's source through both transposes
    kROWS,         //!< a permutation that keeps the innermost axis: whole rows in vectors
    kTILES,        //!< a permutation that moves the innermost axis: 32x32 tiles through shared memory
    kGATHER,       //!< any other permutation: each element's source along the simplified axes
};

//! How a shuffle moves its elements and its kernel's arguments, worked out from its shapes and element size alone.
struct ShufflePlan
{
    ShuffleMove move{ShuffleMove::kNOTHING};
    //! kEACH_ELEMENT: shuffleKernel's two steps; kGATHER: its one step, along the simplified axes.
    StridedShape reshaped;
    StridedShape transposed;
    bool firstIsIdentity{false};
    StridedShape rows; //!< kROWS: the outer axes, strides counted in rows
    uint64_t rowBytes{0};
    TileMove tiles;     //!< kTILES
    unsigned blocks{0}; //!< the grid of every kernel but the row kernel's, whose vectors depend on the addresses
};

//! Any shuffle: each output element's source found through both transposes (shuffleKernel).
void planEachElement(int32_t const* first, int32_t const* second, ConstTensorView const& input,
    TensorView const& output, ShufflePlan& plan)
{
    size_t const inRank = input.shape.size();
    size_t const outRank = output.shape.size();
    // The reshape's result, in which the second transpose picks: reshaped[second[i]] = out.shape[i].
    int64_t reshapedExtents[nvinfer1::Dims::MAX_DIMS]{};
    for (size_t i = 0; i < outRank; ++i)
    {
        reshapedExtents[second[i]] = output.shape[i];
    }
    int64_t reshapedStrides[nvinfer1::Dims::MAX_DIMS]{};
    rowMajorStrides(reshapedExtents, outRank, reshapedStrides);
    plan.reshaped.rank = static_cast<int32_t>(outRank);
    for (size_t i = 0; i < outRank; ++i)
    {
        plan.reshaped.extents[i] = output.shape[i];
        plan.reshaped.strides[i] = reshapedStrides[second[i]];
    }
    // The first transpose's result, row-major, read through the input's strides.
    int64_t inputStrides[nvinfer1::Dims::MAX_DIMS]{};
    rowMajorStrides(input.shape.data(), inRank, inputStrides);
    plan.transposed.rank = static_cast<int32_t>(inRank);
    for (size_t i = 0; i < inRank; ++i)
    {
        plan.transposed.extents[i] = input.shape[first[i]];
        plan.transposed.strides[i] = inputStrides[first[i]];
    }
    plan.firstIsIdentity = isIdentity(first, inRank);
    plan.blocks = device::blocksFor(output.count());
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

//! A permutation that keeps the innermost axis: rows moved as units (their vectors' width, bindRows).
void planRows(AxisPermutation const& p, size_t elementBytes, ShufflePlan& plan)
{
    plan.rowBytes = static_cast<uint64_t>(p.extents.back()) * elementBytes;
    // The outer axes, in rows: the input's row-major strides over its axes but the innermost.
    AxisPermutation outer{std::vector<int64_t>(p.extents.begin(), p.extents.end() - 1),
        std::vector<int32_t>(p.order.begin(), p.order.end() - 1)};
    PermutedStrides const rows = permutedStrides(outer);
    plan.rows = device::makeStridedShape(rows.extents, rows.inputStrides);
}

//! A permutation that moves the innermost axis, both tile axes at least a quarter tile long: through shared memory.
void planTiles(AxisPermutation const& p, ShufflePlan& plan)
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
    TileMove& move = plan.tiles;
    move = TileMove{};
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
    plan.blocks = static_cast<unsigned>(move.tiles < 65535 * 8 ? move.tiles : 65535 * 8);
}

//! Any other permutation: each output element's source along the simplified axes (shuffleKernel's single step).
void planGather(AxisPermutation const& p, int64_t count, ShufflePlan& plan)
{
    PermutedStrides const permuted = permutedStrides(p);
    plan.reshaped = device::makeStridedShape(permuted.extents, permuted.inputStrides);
    plan.transposed = plan.reshaped;
    plan.firstIsIdentity = true;
    plan.blocks = device::blocksFor(count);
}

//! The kernel for a shuffle of `input` into `output` (checked, with elements), and its arguments. Allocates (the
//! permutation's simplification): run when the shapes change, not when only the addresses do.
ShufflePlan planShuffle(
    int32_t const* firstOrder, int32_t const* secondOrder, ConstTensorView const& input, TensorView const& output)
{
    ShufflePlan plan;
    std::vector<int32_t> const first(firstOrder, firstOrder + input.shape.size());
    std::vector<int32_t> const second(secondOrder, secondOrder + output.shape.size());
    std::vector<int64_t> reshaped(output.shape.size());
    for (size_t i = 0; i < output.shape.size(); ++i)
    {
        reshaped[static_cast<size_t>(second[i])] = output.shape[i];
    }
    std::optional<AxisPermutation> const permutation = shuffleAsPermutation(first, second, input.shape, reshaped);
    if (!permutation)
    {
        plan.move = ShuffleMove::kEACH_ELEMENT;
        planEachElement(firstOrder, secondOrder, input, output, plan);
        return plan;
    }
    AxisPermutation const simple = simplifyPermutation(*permutation);
    size_t const rank = simple.order.size();
    if (rank == 1)
    {
        plan.move = ShuffleMove::kCOPY;
        return plan;
    }
    bool const tiles = std::min(simple.extents[static_cast<size_t>(simple.order.back())], simple.extents.back())
        >= kTile / 4;
    if (simple.order.back() == static_cast<int32_t>(rank - 1))
    {
        plan.move = ShuffleMove::kROWS;
        planRows(simple, elementSize(input.type), plan);
    }
    else if (tiles)
    {
        plan.move = ShuffleMove::kTILES;
        planTiles(simple, plan);
    }
    else
    {
        plan.move = ShuffleMove::kGATHER;
        planGather(simple, output.count(), plan);
    }
    return plan;
}

//! The row kernel's launch for one pair of addresses: the widest vectors that divide a row and both tensors'
//! alignment (16 bytes for the 64-element FP16 rows of attention heads).
struct RowLaunch
{
    uint64_t width{1};
    int64_t rowVectors{0};
    int64_t count{0}; //!< vectors in all
    unsigned blocks{0};
};

RowLaunch bindRows(ShufflePlan const& plan, void const* input, void* output, int64_t bytes)
{
    uint64_t const address = reinterpret_cast<uintptr_t>(input) | reinterpret_cast<uintptr_t>(output);
    RowLaunch launch;
    launch.width = 16;
    while (launch.width > 1 && (plan.rowBytes % launch.width != 0 || address % launch.width != 0))
    {
        launch.width /= 2;
    }
    launch.rowVectors = static_cast<int64_t>(plan.rowBytes / launch.width);
    launch.count = bytes / static_cast<int64_t>(launch.width);
    launch.blocks = device::blocksFor(launch.count);
    return launch;
}

template <typename V>
void launchRows(StridedShape const& rows, RowLaunch const& launch, void const* input, void* output, cudaStream_t stream)
{
    auto const* from = static_cast<V const*>(input);
    auto* to = static_cast<V*>(output);
    if (launch.count <= INT32_MAX) // grid-stride steps stay below 2^32 past any index
    {
        moveRowsKernel<V, uint32_t><<<launch.blocks, device::kThreadsPerBlock, 0, stream>>>(
            from, to, rows, static_cast<uint32_t>(launch.rowVectors), static_cast<uint32_t>(launch.count));
    }
    else
    {
        moveRowsKernel<V, int64_t>
            <<<launch.blocks, device::kThreadsPerBlock, 0, stream>>>(from, to, rows, launch.rowVectors, launch.count);
    }
}

//! The layer's first transpose has one entry per input dim, its second one per output dim (out.shape[i] =
//! reshaped[secondTranspose[i]]). Every byte-addressable type; input and output share it. One kernel. The plan is
//! made again only when the shapes or the type change; new addresses only rebind it, allocating nothing.
class ShuffleLayer final : public PreparedKernelLayer
{
public:
    explicit ShuffleLayer(network::ShuffleParams const& params)
        : mParams(params)
    {
    }

private:
    void prepare(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        ConstTensorView const& input = inputs[0];
        TensorView const& output = outputs[0];
        int32_t const* first = mParams.firstTranspose.order;
        int32_t const* second = mParams.secondTranspose.order;
        requirePermutation(first, input.shape.size(), "first");
        requirePermutation(second, output.shape.size(), "second");
        if (input.type != output.type || input.count() != output.count())
        {
            throw std::invalid_argument("shuffle: the output must have the input's type and element count");
        }
        mInput = input.data;
        mOutput = output.data;
        mCount = output.count();
        mElementBytes = elementSize(input.type);
        if (mCount == 0)
        {
            mPlan.move = ShuffleMove::kNOTHING;
            mPlanned = false;
            return;
        }
        device::withElementOfSize(mElementBytes, "shuffle", [](auto) {}); // refuses sub-byte types
        if (!mPlanned || input.type != mPlannedType || input.shape != mPlannedInput || output.shape != mPlannedOutput)
        {
            mPlanned = false;
            mPlan = planStored(input, output);
            mPlannedType = input.type;
            mPlannedInput = input.shape; // assigned in place: no allocation once the rank has been seen
            mPlannedOutput = output.shape;
            mPlanned = true;
        }
        if (mPlan.move == ShuffleMove::kROWS)
        {
            mRows = bindRows(mPlan, mInput, mOutput, mCount * static_cast<int64_t>(mElementBytes));
        }
    }

    //! The plan for the elements as they lie in memory: a channels-last (kHWC) side is moved as stored, its axis order
    //! folded into the transposes (storedShuffle), so that nothing converts it first.
    ShufflePlan planStored(ConstTensorView const& input, TensorView const& output) const
    {
        if (input.format == TensorFormat::kHWC8 || output.format == TensorFormat::kHWC8)
        {
            throw std::invalid_argument("shuffle: a tensor padded to 8 channels (kHWC8) is no shuffle's to move");
        }
        StoredShuffle const stored = storedShuffle(
            std::vector<int32_t>(mParams.firstTranspose.order, mParams.firstTranspose.order + input.shape.size()),
            std::vector<int32_t>(mParams.secondTranspose.order, mParams.secondTranspose.order + output.shape.size()),
            input.shape, input.format, output.shape, output.format);
        ConstTensorView storedInput = input;
        storedInput.shape = stored.input;
        TensorView storedOutput = output;
        storedOutput.shape = stored.output;
        return planShuffle(stored.first.data(), stored.second.data(), storedInput, storedOutput);
    }

    void launch(cudaStream_t stream) override
    {
        switch (mPlan.move)
        {
        case ShuffleMove::kNOTHING: return;
        case ShuffleMove::kCOPY:
            copyOnDevice(mOutput, mInput, static_cast<size_t>(mCount) * mElementBytes, stream);
            return;
        case ShuffleMove::kROWS: launchRowVectors(stream); break;
        case ShuffleMove::kTILES:
            device::withElementOfSize(mElementBytes, "shuffle", [&](auto element) {
                using T = decltype(element);
                transposeTilesKernel<T><<<mPlan.blocks, dim3(kTile, kTileRowsPerPass), 0, stream>>>(
                    static_cast<T const*>(mInput), static_cast<T*>(mOutput), mPlan.tiles);
            });
            break;
        default: // kEACH_ELEMENT and kGATHER
            device::withElementOfSize(mElementBytes, "shuffle", [&](auto element) {
                using T = decltype(element);
                shuffleKernel<T><<<mPlan.blocks, device::kThreadsPerBlock, 0, stream>>>(static_cast<T const*>(mInput),
                    static_cast<T*>(mOutput), mPlan.reshaped, mPlan.transposed, mPlan.firstIsIdentity, mCount);
            });
            break;
        }
        check(cudaGetLastError(), "shuffle: launching the kernel");
    }

    void launchRowVectors(cudaStream_t stream) const
    {
        switch (mRows.width)
        {
        case 16: launchRows<uint4>(mPlan.rows, mRows, mInput, mOutput, stream); break;
        case 8: launchRows<uint2>(mPlan.rows, mRows, mInput, mOutput, stream); break;
        case 4: launchRows<uint32_t>(mPlan.rows, mRows, mInput, mOutput, stream); break;
        case 2: launchRows<uint16_t>(mPlan.rows, mRows, mInput, mOutput, stream); break;
        default: launchRows<uint8_t>(mPlan.rows, mRows, mInput, mOutput, stream); break;
        }
    }

    network::ShuffleParams const& mParams;
    void const* mInput{nullptr};
    void* mOutput{nullptr};
    int64_t mCount{0};
    size_t mElementBytes{0};
    ShufflePlan mPlan;
    RowLaunch mRows;
    // The shapes and type mPlan was made for.
    bool mPlanned{false};
    nvinfer1::DataType mPlannedType{nvinfer1::DataType::kFLOAT};
    Shape mPlannedInput;
    Shape mPlannedOutput;
};

} // namespace

std::unique_ptr<DeviceLayer> lower(network::ShuffleParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<ShuffleLayer>(params);
}

} // namespace kiln::cuda
