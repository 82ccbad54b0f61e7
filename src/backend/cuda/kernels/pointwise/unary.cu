// IUnaryLayer on the GPU, with the CPU reference's types and rules (backend/cpu/kernels/nn/unary.h).
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/pointwise/pointwise_math.cuh"
#include "backend/cuda/kernels/strided_index.cuh"
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/prepared_kernel_layer.h"
#include "backend/shared/unary_types.h"

#include <stdexcept>

namespace kiln::cuda
{
namespace
{

using device::DataType;
using nvinfer1::UnaryOperation;

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

__global__ void unaryKernel(
    UnaryOperation op, void const* input, DataType inType, void* output, DataType outType, int64_t count)
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
            float const x = device::loadFloat(input, inType, i);
            device::storeInteger(output, outType, i, device::unaryFloat(op, x) != 0.0F);
        }
        else
        {
            device::storeFloat(output, outType, i, device::unaryFloat(op, device::loadFloat(input, inType, i)));
        }
    }
}

//! Every UnaryOperation: floating-point tensors computed in float (kISINF/kISNAN write BOOL), kABS/kNEG/kSIGN on
//! INT8/INT32/INT64 (wrapping), kNOT on BOOL. Throws std::invalid_argument for types the CPU reference refuses.
class UnaryLayer final : public PreparedKernelLayer
{
public:
    explicit UnaryLayer(network::UnaryParams const& params)
        : mOperation(params.operation)
    {
    }

private:
    void prepare(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        ConstTensorView const& input = inputs[0];
        TensorView const& output = outputs[0];
        // The CPU reference decides which types each operation takes, so both backends refuse the same ones.
        if (output.type != backend::unaryOutputType(mOperation, input.type))
        {
            throw std::invalid_argument("unary: the output's type is not the one the operation produces");
        }
        if (input.shape != output.shape)
        {
            throw std::invalid_argument("unary: the output's shape differs from the input's");
        }
        mInput = input.data;
        mInputType = input.type;
        mOutput = output.data;
        mOutputType = output.type;
        mCount = input.count();
    }

    void launch(cudaStream_t stream) override
    {
        if (mCount == 0)
        {
            return;
        }
        unaryKernel<<<device::blocksFor(mCount), device::kThreadsPerBlock, 0, stream>>>(
            mOperation, mInput, mInputType, mOutput, mOutputType, mCount);
        check(cudaGetLastError(), "unary: launching the kernel");
    }

    UnaryOperation mOperation;
    void const* mInput{nullptr};
    device::DataType mInputType{device::DataType::kFLOAT};
    void* mOutput{nullptr};
    device::DataType mOutputType{device::DataType::kFLOAT};
    int64_t mCount{0};
};

} // namespace

std::unique_ptr<DeviceLayer> lower(network::UnaryParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<UnaryLayer>(params);
}

} // namespace kiln::cuda
