// Kiln extension: how IScatterLayer combines each update with the element it lands on. TensorRT's scatter layer only
// replaces the element (kNONE); ONNX ScatterND and ScatterElements also add or multiply (opset 16) and keep the larger
// or the smaller (opset 18), which Kiln's CPU and CUDA backends both run.
#pragma once

#include <NvInfer.h>

namespace kiln
{

enum class ScatterReduction : int32_t
{
    kNONE = 0, //!< the update replaces the element (TensorRT's behaviour, and the default)
    kADD = 1,  //!< element + update
    kMUL = 2,  //!< element * update
    kMAX = 3,  //!< the larger of the two (NaN wins, as in numpy's maximum)
    kMIN = 4,  //!< the smaller of the two (NaN wins, as in numpy's minimum)
};

//! Kiln extension, not in TensorRT: sets how `layer` combines updates with its data. Arithmetic reductions take
//! FLOAT, HALF, BF16, INT8, UINT8, INT32 and INT64 data (integers wrap to their width; floating-point types compute in
//! FP32 and round once per update), which the build checks. Several updates of one element combine one after the
//! other: in index order on the CPU, in any order on the GPU (so floating-point sums may round differently). False
//! (and no change) if the layer is not Kiln's or `reduction` is not a ScatterReduction.
bool setScatterReduction(nvinfer1::IScatterLayer& layer, ScatterReduction reduction) noexcept;
//! kNONE for a layer that is not Kiln's.
ScatterReduction getScatterReduction(nvinfer1::IScatterLayer const& layer) noexcept;

} // namespace kiln

namespace nvinfer1::impl
{
//! Lets a plan's reader range-check the reduction it reads back.
template <>
struct EnumMaxImpl<kiln::ScatterReduction>
{
    static constexpr int32_t kVALUE = 5;
};
} // namespace nvinfer1::impl
