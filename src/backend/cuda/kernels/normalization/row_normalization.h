// Normalization of the rows of a tensor (its elements that differ only along some last axes) on the GPU: the
// kernel behind INormalizationLayer over the last axes (normalization.cu) and behind fused normalizations
// (fused_normalization.cu, network::FusedNormalizationParams, whose header states what is computed).
//
// Each row is read once, kept in registers: where there are rows enough to fill the GPU, rows of up to 32 packs (a
// pack: 16 bytes of elements, or one element) share a warp, each on the fewest lanes that hold it a pack each, and
// rows up to 1024 elements on the fewest lanes that hold them 32 elements each (a warp or less); else a block of up to
// 512 threads per row up to 16384 (for a few rows, about one 16-byte pack a thread), with 16-byte loads and stores
// where every tensor is of one type, aligned, and the row a multiple of 16 bytes long; longer rows are read three
// times, by a block each, or where they are too few to fill the GPU (a group normalization of one group, PoolFormer's:
// a row per image), cut into chunks of a block each whose partial sums meet in scratch memory. Statistics accumulate in
// float: the mean, then the deviations from it together with their sum, which corrects the mean's rounding (a row far
// from zero keeps its deviations' digits), so results stay within a few float roundings of the CPU reference's double
// sums.
#pragma once

#include "core/data_type.h"

#include <NvInferRuntimeBase.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::cuda
{

class DeviceBuffer;

//! A tensor a row reads: element `j` of a row of a weight (preBias, scale, bias) is element `j * stride` (stride 1:
//! one value per row element; 0: one value); x and the residual are read by rows (RowLayout), and may hold INT8 or
//! FP8 codes (their `type`), each read as its dequantization by `codeScale` rounded to the problem's value type. No
//! data: the input is absent.
struct RowInput
{
    void const* data{nullptr};
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    int64_t stride{1};
    float codeScale{0.0F}; //!< > 0: codes
};

//! The most axes before the normalized ones along which x or the residual may repeat.
constexpr int kMaxOuterAxes = 8;

//! Where x or the residual repeats along the axes before the normalized ones (an element-wise sum broadcast it): the
//! output's extents along those axes, and each operand's strides along them, counted in rows (0 where it repeats).
//! Rank 0: both have the output's shape and are read row for row.
struct RowLayout
{
    int32_t rank{0};
    int64_t extents[kMaxOuterAxes]{};
    int64_t x[kMaxOuterAxes]{};
    int64_t residual[kMaxOuterAxes]{};
};

struct RowProblem
{
    RowInput x;
    RowInput preBias;  //!< added to x, rounded to x's type
    RowInput residual; //!< then added, rounded to x's type
    RowInput scale;    //!< absent: 1
    RowInput bias;     //!< absent: 0
    void* y{nullptr};
    nvinfer1::DataType yType{nvinfer1::DataType::kFLOAT};
    float yScale{0.0F}; //!< > 0: y is written as INT8 or FP8 codes (yType), each value rounded to valueType first
    //! Where x, the residual or y holds codes: the type the sums, and the codes' values, round to (else x's type).
    nvinfer1::DataType valueType{nvinfer1::DataType::kFLOAT};
    void* sum{nullptr}; //!< where given, receives x (+ preBias) (+ residual)
    nvinfer1::DataType sumType{nvinfer1::DataType::kFLOAT};
    //! > 0: the row normalized is the sum rounded through INT8 or FP8 codes (sumCodeType) of this scale, as a Q -> DQ
    //! pair between the sum and the normalization computes (the sum output receives the sum itself).
    float sumScale{0.0F};
    nvinfer1::DataType sumCodeType{nvinfer1::DataType::kINT8};
    int64_t rows{0};
    int64_t length{0}; //!< elements per row
    RowLayout layout;
    float epsilon{0.0F};
    bool centered{true}; //!< subtract the mean (LayerNorm), or not (RMSNorm)
};

//! Queues the normalization of `problem`'s rows on `stream`; every tensor is FP32, FP16 or BF16 (each its own), but
//! x, the residual and y where they hold codes.
//! `scratch` (grown as needed) holds the partial sums of rows cut into chunks; without it, a block reads each long
//! row. Throws std::invalid_argument for more rows than a grid holds.
void normalizeRows(RowProblem const& problem, DeviceBuffer* scratch, cudaStream_t stream);

} // namespace kiln::cuda
