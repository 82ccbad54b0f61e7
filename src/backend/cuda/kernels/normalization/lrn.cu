// ILRNLayer on the GPU, by the CPU reference's rules (backend/cpu/kernels/nn/lrn.h): one thread per output element
// sums the squares of its window's channels that exist (at most 15; neighbouring threads read neighbouring elements
// of each channel's plane, so every load is coalesced) and divides by (k + alpha / window * sum)^beta. It computes in
// float where the reference computes in double: the results differ by float's rounding, and a negative base to a
// fractional beta gives NaN on both, as pow does.
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/strided_index.cuh"
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

//! Where the channels lie: element i is channel (i / inner) % channels of its batch of planes.
struct ChannelPlanes
{
    int64_t channels;
    int64_t inner; //!< elements per channel plane: the last two extents' product
    int64_t count; //!< elements in all
};

//! The layer's parameters as the kernel uses them.
struct Window
{
    int64_t half; //!< channels on each side of the centre: (window - 1) / 2
    float scale;  //!< alpha / window
    float k;
    float beta;
};

__global__ void lrnKernel(
    void const* input, DataType inType, void* output, DataType outType, ChannelPlanes planes, Window window)
{
    KILN_GRID_STRIDE_LOOP(i, planes.count)
    {
        int64_t const c = (i / planes.inner) % planes.channels;
        int64_t const first = c > window.half ? c - window.half : 0;
        int64_t const last = c + window.half < planes.channels ? c + window.half : planes.channels - 1;
        int64_t const channelZero = i - c * planes.inner; // this element's position in its batch's channel 0
        float squares = 0.0F;
        for (int64_t j = first; j <= last; ++j)
        {
            float const x = device::loadFloat(input, inType, channelZero + j * planes.inner);
            squares += x * x;
        }
        float const divisor = powf(window.k + window.scale * squares, window.beta);
        device::storeFloat(output, outType, i, device::loadFloat(input, inType, i) / divisor);
    }
}

//! The LRN of FP32, FP16 or BF16 tensors of one shape, rank 3 or more, stored row-major.
class LrnLayer final : public PreparedKernelLayer
{
public:
    explicit LrnLayer(network::LRNParams const& params)
        : mParams(params)
    {
    }

private:
    void prepare(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        ConstTensorView const& input = inputs[0];
        TensorView const& output = outputs[0];
        if (input.shape != output.shape || !isFloatType(input.type) || !isFloatType(output.type))
        {
            throw std::invalid_argument("LRN: input and output must be FP32, FP16 or BF16 of one shape");
        }
        int32_t const rank = input.rank();
        if (rank < 3)
        {
            throw std::invalid_argument("LRN: the input must have rank 3 or more, not " + std::to_string(rank));
        }
        std::string const error = mParams.parameterError();
        if (!error.empty())
        {
            throw std::invalid_argument("LRN: " + error);
        }
        auto const channelAxis = static_cast<size_t>(rank - 3);
        mInput = input.data;
        mInputType = input.type;
        mOutput = output.data;
        mOutputType = output.type;
        mPlanes = ChannelPlanes{
            input.shape[channelAxis], input.shape[channelAxis + 1] * input.shape[channelAxis + 2], input.count()};
        mWindow = Window{(mParams.window - 1) / 2,
            static_cast<float>(static_cast<double>(mParams.alpha) / static_cast<double>(mParams.window)), mParams.k,
            mParams.beta};
    }

    void launch(cudaStream_t stream) override
    {
        if (mPlanes.count == 0)
        {
            return;
        }
        lrnKernel<<<device::blocksFor(mPlanes.count), device::kThreadsPerBlock, 0, stream>>>(
            mInput, mInputType, mOutput, mOutputType, mPlanes, mWindow);
        check(cudaGetLastError(), "LRN: launching the kernel");
    }

    network::LRNParams const& mParams;
    void const* mInput{nullptr};
    DataType mInputType{DataType::kFLOAT};
    void* mOutput{nullptr};
    DataType mOutputType{DataType::kFLOAT};
    ChannelPlanes mPlanes{};
    Window mWindow{};
};

} // namespace

std::unique_ptr<DeviceLayer> lower(network::LRNParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<LrnLayer>(params);
}

} // namespace kiln::cuda
