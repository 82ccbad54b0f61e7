// ISliceLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/slice.h): output coordinate i
// along dim d reads input coordinate start[d] + i * stride[d], and every SampleMode decides what lies
// outside the input. Also IPaddingLayer, which is a kFILL slice starting before the input. A slice that stays inside
// its input and steps by one along the innermost axis (a Split's parts, GPT-2's query, keys and values) copies whole
// runs of the input in vectors of up to 16 bytes; any other finds each element's source alone. Both walk the tensors as
// they are stored: row-major, or channels-last (kHWC) in a channels-last region, the axes then listed in that order.
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/storage_order.h"
#include "backend/cuda/kernels/strided_index.cuh"
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/prepared_kernel_layer.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::cuda
{
namespace
{

using device::DataType;
using device::kMaxRank;
using device::StridedShape;
using nvinfer1::SampleMode;

//! Start and stride come from the host values, or from INT32/INT64 device tensors (one value per dim) when those
//! views have data; the fill value likewise from `fillValue` or a one-element device tensor of any numeric type.
//! The kernel reads device parameters itself, so nothing waits for the GPU; that also means a kSTRICT_BOUNDS
//! violation by device parameters cannot be reported: the kernel then clamps its reads into the input.
struct SliceParameters
{
    std::vector<int64_t> start;
    std::vector<int64_t> stride;
    ConstTensorView startTensor;
    ConstTensorView strideTensor;
    ConstTensorView fillTensor;
    double fillValue{0.0};
    nvinfer1::SampleMode mode{nvinfer1::SampleMode::kSTRICT_BOUNDS};
};

struct SliceGeometry
{
    int32_t rank{0};
    int64_t inputExtents[kMaxRank]{};
    int64_t inputStrides[kMaxRank]{};
    int64_t outputExtents[kMaxRank]{};
    int64_t start[kMaxRank]{};
    int64_t stride[kMaxRank]{};
    //! The tensors' axis each entry above describes: the axes are listed in storage order, which for a channels-last
    //! (kHWC) slice is not the axes' own; device start and stride values are one per axis, in the axes' order.
    int32_t axisOf[kMaxRank]{};
    void const* startData{nullptr}; //!< device values replacing `start` when set
    DataType startType{DataType::kINT32};
    void const* strideData{nullptr};
    DataType strideType{DataType::kINT32};
    void const* fillData{nullptr}; //!< a device scalar replacing `fillBits` when set
    DataType fillType{DataType::kFLOAT};
    uint64_t fillBits{0}; //!< the fill value already in the output's type
    DataType outputType{DataType::kFLOAT};
    SampleMode mode{SampleMode::kSTRICT_BOUNDS};
};

__host__ __device__ int64_t positiveModulo(int64_t value, int64_t modulus)
{
    int64_t const remainder = value % modulus;
    return remainder < 0 ? remainder + modulus : remainder;
}

//! The input coordinate that `c` reads along an axis of `extent` (not 0, which the host rules out except for
//! kFILL), or -1 for the fill value: the CPU's sampleCoordinate, with kSTRICT_BOUNDS clamping (see SliceParameters).
__device__ int64_t sample(int64_t c, int64_t extent, SampleMode mode)
{
    if (c >= 0 && c < extent)
    {
        return c;
    }
    switch (mode)
    {
    case SampleMode::kFILL: return -1;
    case SampleMode::kWRAP: return positiveModulo(c, extent);
    case SampleMode::kREFLECT:
    {
        if (extent == 1)
        {
            return 0;
        }
        int64_t const period = 2 * (extent - 1);
        int64_t const phase = positiveModulo(c, period);
        return phase < extent ? phase : period - phase;
    }
    default: return c < 0 ? 0 : extent - 1; // kCLAMP, and kSTRICT_BOUNDS kept in bounds
    }
}

//! A value converted to `type` as the CPU's encodeScalar does: floats round, integers truncate and saturate.
__device__ uint64_t encodeFill(double value, DataType type)
{
    auto saturate = [value](double low, double high) { return isnan(value) ? 0.0 : fmin(fmax(value, low), high); };
    uint64_t bits = 0;
    switch (type)
    {
    case DataType::kFLOAT: device::storeFloat(&bits, type, 0, static_cast<float>(value)); break;
    case DataType::kHALF:
    case DataType::kBF16: device::storeFloat(&bits, type, 0, static_cast<float>(value)); break;
    case DataType::kINT8: device::storeInteger(&bits, type, 0, static_cast<int64_t>(saturate(-128.0, 127.0))); break;
    case DataType::kUINT8: device::storeInteger(&bits, type, 0, static_cast<int64_t>(saturate(0.0, 255.0))); break;
    case DataType::kINT32:
        device::storeInteger(&bits, type, 0, static_cast<int64_t>(saturate(-2147483648.0, 2147483647.0)));
        break;
    case DataType::kINT64:
        device::storeInteger(
            &bits, type, 0, static_cast<int64_t>(saturate(-9223372036854775808.0, 9223372036854774784.0)));
        break;
    case DataType::kBOOL: device::storeInteger(&bits, type, 0, value != 0.0 ? 1 : 0); break;
    default: break;
    }
    return bits;
}

template <typename T>
__global__ void sliceKernel(T const* input, T* output, SliceGeometry g, int64_t count)
{
    // Device parameters are read once per block, not once per element.
    __shared__ int64_t start[kMaxRank];
    __shared__ int64_t stride[kMaxRank];
    __shared__ T fill;
    if (threadIdx.x < g.rank)
    {
        int32_t const axis = g.axisOf[threadIdx.x];
        start[threadIdx.x] = g.startData ? device::loadInteger(g.startData, g.startType, axis) : g.start[threadIdx.x];
        stride[threadIdx.x] = g.strideData ? device::loadInteger(g.strideData, g.strideType, axis)
                                           : g.stride[threadIdx.x];
    }
    if (threadIdx.x == 0)
    {
        uint64_t bits = g.fillBits;
        if (g.fillData != nullptr)
        {
            bool const floats = g.fillType == DataType::kFLOAT || g.fillType == DataType::kHALF
                || g.fillType == DataType::kBF16;
            double const value = floats ? static_cast<double>(device::loadFloat(g.fillData, g.fillType, 0))
                                        : static_cast<double>(device::loadInteger(g.fillData, g.fillType, 0));
            bits = encodeFill(value, g.outputType);
        }
        memcpy(&fill, &bits, sizeof(T));
    }
    __syncthreads();
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        int64_t rest = i;
        int64_t offset = 0;
        bool inside = true;
        for (int32_t axis = g.rank - 1; axis >= 0; --axis)
        {
            int64_t const c = rest % g.outputExtents[axis];
            rest /= g.outputExtents[axis];
            int64_t const source = sample(start[axis] + c * stride[axis], g.inputExtents[axis], g.mode);
            inside = inside && source >= 0;
            offset += source * g.inputStrides[axis];
        }
        output[i] = inside ? input[offset] : fill;
    }
}

//! Output vector v is vector v % rowVectors of row v / rowVectors, which starts at `base` plus the row's coordinates
//! (row-major over `rows.extents`) times `rows.strides`; all counted in vectors.
template <typename V, typename Index>
__global__ void sliceRunsKernel(V const* input, V* output, StridedShape rows, Index base, Index rowVectors, Index count)
{
    for (Index v = blockIdx.x * static_cast<Index>(blockDim.x) + threadIdx.x; v < count;
         v += static_cast<Index>(blockDim.x) * gridDim.x)
    {
        Index const row = v / rowVectors;
        Index source = base;
        Index rest = row;
        for (int32_t axis = rows.rank - 1; axis >= 0; --axis)
        {
            auto const extent = static_cast<Index>(rows.extents[axis]);
            source += rest % extent * static_cast<Index>(rows.strides[axis]);
            rest /= extent;
        }
        output[v] = input[source + (v - row * rowVectors)];
    }
}

//! The fill value in `type`'s bytes, as encodeFill computes it on the device.
uint64_t encodeOnHost(double value, DataType type)
{
    auto saturate
        = [value](double low, double high) { return value != value ? 0.0 : std::fmin(std::fmax(value, low), high); };
    uint64_t bits = 0;
    auto put = [&bits](auto element) { std::memcpy(&bits, &element, sizeof(element)); };
    switch (type)
    {
    case DataType::kFLOAT: put(static_cast<float>(value)); break;
    case DataType::kHALF: put(__float2half_rn(static_cast<float>(value))); break;
    case DataType::kBF16: put(__float2bfloat16_rn(static_cast<float>(value))); break;
    case DataType::kINT8: put(static_cast<int8_t>(saturate(-128.0, 127.0))); break;
    case DataType::kUINT8: put(static_cast<uint8_t>(saturate(0.0, 255.0))); break;
    case DataType::kINT32: put(static_cast<int32_t>(saturate(-2147483648.0, 2147483647.0))); break;
    case DataType::kINT64: put(static_cast<int64_t>(saturate(-9223372036854775808.0, 9223372036854774784.0))); break;
    case DataType::kBOOL: put(static_cast<uint8_t>(value != 0.0 ? 1 : 0)); break;
    default: throw std::invalid_argument("slice: the fill value cannot be written in the output's type");
    }
    return bits;
}

//! Throws std::invalid_argument where the CUDA kernel cannot slice `input` into `output` by `params`.
void checkSliceArguments(SliceParameters const& params, ConstTensorView const& input, TensorView const& output)
{
    size_t const rank = input.shape.size();
    bool const deviceStart = params.startTensor.data != nullptr;
    bool const deviceStride = params.strideTensor.data != nullptr;
    if ((deviceStart ? static_cast<size_t>(params.startTensor.count()) : params.start.size()) != rank
        || (deviceStride ? static_cast<size_t>(params.strideTensor.count()) : params.stride.size()) != rank
        || output.shape.size() != rank)
    {
        throw std::invalid_argument(
            "slice: start, size and stride must each have one entry per input dim (rank " + std::to_string(rank) + ")");
    }
    if ((deviceStart && !isIndexType(params.startTensor.type))
        || (deviceStride && !isIndexType(params.strideTensor.type)))
    {
        throw std::invalid_argument("slice: start and stride tensors must be INT32 or INT64");
    }
    if (input.type != output.type)
    {
        throw std::invalid_argument("slice: the input and output types differ");
    }
    if (input.format != output.format
        || (input.format != TensorFormat::kLINEAR && (input.format != TensorFormat::kHWC || rank < 3)))
    {
        throw std::invalid_argument("slice: the CUDA backend slices a row-major (kLINEAR) or channels-last (kHWC) "
                                    "tensor into one stored alike");
    }
    if (rank > static_cast<size_t>(kMaxRank))
    {
        throw std::invalid_argument("slice: the CUDA backend takes tensors of rank at most 8");
    }
}

//! Throws std::invalid_argument where axis `d` of the slice `g` samples outside the input in a mode that forbids it.
void checkAxisBounds(SliceParameters const& params, SliceGeometry const& g, size_t d)
{
    if (g.inputExtents[d] == 0 && params.mode != nvinfer1::SampleMode::kFILL)
    {
        throw std::invalid_argument("slice: cannot sample an empty axis except in kFILL mode");
    }
    bool const hostCoordinates = params.startTensor.data == nullptr && params.strideTensor.data == nullptr;
    if (params.mode != nvinfer1::SampleMode::kSTRICT_BOUNDS || !hostCoordinates)
    {
        return;
    }
    // Coordinates are linear in i, so the first and last show whether any leaves the input.
    int64_t const last = g.start[d] + (g.outputExtents[d] - 1) * g.stride[d];
    for (int64_t c : {g.start[d], last})
    {
        if (c < 0 || c >= g.inputExtents[d])
        {
            throw std::invalid_argument("slice: coordinate " + std::to_string(c) + " is outside an axis of extent "
                + std::to_string(g.inputExtents[d]) + " in kSTRICT_BOUNDS mode");
        }
    }
}

//! Lists `g`'s axes, given in the tensors' order, in the order they lie in memory in `format` (the same for kLINEAR),
//! with the input's strides: the kernels walk the output as it is stored.
void listInStorageOrder(TensorFormat format, SliceGeometry& g)
{
    auto const rank = static_cast<size_t>(g.rank);
    SliceGeometry const byAxis = g;
    int64_t stride = 1;
    for (size_t position = rank; position-- > 0;)
    {
        size_t const axis = storedAxisAt(format, rank, position);
        g.axisOf[position] = static_cast<int32_t>(axis);
        g.inputExtents[position] = byAxis.inputExtents[axis];
        g.outputExtents[position] = byAxis.outputExtents[axis];
        g.start[position] = byAxis.start[axis];
        g.stride[position] = byAxis.stride[axis];
        g.inputStrides[position] = stride;
        stride *= g.inputExtents[position];
    }
}

//! What the kernel reads of `params` to slice `input` into `output`.
SliceGeometry sliceGeometry(SliceParameters const& params, ConstTensorView const& input, TensorView const& output)
{
    size_t const rank = input.shape.size();
    SliceGeometry g;
    g.rank = static_cast<int32_t>(rank);
    g.mode = params.mode;
    g.outputType = output.type;
    for (size_t d = 0; d < rank; ++d)
    {
        g.inputExtents[d] = input.shape[d];
        g.outputExtents[d] = output.shape[d];
        g.start[d] = params.startTensor.data != nullptr ? 0 : params.start[d];
        g.stride[d] = params.strideTensor.data != nullptr ? 0 : params.stride[d];
        checkAxisBounds(params, g, d);
    }
    listInStorageOrder(input.format, g);
    g.startData = params.startTensor.data;
    g.startType = params.startTensor.type;
    g.strideData = params.strideTensor.data;
    g.strideType = params.strideTensor.type;
    if (params.mode == nvinfer1::SampleMode::kFILL)
    {
        // Only kFILL needs the value in the output type, so the other modes serve every type.
        if (params.fillTensor.data != nullptr)
        {
            g.fillData = params.fillTensor.data;
            g.fillType = params.fillTensor.type;
        }
        else
        {
            g.fillBits = encodeOnHost(params.fillValue, output.type);
        }
    }
    return g;
}

//! A slice that copies runs of its input (sliceRunsKernel): `rows` are the output's outer axes, with neighbours
//! merged where the input steps over them as over one, and the input's steps along them; everything in vectors of
//! `vectorBytes`.
struct RunCopy
{
    StridedShape rows;
    int64_t base{0};
    int64_t rowVectors{0};
    int64_t count{0};
    int64_t inputVectors{0};
    size_t vectorBytes{0};
};

//! A slice as it is launched.
struct SliceLaunch
{
    SliceGeometry geometry;
    void const* input{nullptr};
    void* output{nullptr};
    int64_t count{0}; //!< 0: nothing to launch
    size_t elementBytes{0};
    std::optional<RunCopy> runs; //!< set where the slice copies runs of its input
};

//! The widest vector (16 bytes at most) whose size divides every one of `bytes`.
size_t widestVectorDividing(std::initializer_list<uint64_t> bytes)
{
    size_t width = 16;
    for (uint64_t b : bytes)
    {
        while (b % width != 0)
        {
            width /= 2;
        }
    }
    return width;
}

//! The run copy for slice `g` of `input` into `output` where its host coordinates stay inside the input and the
//! innermost axis steps by one; nothing otherwise.
std::optional<RunCopy> runCopyOf(SliceGeometry const& g, ConstTensorView const& input, TensorView const& output)
{
    int32_t const inner = g.rank - 1;
    if (g.rank == 0 || g.startData != nullptr || g.strideData != nullptr || g.stride[inner] != 1)
    {
        return std::nullopt;
    }
    int64_t base = 0;
    for (int32_t d = 0; d < g.rank; ++d)
    {
        int64_t const last = g.start[d] + (g.outputExtents[d] - 1) * g.stride[d];
        if (std::min(g.start[d], last) < 0 || std::max(g.start[d], last) >= g.inputExtents[d])
        {
            return std::nullopt;
        }
        base += g.start[d] * g.inputStrides[d];
    }
    // The outer axes, outer to inner, each merged into the one before where the input steps over both as over one.
    RunCopy copy;
    for (int32_t d = 0; d < inner; ++d)
    {
        int64_t const step = g.stride[d] * g.inputStrides[d];
        int32_t const last = copy.rows.rank - 1;
        if (g.outputExtents[d] == 1)
        {
            continue;
        }
        if (last >= 0 && copy.rows.strides[last] == g.outputExtents[d] * step)
        {
            copy.rows.extents[last] *= g.outputExtents[d];
            copy.rows.strides[last] = step;
            continue;
        }
        copy.rows.extents[last + 1] = g.outputExtents[d];
        copy.rows.strides[last + 1] = step;
        ++copy.rows.rank;
    }
    size_t const element = elementSize(output.type);
    size_t width
        = widestVectorDividing({reinterpret_cast<uintptr_t>(input.data), reinterpret_cast<uintptr_t>(output.data),
            static_cast<uint64_t>(g.outputExtents[inner]) * element, static_cast<uint64_t>(base) * element});
    for (int32_t axis = 0; axis < copy.rows.rank; ++axis)
    {
        width = std::min(width, widestVectorDividing({static_cast<uint64_t>(copy.rows.strides[axis]) * element}));
    }
    auto const elementsPerVector = static_cast<int64_t>(width / element);
    if (elementsPerVector == 0)
    {
        return std::nullopt; // an address not aligned to its elements: the element kernel takes it
    }
    for (int32_t axis = 0; axis < copy.rows.rank; ++axis)
    {
        copy.rows.strides[axis] /= elementsPerVector;
    }
    copy.base = base / elementsPerVector;
    copy.rowVectors = g.outputExtents[inner] / elementsPerVector;
    copy.count = output.count() / elementsPerVector;
    copy.inputVectors = input.count() / elementsPerVector;
    copy.vectorBytes = width;
    return copy;
}

//! The output's shape is the slice's size. Input and output share a byte-addressable type. Throws
//! std::invalid_argument where the CPU reference does, as far as host values show it.
SliceLaunch prepareSlice(SliceParameters const& params, ConstTensorView const& input, TensorView const& output)
{
    checkSliceArguments(params, input, output);
    SliceLaunch launch;
    if (output.count() == 0)
    {
        return launch;
    }
    launch.geometry = sliceGeometry(params, input, output);
    launch.elementBytes = elementSize(output.type);
    device::withElementOfSize(launch.elementBytes, "slice", [](auto) {}); // refuses other sizes now
    launch.input = input.data;
    launch.output = output.data;
    launch.count = output.count();
    launch.runs = runCopyOf(launch.geometry, input, output);
    return launch;
}

template <typename V>
void launchRuns(RunCopy const& runs, void const* input, void* output, cudaStream_t stream)
{
    auto const* from = static_cast<V const*>(input);
    auto* to = static_cast<V*>(output);
    unsigned const blocks = device::blocksFor(runs.count);
    if (std::max(runs.count, runs.inputVectors) <= INT32_MAX) // grid-stride steps stay below 2^32 past any index
    {
        sliceRunsKernel<V, uint32_t><<<blocks, device::kThreadsPerBlock, 0, stream>>>(from, to, runs.rows,
            static_cast<uint32_t>(runs.base), static_cast<uint32_t>(runs.rowVectors),
            static_cast<uint32_t>(runs.count));
    }
    else
    {
        sliceRunsKernel<V, int64_t><<<blocks, device::kThreadsPerBlock, 0, stream>>>(
            from, to, runs.rows, runs.base, runs.rowVectors, runs.count);
    }
}

void launchSlice(SliceLaunch const& launch, cudaStream_t stream)
{
    if (launch.count == 0)
    {
        return;
    }
    if (launch.runs)
    {
        switch (launch.runs->vectorBytes)
        {
        case 16: launchRuns<uint4>(*launch.runs, launch.input, launch.output, stream); break;
        case 8: launchRuns<uint2>(*launch.runs, launch.input, launch.output, stream); break;
        case 4: launchRuns<uint32_t>(*launch.runs, launch.input, launch.output, stream); break;
        case 2: launchRuns<uint16_t>(*launch.runs, launch.input, launch.output, stream); break;
        default: launchRuns<uint8_t>(*launch.runs, launch.input, launch.output, stream); break;
        }
        check(cudaGetLastError(), "slice: launching the kernel");
        return;
    }
    device::withElementOfSize(launch.elementBytes, "slice", [&](auto element) {
        using T = decltype(element);
        sliceKernel<T><<<device::blocksFor(launch.count), device::kThreadsPerBlock, 0, stream>>>(
            static_cast<T const*>(launch.input), static_cast<T*>(launch.output), launch.geometry, launch.count);
    });
    check(cudaGetLastError(), "slice: launching the kernel");
}

//! `view` becomes input `index` where it is given (an input left empty arrives as a view without data), else a view
//! without data; assigned in place, so that preparing again allocates nothing.
void takeOptionalInput(LayerInputs const& inputs, size_t index, ConstTensorView& view)
{
    if (index < inputs.size() && inputs[index].data != nullptr)
    {
        view = inputs[index];
        return;
    }
    view.type = nvinfer1::DataType::kFLOAT;
    view.shape.clear();
    view.data = nullptr;
    view.format = TensorFormat::kLINEAR;
}

//! ISliceLayer: start and stride come from inputs 1 and 3 when given, else from the parameters; the size is the
//! output's shape; input 4 is the fill value.
class SliceLayer final : public PreparedKernelLayer
{
public:
    explicit SliceLayer(network::SliceParams const& params)
        : mParams(params)
    {
    }

private:
    void prepare(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        mSlice.mode = mParams.mode;
        takeOptionalInput(inputs, 1, mSlice.startTensor);
        takeOptionalInput(inputs, 3, mSlice.strideTensor);
        takeOptionalInput(inputs, 4, mSlice.fillTensor);
        mSlice.start.clear();
        mSlice.stride.clear();
        if (mSlice.startTensor.data == nullptr)
        {
            mSlice.start.assign(mParams.start.d, mParams.start.d + std::max(mParams.start.nbDims, 0));
        }
        if (mSlice.strideTensor.data == nullptr)
        {
            mSlice.stride.assign(mParams.stride.d, mParams.stride.d + std::max(mParams.stride.nbDims, 0));
        }
        mLaunch = prepareSlice(mSlice, inputs[0], outputs[0]);
    }
    void launch(cudaStream_t stream) override
    {
        launchSlice(mLaunch, stream);
    }

    network::SliceParams const& mParams;
    SliceParameters mSlice; //!< kept: its vectors and views are rewritten in the memory they hold
    SliceLaunch mLaunch;
};

//! IPaddingLayer: zeros before and after the innermost prePadding.nbDims dims; negative amounts crop. A pad is a
//! slice that starts before the input and fills what lies outside it with zeros.
class PaddingLayer final : public PreparedKernelLayer
{
public:
    explicit PaddingLayer(network::PaddingParams const& params)
        : mParams(params)
    {
        mSlice.mode = nvinfer1::SampleMode::kFILL;
    }

private:
    void prepare(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        ConstTensorView const& input = inputs[0];
        TensorView const& output = outputs[0];
        nvinfer1::Dims const& pre = mParams.prePadding;
        nvinfer1::Dims const& post = mParams.postPadding;
        size_t const rank = input.shape.size();
        int32_t const padded = std::max(pre.nbDims, 0);
        if (padded != std::max(post.nbDims, 0) || static_cast<size_t>(padded) > rank || output.shape.size() != rank)
        {
            throw std::invalid_argument(
                "padding: pre- and post-padding must name the same innermost dims of the input");
        }
        mSlice.start.assign(rank, 0);
        mSlice.stride.assign(rank, 1);
        size_t const first = rank - static_cast<size_t>(padded);
        for (int32_t i = 0; i < padded; ++i)
        {
            mSlice.start[first + i] = -pre.d[i];
            if (output.shape[first + i] != input.shape[first + i] + pre.d[i] + post.d[i])
            {
                throw std::invalid_argument("padding: the output's shape is not the padded input's");
            }
        }
        mLaunch = prepareSlice(mSlice, input, output);
    }
    void launch(cudaStream_t stream) override
    {
        launchSlice(mLaunch, stream);
    }

    network::PaddingParams const& mParams;
    SliceParameters mSlice;
    SliceLaunch mLaunch;
};

} // namespace

std::unique_ptr<DeviceLayer> lower(network::SliceParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<SliceLayer>(params);
}

std::unique_ptr<DeviceLayer> lower(network::PaddingParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<PaddingLayer>(params);
}

} // namespace kiln::cuda
