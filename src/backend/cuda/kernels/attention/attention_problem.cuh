// What the attention kernels read: the operands' layouts (backend/shared/attention_geometry.h) as plain kernel
// arguments, and where a batch starts in each operand. attention.cu runs FP16 operands on the tensor cores,
// attention_fp32_tensor_cores.cu and attention_fp32.cu FP32 operands on the tensor cores and on the CUDA cores; all
// read a problem described here.
#pragma once

#include "backend/cuda/kernels/device_access.cuh"
#include "backend/shared/attention_geometry.h"
#include "device_common/fp8.h"

#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>

namespace kiln::cuda::attention
{

constexpr int kMaxBatchAxes = backend::AttentionGeometry::kMaxBatchAxes;

//! One operand as a kernel reads or writes it: element (batch b, row r, column c) at
//! data + offset(b) + r * row + c * column.
struct OperandView
{
    int64_t batch[kMaxBatchAxes];
    int64_t row;
    int64_t column;
};

//! The grids a kernel's roundings are compiled for: none (the kernel has no roundings' code), FP8 E4M3's alone,
//! INT8's alone, or either (each rounding's `fp8` says which).
enum class Grids
{
    kNone,
    kFp8,
    kInt8,
    kEither,
};

//! One of quantized attention's roundings (network::AttentionRounding) as a kernel applies it, to two values at a
//! time. It multiplies by the scale's reciprocal where the layers it replaces divided by the scale, so that a value
//! within a unit in FP32's last place of the boundary between two steps may take the other one.
//!
//! The operands of the products are kept as steps (the codes of the quantization, exact in FP16) and their scales
//! applied to the products' sums, which saves converting every element back: a step s stands for s * unit().
struct Rounding
{
    float factor{1.0F};
    float scale{1.0F};
    float inverseScale{1.0F};
    bool rounds{false}; //!< quantizes and dequantizes; else only multiplies by the factor
    bool fp8{false};    //!< onto FP8 E4M3's grid, else INT8's

    //! Whether the rounding changes anything at all.
    __host__ __device__ bool changes() const
    {
        return rounds || factor != 1.0F;
    }

    //! What one step is worth: the scale where the rounding quantizes; else the steps are the values.
    __host__ __device__ float unit() const
    {
        return rounds ? scale : 1.0F;
    }

    //! The steps of two FP16 values: multiplied by the factor and stored in FP16, then quantized where the rounding
    //! does.
    template <Grids kGrids>
    __device__ __half2 steps(__half2 stored) const
    {
        if (factor != 1.0F)
        {
            stored = __floats2half2_rn(__low2float(stored) * factor, __high2float(stored) * factor);
        }
        return rounds ? quantized<kGrids>(__half22float2(stored)) : stored;
    }

    //! The steps of two FP32 values, each stored in FP16 first as the layers the rounding replaces stored it.
    template <Grids kGrids>
    __device__ __half2 steps(float2 x) const
    {
        __half2 const stored = __floats2half2_rn(x.x * factor, x.y * factor);
        return rounds ? quantized<kGrids>(__half22float2(stored)) : stored;
    }

    //! Two values rounded, as the FP16 layers the rounding replaces computed them: their steps times the scale,
    //! stored in FP16.
    template <Grids kGrids>
    __device__ float2 rounded(float2 x) const
    {
        float2 const s = __half22float2(steps<kGrids>(x));
        return rounds ? __half22float2(__floats2half2_rn(s.x * scale, s.y * scale)) : s;
    }

private:
    //! The quantization's steps of two values already stored in FP16: divided by the scale, rounded onto the grid.
    template <Grids kGrids>
    __device__ __half2 quantized(float2 stored) const
    {
        float2 const steps{stored.x * inverseScale, stored.y * inverseScale};
        if (kGrids == Grids::kFp8 || (kGrids == Grids::kEither && fp8))
        {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
            // The conversion instructions of GPUs with FP8 (rounding to nearest even, saturating to 448, NaN kept)
            // compute what fp8.h does in software: one instruction each way for two values.
            return __half2(
                __nv_cvt_fp8x2_to_halfraw2(__nv_cvt_float2_to_fp8x2(steps, __NV_SATFINITE, __NV_E4M3), __NV_E4M3));
#else
            return __floats2half2_rn(
                fp8E4m3BitsToFloat(floatToFp8E4m3Bits(steps.x)), fp8E4m3BitsToFloat(floatToFp8E4m3Bits(steps.y)));
#endif
        }
        return __floats2half2_rn(int8Step(steps.x), int8Step(steps.y));
    }

    //! ONNX's INT8 quantization of a value already divided by the scale: rounded half to even, saturated; NaN 0.
    __device__ static float int8Step(float steps)
    {
        return steps != steps ? 0.0F : fminf(fmaxf(rintf(steps), -128.0F), 127.0F);
    }
};

//! What a kernel reads, on operands of type T; plain values, as a kernel argument must be.
template <typename T>
struct Problem
{
    T const* query;
    T const* keys;
    T const* values;
    void const* mask;
    T* output;
    device::DataType maskType;
    int32_t queries;
    int32_t keyCount;
    int32_t depth;
    int32_t valueDepth;
    int32_t queryTiles; //!< blocks per batch
    //! Stages of keys and values the block's shared memory holds (the FP16 kernel): 2, or every tile's where the
    //! rounded probabilities' two walks keep all the keys (attention.cu).
    int32_t stages;
    float scale;
    bool zeroNaN;
    Rounding queryRounding;
    Rounding keysRounding;
    Rounding valuesRounding;
    Rounding scoresRounding;
    Rounding probabilitiesRounding;
    //! FP16 only: whether query, keys and values may be copied 16 bytes at a time (contiguous columns,
    //! 8-element-aligned rows and batches, a depth that is a multiple of 8, 16-byte-aligned data).
    bool vectorQuery;
    bool vectorKeys;
    bool vectorValues;
    //! FP16 only: whether the output's neighbouring columns of a row may be written as one pair (contiguous columns,
    //! rows and batches starting at even elements, an even value depth, 4-byte-aligned data).
    bool pairedOutput;
    int32_t batchAxes;
    int64_t batchExtents[kMaxBatchAxes];
    OperandView queryView;
    OperandView keyView;
    OperandView valueView;
    OperandView maskView;
    OperandView outputView;
};

//! Where one batch (its index over the batch axes, row-major) starts in each operand. The coordinates are found once,
//! in 32-bit arithmetic (the host keeps blocks and extents below 2^31): 64-bit division is a call.
struct BatchStarts
{
    int64_t query{0};
    int64_t keys{0};
    int64_t values{0};
    int64_t mask{0};
    int64_t output{0};
};

template <typename T>
__device__ inline BatchStarts batchStarts(Problem<T> const& p, uint32_t batch)
{
    BatchStarts starts;
    for (int32_t axis = p.batchAxes - 1; axis >= 0; --axis)
    {
        auto const extent = static_cast<uint32_t>(p.batchExtents[axis]);
        int64_t const coordinate = batch % extent;
        batch /= extent;
        starts.query += coordinate * p.queryView.batch[axis];
        starts.keys += coordinate * p.keyView.batch[axis];
        starts.values += coordinate * p.valueView.batch[axis];
        starts.mask += coordinate * p.maskView.batch[axis];
        starts.output += coordinate * p.outputView.batch[axis];
    }
    return starts;
}

__device__ inline float maskValue(float value)
{
    return value;
}

__device__ inline float maskValue(__half value)
{
    return __half2float(value);
}

//! Runs `problem` (FP32 operands) over `batches` batches on a device of `multiprocessors` multiprocessors whose blocks
//! may have `sharedMemoryPerBlock` bytes of shared memory: on the tensor cores (attention_fp32_tensor_cores.cu) where
//! that kernel's blocks fill the multiprocessors and fit, else on the CUDA cores (attention_fp32.cu).
void launchFp32(Problem<float>& problem, int64_t batches, int32_t multiprocessors, int32_t sharedMemoryPerBlock,
    cudaStream_t stream);

//! Whether attention_fp32_tensor_cores.cu's kernel suits `problem`: one block for each multiprocessor at least, and
//! its shared memory within `sharedMemoryPerBlock` bytes.
bool splitTf32Suits(
    Problem<float> const& problem, int64_t batches, int32_t multiprocessors, int32_t sharedMemoryPerBlock);

//! Runs `problem` with attention_fp32_tensor_cores.cu's kernel, where splitTf32Suits.
void launchSplitTf32(Problem<float>& problem, int64_t batches, cudaStream_t stream);

} // namespace kiln::cuda::attention
