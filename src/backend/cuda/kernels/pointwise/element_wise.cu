#include "backend/cuda/kernels/kernels.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/pointwise/pointwise_kernel.h"
#include "backend/cuda/kernels/pointwise/pointwise_math.cuh"
#include "backend/cuda/kernels/pointwise/pointwise_program.h"
#include "backend/cuda/kernels/storage_order.h"
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/prepared_kernel_layer.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::DataType;
using nvinfer1::ElementWiseOperation;

//! Where each operand's element lies for an output index, the axes in the output's storage order: strides of 0 repeat
//! a broadcast extent.
struct BroadcastIndex
{
    int32_t rank{0};
    int64_t extents[nvinfer1::Dims::MAX_DIMS]{};
    int64_t firstStrides[nvinfer1::Dims::MAX_DIMS]{};
    int64_t secondStrides[nvinfer1::Dims::MAX_DIMS]{};
};

__device__ bool isComparison(ElementWiseOperation op)
{
    return op == ElementWiseOperation::kEQUAL || op == ElementWiseOperation::kGREATER
        || op == ElementWiseOperation::kLESS;
}

__device__ bool isLogical(ElementWiseOperation op)
{
    return op == ElementWiseOperation::kAND || op == ElementWiseOperation::kOR || op == ElementWiseOperation::kXOR;
}

//! Integer arithmetic on int64 values; the store wraps the result to the tensor's width.
__device__ int64_t integerOp(ElementWiseOperation op, int64_t a, int64_t b)
{
    auto const ua = static_cast<uint64_t>(a);
    auto const ub = static_cast<uint64_t>(b);
    switch (op)
    {
    case ElementWiseOperation::kSUM: return static_cast<int64_t>(ua + ub);
    case ElementWiseOperation::kPROD: return static_cast<int64_t>(ua * ub);
    case ElementWiseOperation::kMAX: return a > b ? a : b;
    case ElementWiseOperation::kMIN: return a < b ? a : b;
    case ElementWiseOperation::kSUB: return static_cast<int64_t>(ua - ub);
    case ElementWiseOperation::kDIV:
        // Division by zero gives 0; so does the one overflowing quotient's wrap, INT64_MIN / -1.
        return b == 0 ? 0 : (b == -1 ? static_cast<int64_t>(0 - ua) : a / b);
    case ElementWiseOperation::kFLOOR_DIV:
    {
        if (b == 0)
        {
            return 0;
        }
        if (b == -1)
        {
            return static_cast<int64_t>(0 - ua);
        }
        int64_t const quotient = a / b;
        return (a % b != 0 && ((a < 0) != (b < 0))) ? quotient - 1 : quotient;
    }
    case ElementWiseOperation::kPOW:
    {
        if (b < 0)
        {
            // The truncated quotient of 1 / a^|b|.
            return a == 1 ? 1 : (a == -1 ? ((b % 2 != 0) ? -1 : 1) : 0);
        }
        uint64_t result = 1;
        uint64_t base = ua;
        for (uint64_t e = ub; e != 0; e >>= 1)
        {
            if (e & 1U)
            {
                result *= base;
            }
            base *= base;
        }
        return static_cast<int64_t>(result);
    }
    default: return 0;
    }
}

__device__ float reluIf(bool relu, float value)
{
    return relu && value < 0.0F ? 0.0F : value; // NaN compares false and passes through
}

__global__ void elementWiseKernel(ElementWiseOperation op, void const* first, void const* second, DataType inType,
    void* output, DataType outType, BroadcastIndex index, int64_t count, bool relu)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(blockDim.x) * gridDim.x)
    {
        int64_t rest = i;
        int64_t a = 0;
        int64_t b = 0;
        for (int32_t axis = index.rank - 1; axis >= 0; --axis)
        {
            int64_t const coordinate = rest % index.extents[axis];
            rest /= index.extents[axis];
            a += coordinate * index.firstStrides[axis];
            b += coordinate * index.secondStrides[axis];
        }
        bool const floats = isFloatType(inType);
        if (isComparison(op))
        {
            bool result = false;
            if (floats)
            {
                float const x = device::loadFloat(first, inType, a);
                float const y = device::loadFloat(second, inType, b);
                result = op == ElementWiseOperation::kEQUAL ? x == y
                                                            : (op == ElementWiseOperation::kGREATER ? x > y : x < y);
            }
            else
            {
                int64_t const x = device::loadInteger(first, inType, a);
                int64_t const y = device::loadInteger(second, inType, b);
                result = op == ElementWiseOperation::kEQUAL ? x == y
                                                            : (op == ElementWiseOperation::kGREATER ? x > y : x < y);
            }
            device::storeInteger(output, outType, i, result ? 1 : 0);
        }
        else if (isLogical(op))
        {
            bool const x = device::loadInteger(first, inType, a) != 0;
            bool const y = device::loadInteger(second, inType, b) != 0;
            bool const result
                = op == ElementWiseOperation::kAND ? (x && y) : (op == ElementWiseOperation::kOR ? (x || y) : (x != y));
            device::storeInteger(output, outType, i, result ? 1 : 0);
        }
        else if (floats)
        {
            float const x = device::loadFloat(first, inType, a);
            float const y = device::loadFloat(second, inType, b);
            device::storeFloat(output, outType, i, reluIf(relu, device::elementWiseFloat(op, x, y)));
        }
        else
        {
            device::storeInteger(output, outType, i,
                integerOp(op, device::loadInteger(first, inType, a), device::loadInteger(second, inType, b)));
        }
    }
}

//! Whether the pointwise kernel computes this layer: floating-point arithmetic (not comparisons or logic), whose
//! one-step program reads same-shape operands linearly and in groups, single elements once, and pays index arithmetic
//! only for true broadcasts. The general kernel below takes the rest.
bool isFloatArithmetic(ElementWiseOperation op, ConstTensorView const& first, TensorView const& output)
{
    bool const arithmetic = op == ElementWiseOperation::kSUM || op == ElementWiseOperation::kPROD
        || op == ElementWiseOperation::kMAX || op == ElementWiseOperation::kMIN || op == ElementWiseOperation::kSUB
        || op == ElementWiseOperation::kDIV || op == ElementWiseOperation::kPOW
        || op == ElementWiseOperation::kFLOOR_DIV;
    return arithmetic && isFloatType(first.type) && isFloatType(output.type);
}

//! The one-step point-wise program of floating-point arithmetic (isFloatArithmetic) on these tensors.
pointwise::Program floatArithmetic(ElementWiseOperation op, ConstTensorView const& first, ConstTensorView const& second,
    TensorView const& output, bool relu)
{
    network::PointwiseStep step;
    step.kind = nvinfer1::LayerType::kELEMENTWISE;
    step.operation = static_cast<int32_t>(op);
    step.first = network::PointwiseOperand::input(0);
    step.second = network::PointwiseOperand::input(1);
    PointwiseOptions options;
    options.reluAfter = relu;
    options.checkLayouts = false;
    ConstTensorView const* const inputs[] = {&first, &second};
    return pointwise::makeProgram(&step, 1, inputs, 2, output, options);
}

//! One element-wise operation as it is launched: the operands, how they broadcast, and which kernel runs it.
struct ElementWiseLaunch
{
    ElementWiseOperation op{ElementWiseOperation::kSUM};
    void const* first{nullptr};
    void const* second{nullptr};
    DataType inType{DataType::kFLOAT};
    void* output{nullptr};
    DataType outType{DataType::kFLOAT};
    BroadcastIndex index;
    int64_t count{0};
    bool relu{false};
    unsigned blocks{0};
    //! Floating-point arithmetic: the point-wise kernel runs `program` on `blocks` blocks instead of the general one.
    bool usesPointwise{false};
    pointwise::Program program;
};

//! Row-major strides of `shape` with its axes in `format`'s storage order (storage_order.h), with 0 where an extent of
//! 1 is broadcast to a larger output extent.
void broadcastStrides(Shape const& shape, Shape const& out, TensorFormat format, int64_t* strides)
{
    int64_t stride = 1;
    for (size_t position = shape.size(); position-- > 0;)
    {
        size_t const axis = storedAxisAt(format, shape.size(), position);
        strides[position] = shape[axis] == 1 && out[axis] != 1 ? 0 : stride;
        stride *= shape[axis];
    }
}

bool isSupportedType(nvinfer1::DataType type)
{
    using nvinfer1::DataType;
    return type == DataType::kFLOAT || type == DataType::kHALF || type == DataType::kBF16 || type == DataType::kINT8
        || type == DataType::kINT32 || type == DataType::kINT64 || type == DataType::kBOOL;
}

//! Checks the operands and works out how they broadcast into the output; throws std::invalid_argument for what the
//! CUDA backend does not take.
ElementWiseLaunch prepareElementWise(nvinfer1::ElementWiseOperation op, ConstTensorView const& first,
    ConstTensorView const& second, TensorView const& output, bool relu)
{
    if (first.type != second.type || !isSupportedType(first.type))
    {
        throw std::invalid_argument("element-wise: the CUDA backend takes two inputs of one type among FP32, FP16, "
                                    "BF16, INT8, INT32, INT64 and BOOL");
    }
    if (first.shape.size() != output.shape.size() || second.shape.size() != output.shape.size()
        || output.shape.size() > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
    {
        throw std::invalid_argument("element-wise: the inputs and the output must have one rank of at most 8");
    }
    ElementWiseLaunch launch;
    BroadcastIndex& index = launch.index;
    index.rank = static_cast<int32_t>(output.shape.size());
    for (int32_t axis = 0; axis < index.rank; ++axis)
    {
        index.extents[axis] = output.shape[storedAxisAt(output.format, output.shape.size(), axis)];
        for (auto const* operand : {&first.shape, &second.shape})
        {
            int64_t const extent = (*operand)[axis];
            if (extent != output.shape[axis] && extent != 1)
            {
                throw std::invalid_argument("element-wise: an input's extent " + std::to_string(extent)
                    + " does not broadcast to the output's " + std::to_string(output.shape[axis]));
            }
        }
    }
    for (ConstTensorView const* operand : {&first, &second})
    {
        // A broadcast operand is walked in the output's storage order; one of the output's shape at its index.
        if (operand->shape != output.shape && !walksInStorageOrder(*operand, output))
        {
            throw std::invalid_argument("element-wise: a broadcast input is stored in another format than the "
                                        "output, or in kHWC8, and would be read out of order");
        }
    }
    broadcastStrides(first.shape, output.shape, output.format, index.firstStrides);
    broadcastStrides(second.shape, output.shape, output.format, index.secondStrides);
    launch.op = op;
    launch.first = first.data;
    launch.second = second.data;
    launch.inType = first.type;
    launch.output = output.data;
    launch.outType = output.type;
    launch.count = output.count();
    launch.relu = relu;
    if (launch.count == 0)
    {
        return launch;
    }
    launch.usesPointwise = isFloatArithmetic(op, first, output);
    if (launch.usesPointwise)
    {
        launch.program = floatArithmetic(op, first, second, output, relu);
        launch.blocks = pointwiseBlocks(launch.program);
    }
    else
    {
        launch.blocks = device::blocksFor(launch.count);
    }
    return launch;
}

void launchElementWise(ElementWiseLaunch const& launch, cudaStream_t stream)
{
    if (launch.count == 0)
    {
        return;
    }
    if (launch.usesPointwise)
    {
        launchPointwise(launch.program, launch.blocks, stream);
        return;
    }
    elementWiseKernel<<<launch.blocks, device::kThreadsPerBlock, 0, stream>>>(launch.op, launch.first, launch.second,
        launch.inType, launch.output, launch.outType, launch.index, launch.count, launch.relu);
    check(cudaGetLastError(), "element-wise: launching the kernel");
}

class ElementWiseLayer final : public PreparedKernelLayer
{
public:
    ElementWiseLayer(ElementWiseOperation op, bool relu)
        : mOperation(op)
        , mRelu(relu)
    {
    }

private:
    void prepare(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        mLaunch = prepareElementWise(mOperation, inputs[0], inputs[1], outputs[0], mRelu);
    }
    void launch(cudaStream_t stream) override
    {
        launchElementWise(mLaunch, stream);
    }

    ElementWiseOperation mOperation;
    bool mRelu;
    ElementWiseLaunch mLaunch;
};

} // namespace

std::unique_ptr<DeviceLayer> makeElementWiseLayer(nvinfer1::ElementWiseOperation op, bool relu)
{
    return std::make_unique<ElementWiseLayer>(op, relu);
}

std::unique_ptr<DeviceLayer> lower(network::ElementWiseParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<ElementWiseLayer>(params.operation, false);
}

} // namespace kiln::cuda
