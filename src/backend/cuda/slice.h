// ISliceLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/slice.h): output coordinate i
// along dim d reads input coordinate start[d] + i * stride[d], and every SampleMode decides what lies
// outside the input. Also IPaddingLayer, which is a kFILL slice starting before the input.
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace kiln::cuda
{

//! Start and stride come from the host values, or from INT32/INT64 device tensors (one value per dim) when those
//! views have data; the fill value likewise from `fillValue` or a one-element device tensor of any numeric type.
//! The kernel reads device parameters itself, so nothing waits for the GPU; that also means a kSTRICT_BOUNDS
//! violation by device parameters cannot be reported: the kernel then clamps its reads into the input.
struct SliceParameters
{
    std::vector<int64_t> start;
    std::vector<int64_t> stride;
    ConstTensorView startTensor;
    ConstTensorView strideTensor;
    ConstTensorView fillTensor;
    double fillValue{0.0};
    nvinfer1::SampleMode mode{nvinfer1::SampleMode::kSTRICT_BOUNDS};
};

//! The output's shape is the slice's size. Input and output share a byte-addressable type. Throws
//! std::invalid_argument where the CPU reference does, as far as host values show it.
void sliceOnDevice(SliceParameters const& params, ConstTensorView const& input, TensorView const& output,
    cudaStream_t stream);

//! IPaddingLayer: zeros before and after the innermost prePadding.size() dims; negative amounts crop.
void paddingOnDevice(std::vector<int64_t> const& prePadding, std::vector<int64_t> const& postPadding,
    ConstTensorView const& input, TensorView const& output, cudaStream_t stream);

} // namespace kiln::cuda
