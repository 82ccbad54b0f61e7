// IUnaryLayer on the GPU, with the CPU reference's types and rules (backend/cpu/kernels/nn/unary.h).
#include "backend/cuda/layer_kernels.h"
#include "backend/cpu/kernels/nn/unary.h"
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/device_access.cuh"
#include "backend/cuda/strided_index.cuh"

#include <stdexcept>

namespace kiln::cuda
{
namespace
{

using device::DataType;
using nvinfer1::UnaryOperation;

// Half to even regardless of the rounding mode, as the CPU's roundHalfToEven (rintf rounds to nearest even).
__device__ float roundHalfEven(float x)
{
    return rintf(x);
}

// The CPU reference's formulas (backend/cpu/kernels/nn/unary.cpp), in float.
__device__ float applyFloat(UnaryOperation op, float x)
{
    switch (op)
    {
    case UnaryOperation::kEXP: return expf(x);
    case UnaryOperation::kLOG: return logf(x);
    case UnaryOperation::kSQRT: return sqrtf(x);
    case UnaryOperation::kRECIP: return 1.0F / x;
    case UnaryOperation::kABS: return fabsf(x);
    case UnaryOperation::kNEG: return -x;
    case UnaryOperation::kSIN: return sinf(x);
    case UnaryOperation::kCOS: return cosf(x);
    case UnaryOperation::kTAN: return tanf(x);
    case UnaryOperation::kSINH: return sinhf(x);
    case UnaryOperation::kCOSH: return coshf(x);
    case UnaryOperation::kASIN: return asinf(x);
    case UnaryOperation::kACOS: return acosf(x);
    case UnaryOperation::kATAN: return atanf(x);
    case UnaryOperation::kASINH: return asinhf(x);
    case UnaryOperation::kACOSH: return acoshf(x);
    case UnaryOperation::kATANH: return atanhf(x);
    case UnaryOperation::kCEIL: return ceilf(x);
    case UnaryOperation::kFLOOR: return floorf(x);
    case UnaryOperation::kERF: return erff(x);
    case UnaryOperation::kSIGN: return isnan(x) ? x : static_cast<float>((x > 0.0F) - (x < 0.0F));
    case UnaryOperation::kROUND: return roundHalfEven(x);
    case UnaryOperation::kISINF: return isinf(x) ? 1.0F : 0.0F;
    case UnaryOperation::kISNAN: return isnan(x) ? 1.0F : 0.0F;
    default: return 0.0F;
    }
}

__device__ int64_t applyInteger(UnaryOperation op, int64_t x)
{
    // Negating through unsigned arithmetic wraps (-INT_MIN is INT_MIN) instead of overflowing.
    auto const negated = static_cast<int64_t>(0ULL - static_cast<uint64_t>(x));
    switch (op)
    {
    case UnaryOperation::kABS: return x < 0 ? negated : x;
    case UnaryOperation::kNEG: return negated;
    case UnaryOperation::kSIGN: return (x > 0) - (x < 0);
    default: return 0;
    }
}

__global__ void unaryKernel(UnaryOperation op, void const* input, DataType inType, void* output, DataType outType,
    int64_t count)
{
    bool const floats = isFloatType(inType);
    bool const toBool = outType == DataType::kBOOL;
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        if (op == UnaryOperation::kNOT)
        {
            device::storeInteger(output, outType, i, device::loadInteger(input, inType, i) == 0 ? 1 : 0);
        }
        else if (!floats)
        {
            device::storeInteger(output, outType, i, applyInteger(op, device::loadInteger(input, inType, i)));
        }
        else if (toBool)
        {
            device::storeInteger(output, outType, i, applyFloat(op, device::loadFloat(input, inType, i)) != 0.0F);
        }
        else
        {
            device::storeFloat(output, outType, i, applyFloat(op, device::loadFloat(input, inType, i)));
        }
    }
}

//! Every UnaryOperation: floating-point tensors computed in float (kISINF/kISNAN write BOOL), kABS/kNEG/kSIGN on
//! INT8/INT32/INT64 (wrapping), kNOT on BOOL. Throws std::invalid_argument for types the CPU reference refuses.
void unaryOnDevice(UnaryOperation op, ConstTensorView const& input, TensorView const& output,
    cudaStream_t stream)
{
    // The CPU reference decides which types each operation takes, so both backends refuse the same ones.
    if (output.type != cpu::unaryOutputType(op, input.type))
    {
        throw std::invalid_argument("unary: the output's type is not the one the operation produces");
    }
    if (input.shape != output.shape)
    {
        throw std::invalid_argument("unary: the output's shape differs from the input's");
    }
    int64_t const count = input.count();
    if (count == 0)
    {
        return;
    }
    unaryKernel<<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
        op, input.data, input.type, output.data, output.type, count);
    check(cudaGetLastError(), "unary: launching the kernel");
}

} // namespace

void run(network::UnaryParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream)
{
    unaryOnDevice(params.operation, inputs[0], outputs[0], stream);
}

} // namespace kiln::cuda
