// IConstantLayer on the GPU: its weights are uploaded once per execution context. Where the plan binds the output
// to them (CudaExecutor::constantAddress) the layer never runs; otherwise a run is a device copy (or a conversion,
// where the application asked for another output type).
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/kernels.h"
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/memory/device_buffer.h"
#include "backend/cuda/prepared_kernel_layer.h"

namespace kiln::cuda
{
namespace
{

class ConstantLayer final : public PreparedKernelLayer
{
public:
    explicit ConstantLayer(network::ConstantParams const& params)
        : mType(params.weights.type())
        , mWeights(uploadWeights(params))
    {
    }

private:
    void prepare(std::vector<ConstTensorView> const& /*inputs*/, std::vector<TensorView> const& outputs) override
    {
        TensorView const& output = outputs.at(0);
        // Field by field: the shapes are copied into the memory they hold, so preparing again allocates nothing.
        mWeightsView.type = mType;
        mWeightsView.shape = output.shape;
        mWeightsView.data = mWeights.data();
        mOutput = output;
    }
    void launch(cudaStream_t stream) override
    {
        castOnDevice(mWeightsView, mOutput, stream);
    }

    nvinfer1::DataType mType;
    DeviceBuffer mWeights;
    ConstTensorView mWeightsView; //!< the weights, shaped as the output
    TensorView mOutput;
};

} // namespace

DeviceBuffer uploadWeights(network::ConstantParams const& params)
{
    size_t const bytes = static_cast<size_t>(params.weights.count()) * elementSize(params.weights.type());
    DeviceBuffer weights(bytes, "the constant's weights");
    check(cudaMemcpy(weights.data(), params.weights.data(), bytes, cudaMemcpyHostToDevice),
        "uploading a constant layer's weights");
    return weights;
}

std::unique_ptr<DeviceLayer> lower(network::ConstantParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<ConstantLayer>(params);
}

} // namespace kiln::cuda
