// IFillLayer on the GPU, as the CPU reference computes it (backend/cpu/kernels/tensor/fill.h and random_fill.h):
// kLINSPACE into FP32, FP16, BF16, INT32 or INT64; kRANDOM_UNIFORM and kRANDOM_NORMAL into FP32, FP16 or BF16, with
// the generator both backends share (backend/shared/counter_random.h), so both backends give the same tensor.
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/strided_index.cuh"
#include "backend/cuda/layer_kernels.h"
#include "backend/shared/counter_random.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::DataType;
using nvinfer1::FillOperation;

//! A fill's alpha or beta: the layer's static value, or its tensor input when one is given (device memory, read by
//! the kernel, so the queueing thread never waits for the GPU). A kLINSPACE beta input holds one delta per output
//! dim; every other input is 0-D. Inputs may be FP32, FP16, BF16, INT32 or INT64.
struct FillOperand
{
    double value{0.0};
    ConstTensorView input{}; //!< the default view (no data, one element) stands for no input

    //! As the CPU reference decides it (hasInput, backend/cpu/kernels/layer_inputs.h): a given input has data, or
    //! no elements (and then may have no data).
    bool fromInput() const
    {
        return input.data != nullptr || input.count() == 0;
    }
};

//! An alpha or beta as the kernel reads it: `tensor` (device memory) when set, else `value`.
struct Operand
{
    double value;
    void const* tensor;
    DataType type;
};

//! Element `i` of an operand as a double, as the CPU reference's numberAt (backend/cpu/kernels/layer_inputs.h)
//! reads it (floats through float).
__device__ double operandAt(Operand const& operand, int64_t i)
{
    if (operand.tensor == nullptr)
    {
        return operand.value;
    }
    if (isFloatType(operand.type))
    {
        return static_cast<double>(device::loadFloat(operand.tensor, operand.type, i));
    }
    return static_cast<double>(device::loadInteger(operand.tensor, operand.type, i));
}

struct Linspace
{
    int32_t rank;
    int64_t extents[device::kMaxRank];
    Operand alpha;
    Operand beta; //!< a static beta is the one delta of a 1-D output; an input holds one delta per dim
};

//! The delta of dim `d`.
__device__ double deltaOf(Linspace const& p, int32_t d)
{
    return p.beta.tensor == nullptr ? p.beta.value : operandAt(p.beta, d);
}

//! kLINSPACE into FP32/FP16/BF16: alpha + sum_d beta[d] * i_d in double, summed over d in order and rounded once to
//! float, as the CPU does. The explicit _rn operations keep nvcc from fusing them into an fma the CPU does not do.
__global__ void realLinspaceKernel(void* output, DataType type, Linspace p, int64_t count)
{
    double const alpha = operandAt(p.alpha, 0);
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        int64_t coordinates[device::kMaxRank];
        int64_t rest = i;
        for (int32_t d = p.rank - 1; d >= 0; --d)
        {
            coordinates[d] = rest % p.extents[d];
            rest /= p.extents[d];
        }
        double value = alpha;
        for (int32_t d = 0; d < p.rank; ++d)
        {
            value = __dadd_rn(value, __dmul_rn(deltaOf(p, d), static_cast<double>(coordinates[d])));
        }
        device::storeFloat(output, type, i, __double2float_rn(value));
    }
}

//! kLINSPACE into INT32/INT64: exact in int64 with alpha and the deltas truncated to integers, as the CPU does.
__global__ void integerLinspaceKernel(void* output, DataType type, Linspace p, int64_t count)
{
    auto const start = static_cast<int64_t>(operandAt(p.alpha, 0));
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        // Unsigned arithmetic wraps as two's complement, where the signed sum would overflow.
        auto value = static_cast<uint64_t>(start);
        int64_t rest = i;
        for (int32_t d = p.rank - 1; d >= 0; --d)
        {
            auto const delta = static_cast<int64_t>(deltaOf(p, d));
            value += static_cast<uint64_t>(delta) * static_cast<uint64_t>(rest % p.extents[d]);
            rest /= p.extents[d];
        }
        device::storeInteger(output, type, i, static_cast<int64_t>(value));
    }
}

//! kRANDOM_UNIFORM and kRANDOM_NORMAL with the CPU's generator and transforms. Bounds the CPU would refuse (only
//! possible when they come from inputs; static ones are checked on the host) make every element NaN.
__global__ void randomFillKernel(
    void* output, DataType type, bool uniform, Operand alphaOperand, Operand betaOperand, int64_t count)
{
    double const alpha = operandAt(alphaOperand, 0);
    double const beta = operandAt(betaOperand, 0);
    bool const valid = isfinite(alpha) && isfinite(beta) && (uniform ? alpha <= beta : beta >= 0.0);
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        auto const element = static_cast<uint64_t>(i);
        double const value = !valid ? nan("")
            : uniform               ? counter_random::uniformElement(alpha, beta, element)
                                    : counter_random::normalElement(alpha, beta, element);
        device::storeFloat(output, type, i, __double2float_rn(value));
    }
}

Operand operandOf(FillOperand const& operand, char const* what)
{
    if (!operand.fromInput())
    {
        return Operand{operand.value, nullptr, DataType::kFLOAT};
    }
    if (!isFloatType(operand.input.type) && !isIndexType(operand.input.type))
    {
        throw std::invalid_argument(std::string("fill: ") + what + " must be FP32, FP16, BF16, INT32 or INT64");
    }
    return Operand{0.0, operand.input.data, operand.input.type};
}

void checkStaticRandomBounds(bool uniform, FillOperand const& alpha, FillOperand const& beta)
{
    // The CPU reference's checks, on the values known here; values from inputs are checked by the kernel.
    if ((!alpha.fromInput() && !std::isfinite(alpha.value)) || (!beta.fromInput() && !std::isfinite(beta.value)))
    {
        throw std::invalid_argument("randomFill: alpha and beta must be finite");
    }
    if (alpha.fromInput() || beta.fromInput())
    {
        return;
    }
    if (uniform && alpha.value > beta.value)
    {
        throw std::invalid_argument("randomFill: the minimum alpha (" + std::to_string(alpha.value)
            + ") exceeds the maximum beta (" + std::to_string(beta.value) + ")");
    }
    if (!uniform && beta.value < 0.0)
    {
        throw std::invalid_argument(
            "randomFill: the standard deviation beta (" + std::to_string(beta.value) + ") is negative");
    }
}

Linspace linspaceOf(FillOperand const& alpha, FillOperand const& beta, TensorView const& output)
{
    int32_t const rank = output.rank();
    if (rank > device::kMaxRank)
    {
        throw std::invalid_argument("fill: the CUDA backend takes outputs of rank at most 8");
    }
    if (beta.fromInput() && beta.input.count() != rank)
    {
        throw std::invalid_argument("fill: beta needs one delta per output dim: " + std::to_string(beta.input.count())
            + " for rank " + std::to_string(rank));
    }
    if (!beta.fromInput() && rank > 1)
    {
        throw std::invalid_argument("fill: a kLINSPACE fill of rank " + std::to_string(rank)
            + " needs beta as input 2, one delta per output dim (a static beta is a single delta, for 0-D and 1-D "
              "outputs)");
    }
    Linspace p{};
    p.rank = rank;
    for (int32_t d = 0; d < rank; ++d)
    {
        p.extents[d] = output.shape[static_cast<size_t>(d)];
    }
    p.alpha = operandOf(alpha, "alpha (input 1)");
    p.beta = operandOf(beta, "beta (input 2)");
    return p;
}

//! The output's shape is the fill's (its shape input, when given, is not read). Throws std::invalid_argument for
//! what the CPU reference refuses when it can be seen on the host: output types, a static kLINSPACE beta for an
//! output of rank > 1, a beta input of the wrong length, and static random bounds that are not finite, a uniform
//! minimum above its maximum or a negative deviation. Random bounds from inputs are checked on the device: where
//! the CPU would refuse them, every output element is NaN instead.
void fillOnDevice(FillOperation operation, FillOperand const& alpha, FillOperand const& beta, TensorView const& output,
    cudaStream_t stream)
{
    int64_t const count = output.count();
    if (operation == FillOperation::kLINSPACE)
    {
        if (!isFloatType(output.type) && !isIndexType(output.type))
        {
            throw std::invalid_argument("fill: kLINSPACE makes FP32, FP16, BF16, INT32 or INT64 output");
        }
        Linspace const p = linspaceOf(alpha, beta, output);
        if (count == 0)
        {
            return;
        }
        if (isIndexType(output.type))
        {
            integerLinspaceKernel<<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
                output.data, output.type, p, count);
        }
        else
        {
            realLinspaceKernel<<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
                output.data, output.type, p, count);
        }
    }
    else if (operation == FillOperation::kRANDOM_UNIFORM || operation == FillOperation::kRANDOM_NORMAL)
    {
        if (!isFloatType(output.type))
        {
            throw std::invalid_argument("randomFill: the output must be FP32, FP16 or BF16");
        }
        bool const uniform = operation == FillOperation::kRANDOM_UNIFORM;
        checkStaticRandomBounds(uniform, alpha, beta);
        Operand const alphaOperand = operandOf(alpha, "alpha (input 1)");
        Operand const betaOperand = operandOf(beta, "beta (input 2)");
        if (count == 0)
        {
            return;
        }
        randomFillKernel<<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
            output.data, output.type, uniform, alphaOperand, betaOperand, count);
    }
    else
    {
        throw std::invalid_argument("fill: unknown fill operation");
    }
    check(cudaGetLastError(), "fill: launching the kernel");
}

} // namespace

void run(network::FillParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream)
{
    // Alpha (input 1) and beta (input 2) come from their inputs when given; the shape (input 0) already decided the
    // output's shape.
    auto operand = [&](size_t index, double value) {
        return FillOperand{value, index < inputs.size() ? inputs[index] : ConstTensorView{}};
    };
    fillOnDevice(params.operation, operand(1, params.alpha), operand(2, params.beta), outputs[0], stream);
}

} // namespace kiln::cuda
