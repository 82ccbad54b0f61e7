// A view of a dense tensor: what every kernel reads and writes, in host memory for the
// CPU reference and in device memory for the CUDA backend. The view does not own its data.
#pragma once

#include "core/data_type.h"

#include <NvInferRuntimeBase.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <vector>

namespace kiln
{

using Shape = std::vector<int64_t>;

inline int64_t volume(Shape const& shape)
{
    return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
}

//! Row-major strides, in elements.
inline Shape contiguousStrides(Shape const& shape)
{
    Shape strides(shape.size(), 1);
    for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    {
        strides[i] = strides[i + 1] * shape[i + 1];
    }
    return strides;
}

//! How a view's elements lie in memory. The shape is always the logical one ([N, C, spatial...]); kLINEAR is
//! row-major, kHWC keeps the channel axis (1) innermost, as the CUDA backend stores FP16 convolution chains, and
//! kHWC8 is kHWC with the channels padded with zeros to a multiple of 8, as FP16 tensor-core convolutions read an
//! RGB image. Kernels other than those that say so take kLINEAR only; the builder and the reformatter see to it.
using TensorFormat = nvinfer1::TensorFormat;

//! Whether `format` keeps the channel axis (1) innermost.
inline bool channelsLast(TensorFormat format)
{
    return format == TensorFormat::kHWC || format == TensorFormat::kHWC8;
}

//! Where the axes of a tensor of `rank` axes stored in `format` lie in memory, outermost first: memory axis p holds
//! logical axis storedAxisOrder(...)[p]. kLINEAR keeps them in order, kHWC moves the channel axis innermost. kHWC8
//! pads its channels and is no permutation of the elements: not asked for.
inline std::vector<int32_t> storedAxisOrder(TensorFormat format, size_t rank)
{
    std::vector<int32_t> order(rank);
    for (size_t p = 0; p < rank; ++p)
    {
        order[p] = static_cast<int32_t>(p);
    }
    if (format == TensorFormat::kHWC && rank >= 3)
    {
        std::rotate(order.begin() + 1, order.begin() + 2, order.end()); // (0, 2, ..., rank - 1, 1)
    }
    return order;
}

//! The channels a tensor of `shape` stored in `format` keeps per position: C, padded to a multiple of 8 in kHWC8.
inline int64_t storedChannels(Shape const& shape, TensorFormat format)
{
    int64_t const channels = shape.size() > 1 ? shape[1] : 1;
    return format == TensorFormat::kHWC8 ? (channels + 7) / 8 * 8 : channels;
}

//! The elements a tensor of `shape` takes in memory in `format`: its volume, and kHWC8's padding.
inline int64_t storedCount(Shape const& shape, TensorFormat format)
{
    int64_t const channels = shape.size() > 1 ? shape[1] : 1;
    return channels == 0 ? 0 : volume(shape) / channels * storedChannels(shape, format);
}

struct TensorView
{
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    Shape shape;
    void* data{nullptr};
    TensorFormat format{TensorFormat::kLINEAR};

    int64_t count() const
    {
        return volume(shape);
    }
    int32_t rank() const
    {
        return static_cast<int32_t>(shape.size());
    }
    template <typename T>
    T* as() const
    {
        return static_cast<T*>(data);
    }
};

//! A read-only view.
struct ConstTensorView
{
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    Shape shape;
    void const* data{nullptr};
    TensorFormat format{TensorFormat::kLINEAR};

    ConstTensorView() = default;
    ConstTensorView(nvinfer1::DataType t, Shape s, void const* d, TensorFormat f = TensorFormat::kLINEAR)
        : type(t)
        , shape(std::move(s))
        , data(d)
        , format(f)
    {
    }
    ConstTensorView(TensorView const& v) // NOLINT: a mutable view is also a read-only one
        : type(v.type)
        , shape(v.shape)
        , data(v.data)
        , format(v.format)
    {
    }

    int64_t count() const
    {
        return volume(shape);
    }
    int32_t rank() const
    {
        return static_cast<int32_t>(shape.size());
    }
    template <typename T>
    T const* as() const
    {
        return static_cast<T const*>(data);
    }
};

} // namespace kiln
