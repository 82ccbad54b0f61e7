#include "backend/cuda/layer_adapters.h"

#include "backend/cuda/pooling.h"
#include "backend/cuda/shuffle.h"
#include "backend/cuda/slice.h"
#include "network/layers/layer_utils.h"

namespace kiln::cuda
{
namespace
{

//! Optional input `index` when it was given with data (an input left empty arrives as a view without data).
ConstTensorView optionalInput(std::vector<ConstTensorView> const& in, size_t index)
{
    return index < in.size() && in[index].data != nullptr ? in[index] : ConstTensorView{};
}

} // namespace

void runShuffleLayerOnDevice(network::ShuffleParams const& params, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out, cudaStream_t stream)
{
    std::vector<int32_t> const first(params.firstTranspose.order, params.firstTranspose.order + in[0].rank());
    std::vector<int32_t> const second(params.secondTranspose.order, params.secondTranspose.order + out[0].rank());
    shuffleOnDevice(first, second, in[0], out[0], stream);
}

void runSliceLayerOnDevice(network::SliceParams const& params, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out, cudaStream_t stream)
{
    SliceParameters slice;
    slice.mode = params.mode;
    slice.startTensor = optionalInput(in, 1);
    slice.strideTensor = optionalInput(in, 3);
    slice.fillTensor = optionalInput(in, 4);
    if (slice.startTensor.data == nullptr)
    {
        slice.start = network::dimsToVector(params.start);
    }
    if (slice.strideTensor.data == nullptr)
    {
        slice.stride = network::dimsToVector(params.stride);
    }
    sliceOnDevice(slice, in[0], out[0], stream);
}

void runPoolingLayerOnDevice(network::PoolingParams const& params, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out, cudaStream_t stream)
{
    poolingOnDevice(params, in[0], out[0], stream);
}

} // namespace kiln::cuda
