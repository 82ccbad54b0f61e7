// A fused point-wise chain (network::PointwiseParams, made by plan/passes/pointwise_fusion.h) on the GPU: one thread
// per output element loads its inputs into a register file, then runs the chain's steps as a small program, each
// step writing one more register; so the chain reads its inputs and writes its output once instead of once per
// layer, and costs one launch. Each step computes what the layer it replaced computes (pointwise_math.cuh), in
// float; FP16 and BF16 tensors are converted on load and store only, so a chain of FP16 layers rounds once where the
// layers rounded after each step.
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/device_access.cuh"
#include "backend/cuda/pointwise_math.cuh"
#include "backend/cuda/prepared_kernel_layer.h"
#include "backend/cuda/strided_index.cuh"

#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::DataType;
using network::PointwiseOperand;

//! How an input's element is found for an output index.
enum class Reach : int32_t
{
    kSAME_SHAPE, //!< the input has the output's shape: the same index
    kSINGLE,     //!< one element, repeated
    kBROADCAST,  //!< through `strides` along the output's axes (0 where it repeats)
};

struct Input
{
    void const* data{nullptr};
    DataType type{DataType::kFLOAT};
    Reach reach{Reach::kSAME_SHAPE};
    int64_t strides[nvinfer1::Dims::MAX_DIMS]{};
};

//! A step whose operands are registers: inputs first, then the steps' results in order.
struct Step
{
    nvinfer1::LayerType kind{nvinfer1::LayerType::kELEMENTWISE};
    int32_t operation{0};
    int32_t first{0};
    int32_t second{0};
    float alpha{0.0F};
    float beta{0.0F};
};

//! The kernel's whole argument, passed by value: the program, its inputs and the output's shape.
struct Program
{
    Step steps[kMaxPointwiseSteps];
    Input inputs[kMaxPointwiseInputs];
    int64_t extents[nvinfer1::Dims::MAX_DIMS]{};
    int32_t stepCount{0};
    int32_t inputCount{0};
    int32_t rank{0};
    bool broadcasts{false}; //!< some input is reached through strides: the output coordinates are needed
    void* output{nullptr};
    DataType outputType{DataType::kFLOAT};
    int64_t count{0};
};

__device__ float readInput(Input const& input, int64_t i, int64_t const* coordinates, int32_t rank)
{
    int64_t offset = i;
    if (input.reach == Reach::kSINGLE)
    {
        offset = 0;
    }
    else if (input.reach == Reach::kBROADCAST)
    {
        offset = 0;
        for (int32_t axis = 0; axis < rank; ++axis)
        {
            offset += coordinates[axis] * input.strides[axis];
        }
    }
    return device::loadFloat(input.data, input.type, offset);
}

__device__ float evaluate(Step const& step, float a, float b)
{
    switch (step.kind)
    {
    case nvinfer1::LayerType::kELEMENTWISE:
        return device::elementWiseFloat(static_cast<nvinfer1::ElementWiseOperation>(step.operation), a, b);
    case nvinfer1::LayerType::kACTIVATION:
        return device::activate(static_cast<nvinfer1::ActivationType>(step.operation), step.alpha, step.beta, a);
    default: return device::unaryFloat(static_cast<nvinfer1::UnaryOperation>(step.operation), a);
    }
}

__global__ void pointwiseKernel(Program const program)
{
    KILN_GRID_STRIDE_LOOP(i, program.count)
    {
        int64_t coordinates[nvinfer1::Dims::MAX_DIMS];
        if (program.broadcasts)
        {
            int64_t rest = i;
            for (int32_t axis = program.rank - 1; axis >= 0; --axis)
            {
                coordinates[axis] = rest % program.extents[axis];
                rest /= program.extents[axis];
            }
        }
        float registers[kMaxPointwiseInputs + kMaxPointwiseSteps];
        for (int32_t input = 0; input < program.inputCount; ++input)
        {
            registers[input] = readInput(program.inputs[input], i, coordinates, program.rank);
        }
        for (int32_t s = 0; s < program.stepCount; ++s)
        {
            Step const& step = program.steps[s];
            float const b = step.kind == nvinfer1::LayerType::kELEMENTWISE ? registers[step.second] : 0.0F;
            registers[program.inputCount + s] = evaluate(step, registers[step.first], b);
        }
        float const result = registers[program.inputCount + program.stepCount - 1];
        device::storeFloat(program.output, program.outputType, i, result);
    }
}

//! The program for `inputs`: each one's reach into the output's shape, which every input broadcasts into.
Program makeProgram(network::PointwiseParams const& params, LayerInputs const& inputs, TensorView const& output)
{
    bool const fits = params.steps.size() <= static_cast<size_t>(kMaxPointwiseSteps)
        && inputs.size() <= static_cast<size_t>(kMaxPointwiseInputs);
    if (params.steps.empty() || !fits || !network::wellFormed(params.steps, inputs.size()))
    {
        throw std::invalid_argument("point-wise chain: " + std::to_string(params.steps.size()) + " steps over "
            + std::to_string(inputs.size()) + " inputs is not a chain the CUDA backend runs (at most "
            + std::to_string(kMaxPointwiseSteps) + " steps and " + std::to_string(kMaxPointwiseInputs) + " inputs)");
    }
    if (!isFloatType(output.type))
    {
        throw std::invalid_argument("point-wise chain: the CUDA backend writes FP32, FP16 or BF16");
    }
    Program program;
    program.rank = static_cast<int32_t>(output.shape.size());
    for (int32_t axis = 0; axis < program.rank; ++axis)
    {
        program.extents[axis] = output.shape[axis];
    }
    auto const registerOf = [&](int32_t operand) {
        auto const firstStep = static_cast<int32_t>(inputs.size());
        return PointwiseOperand::isStep(operand) ? firstStep + PointwiseOperand::stepOf(operand) : operand;
    };
    for (size_t s = 0; s < params.steps.size(); ++s)
    {
        network::PointwiseStep const& step = params.steps[s];
        program.steps[s]
            = Step{step.kind, step.operation, registerOf(step.first), registerOf(step.second), step.alpha, step.beta};
    }
    program.stepCount = static_cast<int32_t>(params.steps.size());
    program.inputCount = static_cast<int32_t>(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        ConstTensorView const& input = inputs[i];
        Input& reach = program.inputs[i];
        if (!isFloatType(input.type) || input.shape.size() != output.shape.size())
        {
            throw std::invalid_argument("point-wise chain: input " + std::to_string(i)
                + " is not a floating-point tensor of the output's rank");
        }
        reach.data = input.data;
        reach.type = input.type;
        if (input.shape == output.shape)
        {
            reach.reach = Reach::kSAME_SHAPE;
        }
        else
        {
            reach.reach = input.count() == 1 ? Reach::kSINGLE : Reach::kBROADCAST;
            int64_t stride = 1;
            for (int32_t axis = program.rank - 1; axis >= 0; --axis)
            {
                if (input.shape[axis] != output.shape[axis] && input.shape[axis] != 1)
                {
                    throw std::invalid_argument(
                        "point-wise chain: input " + std::to_string(i) + " does not broadcast into the output's shape");
                }
                reach.strides[axis] = input.shape[axis] == 1 ? 0 : stride;
                stride *= input.shape[axis];
            }
            program.broadcasts = program.broadcasts || reach.reach == Reach::kBROADCAST;
        }
        // Channels-last tensors are read element by element in storage order, which only inputs of the output's
        // shape and format share with it; a single element reads alike in every format.
        bool const sameLayout = input.format == output.format
            && (input.format == TensorFormat::kLINEAR || reach.reach == Reach::kSAME_SHAPE);
        if (!sameLayout && reach.reach != Reach::kSINGLE)
        {
            throw std::invalid_argument("point-wise chain: a channels-last input must be one element or have the "
                                        "output's shape and format");
        }
    }
    if (output.format != TensorFormat::kLINEAR && output.format != TensorFormat::kHWC)
    {
        throw std::invalid_argument("point-wise chain: the CUDA backend writes kLINEAR or kHWC");
    }
    program.output = output.data;
    program.outputType = output.type;
    program.count = output.count();
    return program;
}

class PointwiseLayer final : public PreparedKernelLayer
{
public:
    explicit PointwiseLayer(network::PointwiseParams const& params)
        : mParams(params)
    {
    }

private:
    void prepare(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        mProgram = makeProgram(mParams, inputs, outputs.at(0));
    }
    void launch(cudaStream_t stream) override
    {
        if (mProgram.count == 0)
        {
            return;
        }
        pointwiseKernel<<<device::blocksFor(mProgram.count), device::kThreadsPerBlock, 0, stream>>>(mProgram);
        check(cudaGetLastError(), "point-wise chain: launching the kernel");
    }

    network::PointwiseParams const& mParams;
    Program mProgram;
};

} // namespace

std::unique_ptr<DeviceLayer> lower(network::PointwiseParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<PointwiseLayer>(params);
}

} // namespace kiln::cuda
