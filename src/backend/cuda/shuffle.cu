// IShuffleLayer on the GPU: first transpose, reshape, second transpose, as the CPU reference
// (backend/cpu/kernels/tensor/shuffle.h). The runtime has already resolved the output shape
// (placeholders, -1, a shape-tensor input), so the reshape is only a reinterpretation.
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/kernels.h"
#include "backend/cuda/prepared_kernel_layer.h"
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/device_access.cuh"
#include "backend/cuda/strided_index.cuh"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::StridedShape;

//! Output element i: its coordinates, read through `reshaped`'s strides, give its position in the first
//! transpose's (contiguous) result; that position, read through `transposed`'s strides, gives the input element.
//! An identity first transpose skips the second step.
template <typename T>
__global__ void shuffleKernel(
    T const* input, T* output, StridedShape reshaped, StridedShape transposed, bool firstIsIdentity, int64_t count)
{
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        int64_t const position = device::stridedOffset(i, reshaped);
        output[i] = input[firstIsIdentity ? position : device::stridedOffset(position, transposed)];
    }
}

bool isIdentity(int32_t const* order, size_t rank)
{
    for (size_t i = 0; i < rank; ++i)
    {
        if (order[i] != static_cast<int32_t>(i))
        {
            return false;
        }
    }
    return true;
}

//! Checks that `order` permutes `rank` dims (at most nvinfer1::Dims::MAX_DIMS).
void requirePermutation(int32_t const* order, size_t rank, char const* which)
{
    bool seen[nvinfer1::Dims::MAX_DIMS]{};
    bool valid = rank <= static_cast<size_t>(nvinfer1::Dims::MAX_DIMS);
    for (size_t i = 0; valid && i < rank; ++i)
    {
        valid = order[i] >= 0 && static_cast<size_t>(order[i]) < rank && !seen[static_cast<size_t>(order[i])];
        if (valid)
        {
            seen[static_cast<size_t>(order[i])] = true;
        }
    }
    if (!valid)
    {
        throw std::invalid_argument(std::string("shuffle: the ") + which + " transpose is not a permutation of "
            + std::to_string(rank) + " dims");
    }
}

//! Row-major strides of the `rank` extents.
void rowMajorStrides(int64_t const* extents, size_t rank, int64_t* strides)
{
    int64_t stride = 1;
    for (size_t axis = rank; axis-- > 0;)
    {
        strides[axis] = stride;
        stride *= extents[axis];
    }
}

//! The layer's first transpose has one entry per input dim, its second one per output dim (out.shape[i] =
//! reshaped[secondTranspose[i]]). Every byte-addressable type; input and output share it. One kernel: the
//! shuffle's, or a copy when neither transpose moves anything.
class ShuffleLayer final : public PreparedKernelLayer
{
public:
    explicit ShuffleLayer(network::ShuffleParams const& params)
        : mParams(params)
    {
    }

private:
    void prepare(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        ConstTensorView const& input = inputs[0];
        TensorView const& output = outputs[0];
        int32_t const* first = mParams.firstTranspose.order;
        int32_t const* second = mParams.secondTranspose.order;
        size_t const inRank = input.shape.size();
        size_t const outRank = output.shape.size();
        requirePermutation(first, inRank, "first");
        requirePermutation(second, outRank, "second");
        if (input.type != output.type || input.count() != output.count())
        {
            throw std::invalid_argument("shuffle: the output must have the input's type and element count");
        }
        mInput = input.data;
        mOutput = output.data;
        mCount = output.count();
        mElementBytes = elementSize(input.type);
        mFirstIsIdentity = isIdentity(first, inRank);
        mCopies = mFirstIsIdentity && isIdentity(second, outRank);
        if (mCopies || mCount == 0)
        {
            return;
        }
        // The reshape's result, in which the second transpose picks: reshaped[second[i]] = out.shape[i].
        int64_t reshapedExtents[nvinfer1::Dims::MAX_DIMS]{};
        for (size_t i = 0; i < outRank; ++i)
        {
            reshapedExtents[second[i]] = output.shape[i];
        }
        int64_t reshapedStrides[nvinfer1::Dims::MAX_DIMS]{};
        rowMajorStrides(reshapedExtents, outRank, reshapedStrides);
        mReshaped.rank = static_cast<int32_t>(outRank);
        for (size_t i = 0; i < outRank; ++i)
        {
            mReshaped.extents[i] = output.shape[i];
            mReshaped.strides[i] = reshapedStrides[second[i]];
        }
        // The first transpose's result, row-major, read through the input's strides.
        int64_t inputStrides[nvinfer1::Dims::MAX_DIMS]{};
        rowMajorStrides(input.shape.data(), inRank, inputStrides);
        mTransposed.rank = static_cast<int32_t>(inRank);
        for (size_t i = 0; i < inRank; ++i)
        {
            mTransposed.extents[i] = input.shape[first[i]];
            mTransposed.strides[i] = inputStrides[first[i]];
        }
        device::withElementOfSize(mElementBytes, "shuffle", [](auto) {}); // refuses other sizes now
    }

    void launch(cudaStream_t stream) override
    {
        if (mCount == 0)
        {
            return;
        }
        if (mCopies)
        {
            copyOnDevice(mOutput, mInput, static_cast<size_t>(mCount) * mElementBytes, stream);
            return;
        }
        device::withElementOfSize(mElementBytes, "shuffle", [&](auto element) {
            using T = decltype(element);
            shuffleKernel<T>
                <<<device::blocksFor(mCount), device::kThreadsPerBlock, 0, stream>>>(static_cast<T const*>(mInput),
                    static_cast<T*>(mOutput), mReshaped, mTransposed, mFirstIsIdentity, mCount);
        });
        check(cudaGetLastError(), "shuffle: launching the kernel");
    }

    network::ShuffleParams const& mParams;
    void const* mInput{nullptr};
    void* mOutput{nullptr};
    int64_t mCount{0};
    size_t mElementBytes{0};
    bool mFirstIsIdentity{false};
    bool mCopies{false}; //!< neither transpose moves anything
    StridedShape mReshaped;
    StridedShape mTransposed;
};

} // namespace

std::unique_ptr<DeviceLayer> lower(network::ShuffleParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<ShuffleLayer>(params);
}

} // namespace kiln::cuda
