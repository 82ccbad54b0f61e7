// INormalizationLayer on the GPU, as the CPU reference (backend/cpu/kernels/nn/normalization.h):
//   output = (input - mean) / sqrt(variance + epsilon) * scale + bias
// with the mean and biased variance of each group of elements that differ only along the axes of the `axes` mask;
// with nbGroups > 1 axis 1's channels split into nbGroups consecutive groups, each normalized on its own (whether
// or not axis 1 is in the mask). Layer normalization over the last axes, with scale and bias that vary along those
// axes only (or not at all), runs as rows (row_normalization.h: FP32 statistics, each row read once); instance and
// group normalization and other masks or weights run on the general kernel below, which sums in double. A
// normalization of whole samples with one scale and one bias (a group normalization of one group) also takes
// channels-last (kHWC) data.
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/normalization/row_normalization.h"
#include "backend/cuda/kernels/strided_index.cuh"
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/memory/device_buffer.h"
#include "backend/cuda/prepared_kernel_layer.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::DataType;

//! Offsets into the input (and output), the scale and the bias.
struct Offsets
{
    int64_t input;
    int64_t scale;
    int64_t bias;
};

//! A row-major walk over some axes of the input, with the strides each of the three tensors has along them (0 where
//! a weight broadcasts). One walk enumerates the groups (the axes that are not normalized, and the channel group),
//! the other the members of one group.
struct Walk
{
    int32_t rank;
    int64_t extents[device::kMaxRank];
    int64_t input[device::kMaxRank];
    int64_t scale[device::kMaxRank];
    int64_t bias[device::kMaxRank];
};

__device__ Offsets offsetsOf(int64_t linear, Walk const& walk)
{
    Offsets offsets{0, 0, 0};
    for (int32_t axis = walk.rank - 1; axis >= 0; --axis)
    {
        int64_t const coordinate = linear % walk.extents[axis];
        linear /= walk.extents[axis];
        offsets.input += coordinate * walk.input[axis];
        offsets.scale += coordinate * walk.scale[axis];
        offsets.bias += coordinate * walk.bias[axis];
    }
    return offsets;
}

struct Tensors
{
    void const* input;
    DataType inputType;
    void const* scale;
    DataType scaleType;
    void const* bias;
    DataType biasType;
    void* output;
    DataType outputType;
};

//! The largest block: long groups use it (bounded for the compiler, so that the registers fit such a block).
constexpr unsigned kMaxThreads = 1024;

//! The sum of every thread's `value`, returned to every thread. Blocks are whole warps, at most 32 of them.
__device__ double blockSum(double value, double* partial)
{
    for (int offset = 16; offset > 0; offset /= 2)
    {
        value += __shfl_xor_sync(0xffffffffU, value, offset);
    }
    if (threadIdx.x % 32 == 0)
    {
        partial[threadIdx.x / 32] = value;
    }
    __syncthreads();
    double total = 0.0;
    for (unsigned warp = 0; warp < blockDim.x / 32; ++warp)
    {
        total += partial[warp];
    }
    __syncthreads(); // `partial` is rewritten by the next call
    return total;
}

//! One block per group: the mean, then the squared deviations from it (two passes, which avoid the cancellation of
//! sum-of-squares formulas), both summed in double as the CPU does, then the normalized values. The last step is in
//! double too with explicit _rn operations, the CPU's unfused multiply and add, so the results differ from the
//! CPU's only through the order of the sums.
__global__ void __launch_bounds__(kMaxThreads)
    normalizationKernel(Tensors t, Walk groups, Walk members, int64_t groupCount, int64_t memberCount, double epsilon)
{
    __shared__ double partial[32];
    for (int64_t group = blockIdx.x; group < groupCount; group += gridDim.x)
    {
        Offsets const base = offsetsOf(group, groups);
        double sum = 0.0;
        for (int64_t k = threadIdx.x; k < memberCount; k += blockDim.x)
        {
            sum += device::loadFloat(t.input, t.inputType, base.input + offsetsOf(k, members).input);
        }
        double const mean = blockSum(sum, partial) / static_cast<double>(memberCount);
        double squares = 0.0;
        for (int64_t k = threadIdx.x; k < memberCount; k += blockDim.x)
        {
            double const deviation
                = device::loadFloat(t.input, t.inputType, base.input + offsetsOf(k, members).input) - mean;
            squares += deviation * deviation;
        }
        double const variance = blockSum(squares, partial) / static_cast<double>(memberCount);
        double const inverseDeviation = 1.0 / sqrt(variance + epsilon);
        for (int64_t k = threadIdx.x; k < memberCount; k += blockDim.x)
        {
            Offsets const o = offsetsOf(k, members);
            int64_t const i = base.input + o.input;
            double const normalized = __dmul_rn(device::loadFloat(t.input, t.inputType, i) - mean, inverseDeviation);
            double const scale = device::loadFloat(t.scale, t.scaleType, base.scale + o.scale);
            double const bias = device::loadFloat(t.bias, t.biasType, base.bias + o.bias);
            double const result = __dadd_rn(__dmul_rn(normalized, scale), bias);
            device::storeFloat(t.output, t.outputType, i, __double2float_rn(result));
        }
    }
}

//! One axis of a walk, before the axes are split between the two walks.
struct WalkAxis
{
    int64_t extent;
    bool normalized;
    int64_t input;
    int64_t scale;
    int64_t bias;
};

//! The axes of one kind as a walk, without extents of 1 and with neighbours merged where every tensor's strides
//! allow (a layer normalization over the last axes walks one contiguous axis).
Walk walkOf(WalkAxis const* axes, size_t count, bool normalized)
{
    Walk walk{};
    for (size_t a = 0; a < count; ++a)
    {
        WalkAxis const& axis = axes[a];
        if (axis.normalized != normalized || axis.extent == 1)
        {
            continue;
        }
        if (walk.rank > 0)
        {
            int32_t const outer = walk.rank - 1;
            if (walk.input[outer] == axis.input * axis.extent && walk.scale[outer] == axis.scale * axis.extent
                && walk.bias[outer] == axis.bias * axis.extent)
            {
                walk.extents[outer] *= axis.extent;
                walk.input[outer] = axis.input;
                walk.scale[outer] = axis.scale;
                walk.bias[outer] = axis.bias;
                continue;
            }
        }
        if (walk.rank == device::kMaxRank)
        {
            throw std::invalid_argument("normalization: the CUDA backend takes tensors of rank at most 8");
        }
        walk.extents[walk.rank] = axis.extent;
        walk.input[walk.rank] = axis.input;
        walk.scale[walk.rank] = axis.scale;
        walk.bias[walk.rank] = axis.bias;
        ++walk.rank;
    }
    return walk;
}

//! How a weight tensor is read along each input axis, with the CPU's broadcasting rules: strides of its own shape,
//! 0 where it has extent 1. With groups, a weight with extent nbGroups on axis 1 (and nbGroups != channels) holds
//! one weight per group.
struct WeightStrides
{
    int64_t strides[device::kMaxRank]{};
    bool perGroup{false};
};

//! Row-major strides of `shape` (of rank at most kMaxRank) into `strides`.
void rowMajorStrides(Shape const& shape, int64_t* strides)
{
    int64_t stride = 1;
    for (size_t axis = shape.size(); axis-- > 0;)
    {
        strides[axis] = stride;
        stride *= shape[axis];
    }
}

WeightStrides weightStridesOf(ConstTensorView const& weights, Shape const& input, int64_t nbGroups, char const* what)
{
    WeightStrides result;
    int64_t const channels = input.size() >= 2 ? input[1] : 1;
    result.perGroup = nbGroups > 1 && weights.rank() >= 2 && weights.shape[1] == nbGroups && nbGroups != channels;
    if (weights.shape.size() != input.size())
    {
        throw std::invalid_argument(std::string("normalization: the ") + what + " has rank "
            + std::to_string(weights.rank()) + ", not the input's " + std::to_string(input.size()));
    }
    rowMajorStrides(weights.shape, result.strides);
    for (size_t axis = 0; axis < input.size(); ++axis)
    {
        int64_t const extent = weights.shape[axis];
        if (axis == 1 && result.perGroup)
        {
            continue;
        }
        if (extent != input[axis] && extent != 1)
        {
            throw std::invalid_argument(std::string("normalization: the ") + what + " does not broadcast to the input");
        }
        if (extent == 1)
        {
            result.strides[axis] = 0;
        }
    }
    return result;
}

//! Where the normalized axes are the last ones and scale and bias vary along them only (or are one value each): the
//! rows' problem (row_normalization.h), else none.
std::optional<RowProblem> rowsOf(uint32_t axes, ConstTensorView const& input, ConstTensorView const& scale,
    ConstTensorView const& bias, TensorView const& output, float epsilon)
{
    int32_t const rowAxes = network::trailingAxesOf(axes, input.rank());
    network::RowWeight const scaleKind = network::rowWeightOf(scale.shape, input.shape, rowAxes);
    network::RowWeight const biasKind = network::rowWeightOf(bias.shape, input.shape, rowAxes);
    if (rowAxes == 0 || scaleKind == network::RowWeight::kNONE || biasKind == network::RowWeight::kNONE)
    {
        return std::nullopt;
    }
    RowProblem problem;
    problem.x = RowInput{input.data, input.type, 1};
    problem.scale = RowInput{scale.data, scale.type, scaleKind == network::RowWeight::kROW ? 1 : 0};
    problem.bias = RowInput{bias.data, bias.type, biasKind == network::RowWeight::kROW ? 1 : 0};
    problem.y = output.data;
    problem.yType = output.type;
    problem.length = volume(Shape(input.shape.end() - rowAxes, input.shape.end()));
    problem.rows = input.count() / problem.length;
    problem.epsilon = epsilon;
    problem.centered = true;
    return problem;
}

//! The kernel's arguments and grid.
struct NormalizationLaunch
{
    Tensors tensors{};
    Walk groups{};
    Walk members{};
    int64_t groupCount{0};
    int64_t memberCount{0};
    double epsilon{0.0};
    unsigned blocks{0}; //!< 0: nothing to normalize
    unsigned threads{0};
    std::optional<RowProblem> rows; //!< set where the rows' kernel does the work instead
};

//! The walks over the groups and over one group's members.
void walkGroups(uint32_t axes, int64_t nbGroups, Shape const& shape, WeightStrides const& scale,
    WeightStrides const& bias, NormalizationLaunch& launch)
{
    bool const grouped = nbGroups > 1;
    int64_t inputStrides[device::kMaxRank]{};
    rowMajorStrides(shape, inputStrides);
    WalkAxis walkAxes[device::kMaxRank + 1]{};
    size_t count = 0;
    for (size_t axis = 0; axis < shape.size(); ++axis)
    {
        int64_t const s = scale.strides[axis];
        int64_t const b = bias.strides[axis];
        if (grouped && axis == 1)
        {
            // The channel axis as (group, channel within the group): the group picks the statistics, the channel
            // within it is one more normalized axis. A per-group weight does not move with the channel within.
            int64_t const perGroup = shape[1] / nbGroups;
            walkAxes[count++] = WalkAxis{nbGroups, false, perGroup * inputStrides[1], scale.perGroup ? s : perGroup * s,
                bias.perGroup ? b : perGroup * b};
            walkAxes[count++]
                = WalkAxis{perGroup, true, inputStrides[1], scale.perGroup ? 0 : s, bias.perGroup ? 0 : b};
            continue;
        }
        bool const normalized = ((axes >> axis) & 1U) != 0;
        walkAxes[count++] = WalkAxis{shape[axis], normalized, inputStrides[axis], s, b};
    }
    launch.groups = walkOf(walkAxes, count, false);
    launch.members = walkOf(walkAxes, count, true);
}

//! All four tensors FP32, FP16 or BF16 (each its own). scale and bias have the input's rank and broadcast to it
//! (extents equal or 1); with groups, extent nbGroups on axis 1 gives one weight per group. Statistics and the
//! affine step are computed in double, as on the CPU, whatever the layer's compute precision asks for (a
//! precision above the request). Output may alias the input. Throws std::invalid_argument where the CPU reference
//! refuses the shapes, axes or types. Rows of the last axes take the rows' kernel (rowsOf), whose statistics are in
//! float.
NormalizationLaunch prepareNormalization(uint32_t axes, float epsilon, int64_t nbGroups, ConstTensorView const& input,
    ConstTensorView const& scale, ConstTensorView const& bias, TensorView const& output)
{
    if (output.shape != input.shape)
    {
        throw std::invalid_argument("normalization: the output's shape is not the input's");
    }
    if (!isFloatType(input.type) || !isFloatType(scale.type) || !isFloatType(bias.type) || !isFloatType(output.type))
    {
        throw std::invalid_argument("normalization: input, scale, bias and output must be FP32, FP16 or BF16");
    }
    int32_t const rank = input.rank();
    if (rank > device::kMaxRank)
    {
        throw std::invalid_argument("normalization: the CUDA backend takes tensors of rank at most 8");
    }
    if (rank < 32 && (axes >> rank) != 0)
    {
        throw std::invalid_argument(
            "normalization: axes mask " + std::to_string(axes) + " names an axis beyond rank " + std::to_string(rank));
    }
    if (nbGroups > 1 && (rank < 2 || input.shape[1] % nbGroups != 0))
    {
        throw std::invalid_argument(
            "normalization: " + std::to_string(nbGroups) + " groups do not divide the channels of the input");
    }
    WeightStrides const scaleStrides = weightStridesOf(scale, input.shape, nbGroups, "scale");
    WeightStrides const biasStrides = weightStridesOf(bias, input.shape, nbGroups, "bias");
    NormalizationLaunch launch;
    if (input.count() == 0)
    {
        return launch;
    }
    if (nbGroups <= 1)
    {
        launch.rows = rowsOf(axes, input, scale, bias, output, epsilon);
    }
    if (input.format != TensorFormat::kLINEAR || output.format != TensorFormat::kLINEAR)
    {
        // Channels-last (kHWC) data in a channels-last region: each sample's elements lie together as in a row-major
        // tensor, only in another order, which one scale and one bias for all of them do not see.
        bool const wholeSamples = launch.rows && input.format == TensorFormat::kHWC && output.format == input.format
            && launch.rows->rows == input.shape[0] && launch.rows->scale.stride == 0 && launch.rows->bias.stride == 0;
        if (!wholeSamples)
        {
            throw std::invalid_argument("normalization: the CUDA backend normalizes channels-last (kHWC) data only "
                                        "over whole samples, with one scale and one bias");
        }
    }
    if (launch.rows)
    {
        return launch;
    }
    walkGroups(axes, nbGroups, input.shape, scaleStrides, biasStrides, launch);
    int64_t groupCount = 1;
    for (int32_t a = 0; a < launch.groups.rank; ++a)
    {
        groupCount *= launch.groups.extents[a];
    }
    int64_t const memberCount = input.count() / groupCount;
    // Whole warps, no more than a group has members (small groups leave few threads idle); long groups get the
    // largest block, since one block reads its group three times.
    int64_t const warps = (memberCount + 31) / 32;
    launch.threads = memberCount >= 8192 ? kMaxThreads : static_cast<unsigned>(std::min<int64_t>(warps, 8) * 32);
    launch.blocks = static_cast<unsigned>(std::min<int64_t>(groupCount, int64_t{1} << 20));
    launch.tensors
        = Tensors{input.data, input.type, scale.data, scale.type, bias.data, bias.type, output.data, output.type};
    launch.groupCount = groupCount;
    launch.memberCount = memberCount;
    launch.epsilon = static_cast<double>(epsilon);
    return launch;
}

class NormalizationLayer final : public PreparedKernelLayer
{
public:
    explicit NormalizationLayer(network::NormalizationParams const& params)
        : mParams(params)
    {
    }

private:
    void prepare(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        mLaunch = prepareNormalization(
            mParams.axes, mParams.epsilon, mParams.nbGroups, inputs[0], inputs[1], inputs[2], outputs[0]);
    }

    void launch(cudaStream_t stream) override
    {
        NormalizationLaunch const& l = mLaunch;
        if (l.rows)
        {
            normalizeRows(*l.rows, &mScratch, stream);
            return;
        }
        if (l.blocks == 0)
        {
            return;
        }
        normalizationKernel<<<l.blocks, l.threads, 0, stream>>>(
            l.tensors, l.groups, l.members, l.groupCount, l.memberCount, l.epsilon);
        check(cudaGetLastError(), "normalization: launching the kernel");
    }

    network::NormalizationParams const& mParams;
    NormalizationLaunch mLaunch;
    DeviceBuffer mScratch; //!< long rows' partial sums (normalizeRows)
};

} // namespace

std::unique_ptr<DeviceLayer> lower(network::NormalizationParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<NormalizationLayer>(params);
}

} // namespace kiln::cuda
