// IActivationLayer on the GPU, with the CPU reference's formulas (backend/cpu/kernels/nn/activation.h): a point-wise
// program of one activation step, which the point-wise kernel runs with the formula chosen once per thread and four
// elements moved per access (pointwise.cu's oneStepKernel).
#include "backend/cuda/kernels/pointwise/pointwise_kernel.h"
#include "backend/cuda/kernels/pointwise/pointwise_program.h"
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/prepared_kernel_layer.h"

#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

//! Every ActivationType, computed in float over FP32, FP16 or BF16 tensors of one shape, element by element as they
//! are stored (whatever their format).
class ActivationLayer final : public PreparedKernelLayer
{
public:
    explicit ActivationLayer(network::ActivationParams const& params)
        : mParams(params)
    {
    }

private:
    void prepare(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        ConstTensorView const& input = inputs[0];
        TensorView const& output = outputs[0];
        if (input.shape != output.shape)
        {
            throw std::invalid_argument("activation: the output's shape differs from the input's");
        }
        if (!isFloatType(input.type) || !isFloatType(output.type))
        {
            throw std::invalid_argument("activation: the CUDA backend takes FP32, FP16 or BF16 tensors");
        }
        auto const type = static_cast<int32_t>(mParams.activation);
        if (type < 0 || type >= nvinfer1::EnumMax<nvinfer1::ActivationType>())
        {
            throw std::invalid_argument("activation: unknown ActivationType " + std::to_string(type));
        }
        network::PointwiseStep step;
        step.kind = nvinfer1::LayerType::kACTIVATION;
        step.operation = type;
        step.alpha = mParams.alpha;
        step.beta = mParams.beta;
        step.first = network::PointwiseOperand::input(0);
        PointwiseOptions options;
        options.checkLayouts = false;
        ConstTensorView const* const stepInputs[] = {&input};
        mProgram = pointwise::makeProgram(&step, 1, stepInputs, 1, output, options);
        mBlocks = pointwiseBlocks(mProgram);
    }

    void launch(cudaStream_t stream) override
    {
        launchPointwise(mProgram, mBlocks, stream);
    }

    network::ActivationParams const& mParams;
    pointwise::Program mProgram;
    unsigned mBlocks{0};
};

} // namespace

std::unique_ptr<DeviceLayer> lower(network::ActivationParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<ActivationLayer>(params);
}

} // namespace kiln::cuda
