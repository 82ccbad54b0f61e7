// IFillLayer (ONNX Range as kLINSPACE; ConstantOfShape as fillWithValue).
//
// kLINSPACE: element at index (i0, i1, ...) = alpha + sum_d beta[d] * i_d (TensorRT's start and per-dim
// delta; beta holds one delta per output dim). FP32/FP16/BF16 compute in double; INT32/INT64 exactly in
// int64 (alpha and beta truncated to integers). The random operations are not reference kernels.
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>

#include <vector>

namespace kiln::cpu
{

struct Fill
{
    nvinfer1::FillOperation operation{nvinfer1::FillOperation::kLINSPACE};
    double alpha{0.0};
    std::vector<double> beta{1.0};
};

void fill(TensorView const& output, Fill const& params);

//! ConstantOfShape: every element becomes `value` (one element of the output's type), copied as bytes.
void fillWithValue(TensorView const& output, ConstTensorView const& value);

//! ONNX Range's length: max(ceil((limit - start) / delta), 0). Throws when delta is 0.
int64_t rangeLength(double start, double limit, double delta);
int64_t rangeLength(int64_t start, int64_t limit, int64_t delta);

} // namespace kiln::cpu
