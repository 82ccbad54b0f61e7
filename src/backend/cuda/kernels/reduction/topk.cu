// ITopKLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/top_k.h): the k largest (kMAX) or
// smallest (kMIN) elements along one axis, best first, with their indices. Any k up to the axis extent (no 3840
// cap); equal values come out lower index first; NaN ranks above every number (first for kMAX, last for kMIN);
// -0 and +0 are equal. The selection and sorting are radix_top_k.cuh's, shared with the TopkLastDim plugin; this
// file gives them the CPU's order as keys.
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/memory/device_buffer.h"
#include "device_common/radix_top_k.cuh"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::DataType;

//! An unsigned key whose order is the CPU's numeric order of `value`: all NaNs one key above +inf (the CPU ranks
//! NaN above every number and NaNs equal), -0 the key of +0 (the CPU finds them equal).
__device__ unsigned int floatRankKey(float value)
{
    if (isnan(value))
    {
        return 0xffffffffU;
    }
    unsigned int const bits = __float_as_uint(value == 0.0F ? 0.0F : value);
    // Positive floats order as their bits once above the negatives; negative ones order backwards.
    return (bits & 0x80000000U) != 0 ? ~bits : bits | 0x80000000U;
}

//! The sort key of input element i: ascending keys are the order the CPU ranks in, best first. kMAX inverts the
//! keys, so that an ascending stable sort still keeps equal elements in index order, as the CPU breaks ties.
template <typename Key>
__device__ Key rankKey(void const* input, DataType type, int64_t i, bool largestFirst)
{
    Key key;
    if (isFloatType(type))
    {
        key = static_cast<Key>(floatRankKey(device::loadFloat(input, type, i)));
    }
    else
    {
        // Two's complement with the sign bit flipped orders as unsigned (the key's width is the type's).
        key = static_cast<Key>(device::loadInteger(input, type, i)) ^ (Key{1} << (sizeof(Key) * 8 - 1));
    }
    return largestFirst ? static_cast<Key>(~key) : key;
}

//! The layer's order for the shared top-k (radix_top_k.cuh): input element i's key, for data of type kType.
template <typename KeyType, DataType kType>
struct LayerRanker
{
    using Key = KeyType;
    // FP16 and BF16 widened to float leave the float's low 13 or 16 bits constant (radix_top_k.cuh skips them).
    static constexpr int kLowBit = kType == DataType::kHALF ? 13 : kType == DataType::kBF16 ? 16 : 0;
    void const* input;
    bool largestFirst;

    __device__ Key operator()(int64_t i) const
    {
        return rankKey<Key>(input, kType, i, largestFirst);
    }
};

template <typename Key, DataType kType, typename T>
void topKOfRows(topk::Rows const& rows, bool largestFirst, ConstTensorView const& input, TensorView const& values,
    TensorView const& indices, DeviceBuffer& scratch, cudaStream_t stream)
{
    size_t const bytes = topk::workspaceBytes<Key>(rows);
    if (bytes > 0)
    {
        scratch.reserve(bytes, stream);
    }
    topk::Picks<T> picks;
    picks.input = static_cast<T const*>(input.data);
    picks.values = static_cast<T*>(values.data);
    picks.indices = indices.data;
    picks.wideIndices = indices.type == DataType::kINT64;
    LayerRanker<Key, kType> const rank{input.data, largestFirst};
    check(topk::topKOfRows(rank, rows, picks, bytes > 0 ? scratch.data() : nullptr, stream), "top-k");
}

//! k is the outputs' extent along the axis (a k from the layer's shape-tensor input is already resolved into it);
//! it must be 1 to the axis extent. Values have the input's type (FP32, FP16, BF16, INT32, INT64) and are copied
//! exactly; indices are INT32 or INT64. The selection and the sort work in `scratch` (grown on the stream as
//! needed, so that runs of the same shape allocate nothing). Throws std::invalid_argument for what the CPU
//! reference refuses.
void topKOnDevice(nvinfer1::TopKOperation operation, uint32_t reduceAxes, ConstTensorView const& input,
    TensorView const& values, TensorView const& indices, DeviceBuffer& scratch, cudaStream_t stream)
{
    int32_t axis = 0;
    while (axis < 31 && (reduceAxes & (1U << axis)) == 0)
    {
        ++axis;
    }
    if (reduceAxes != (1U << axis) || axis >= input.rank())
    {
        throw std::invalid_argument("top-k: reduceAxes must name exactly one axis of the input");
    }
    auto const a = static_cast<size_t>(axis);
    int64_t const k = values.shape.size() == input.shape.size() ? values.shape[a] : -1;
    if (k < 1 || k > input.shape[a])
    {
        throw std::invalid_argument("top-k: k is " + std::to_string(k) + "; must be in [1, "
            + std::to_string(input.shape[a]) + "] (the extent of axis " + std::to_string(axis) + ")");
    }
    Shape expected = input.shape;
    expected[a] = k;
    if (values.shape != expected || indices.shape != expected)
    {
        throw std::invalid_argument("top-k: the outputs must have the input's shape with k along the axis");
    }
    if (values.type != input.type)
    {
        throw std::invalid_argument("top-k: the values must have the input's type");
    }
    if (!isIndexType(indices.type))
    {
        throw std::invalid_argument("top-k: the indices must be INT32 or INT64");
    }
    if (!isFloatType(input.type) && !isIndexType(input.type))
    {
        throw std::invalid_argument("top-k: the input must be FP32, FP16, BF16, INT32 or INT64");
    }
    if (input.shape[a] > INT32_MAX)
    {
        throw std::invalid_argument("top-k: the CUDA backend takes axes of at most 2^31 - 1 elements");
    }
    if (values.count() == 0)
    {
        return;
    }
    topk::Rows rows;
    rows.extent = input.shape[a];
    for (size_t d = a + 1; d < input.shape.size(); ++d)
    {
        rows.inner *= input.shape[d];
    }
    rows.count = input.count() / rows.extent;
    rows.k = k;
    bool const largestFirst = operation == nvinfer1::TopKOperation::kMAX;
    // Keys as wide as the ranked value: 32 bits for FP32, FP16, BF16 and INT32, 64 for INT64.
    switch (input.type)
    {
    case DataType::kINT64:
        topKOfRows<unsigned long long, DataType::kINT64, uint64_t>(
            rows, largestFirst, input, values, indices, scratch, stream);
        break;
    case DataType::kINT32:
        topKOfRows<unsigned, DataType::kINT32, uint32_t>(rows, largestFirst, input, values, indices, scratch, stream);
        break;
    case DataType::kHALF:
        topKOfRows<unsigned, DataType::kHALF, uint16_t>(rows, largestFirst, input, values, indices, scratch, stream);
        break;
    case DataType::kBF16:
        topKOfRows<unsigned, DataType::kBF16, uint16_t>(rows, largestFirst, input, values, indices, scratch, stream);
        break;
    default:
        topKOfRows<unsigned, DataType::kFLOAT, uint32_t>(rows, largestFirst, input, values, indices, scratch, stream);
        break;
    }
}

//! The layer in one execution context. Its only state is the sort's scratch memory: kept for the context's life,
//! so that runs after the first allocate nothing, and allocated through the context's allocator (a DeviceBuffer
//! made while the context makes its layers), as all the backend's device memory is.
class TopKLayer final : public DeviceLayer
{
public:
    explicit TopKLayer(network::TopKParams const& params)
        : mOperation(params.operation)
        , mReduceAxes(params.reduceAxes)
    {
    }

    //! Input 1, when given, held k; the outputs' shape already has it.
    void run(std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs,
        cudaStream_t stream) override
    {
        if (outputs.size() != 2)
        {
            throw std::invalid_argument("top-k: the layer has two outputs, values and indices");
        }
        topKOnDevice(mOperation, mReduceAxes, inputs.at(0), outputs[0], outputs[1], mScratch, stream);
    }

private:
    nvinfer1::TopKOperation mOperation;
    uint32_t mReduceAxes;
    DeviceBuffer mScratch;
};

} // namespace

std::unique_ptr<DeviceLayer> lower(network::TopKParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<TopKLayer>(params);
}

} // namespace kiln::cuda
