// The epilogue of Kiln's quantized products on the tensor cores: the sums that cuBLASLt's product wrote (INT32 from
// Int8Gemm, libraries/cublaslt/int8_gemm.h; FP32 from Fp8Gemm, fp8_gemm.h) scaled back to real values, with the bias,
// a residual and an activation, and quantized to INT8 or FP8 or written as FP32 or FP16, in one pass. The quantized
// convolution (quantized_convolution.h) runs it in both of its layouts; the quantized matrix multiply
// (libraries/cublaslt/quantized_matrix_multiply.h) as a 1x1 convolution over channels-last positions: each row of its
// input a position, each output column a map.
//
// Each sum is scaled once in FP32 and the rest computed in FP32 as the CPU reference computes the layers the fused
// layer replaced (the activation by pointwise_math.cuh, the quantization by core/quantization.h), so that the kernels
// differ from the reference only by how the sums round.
#pragma once

#include <NvInfer.h>

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::cuda
{

//! What the epilogue applies to the sums of map k: y = activation(sum * multipliers[k] + bias[k] + residual) (or y
//! times that, self-gated), then quantized by outputScale (> 0) into quantizedType or written in floatType.
struct QuantizedEpilogue
{
    float const* multipliers{nullptr}; //!< inputScale * the weight scale of map k
    float const* bias{nullptr};        //!< or none
    void const* residual{nullptr};     //!< in the output's layout; or none
    nvinfer1::DataType residualType{nvinfer1::DataType::kFLOAT};
    float residualScale{0.0F};
    bool activates{false};
    nvinfer1::ActivationType activation{nvinfer1::ActivationType::kRELU};
    float alpha{0.0F};
    float beta{0.0F};
    bool selfGated{false}; //!< where activates: y * activation(y) (SiLU, hard-swish)
    float outputScale{0.0F};
    nvinfer1::DataType quantizedType{nvinfer1::DataType::kINT8}; //!< kINT8 or kFP8
    nvinfer1::DataType floatType{nvinfer1::DataType::kFLOAT};    //!< kFLOAT or kHALF
    int64_t maps{0};
    int64_t positions{0}; //!< OH * OW (a product: its rows)
    //! Channels-first: the sums of map k are [N * OH * OW] from k * sumsStride. Channels-last: the sums of output
    //! position m are [maps] from m * sumsStride.
    int64_t sumsStride{0};
};

//! The output of `images` images from their INT32 sums.
void launchQuantizedEpilogue(int32_t const* sums, void* output, QuantizedEpilogue const& e, int64_t images,
    bool channelsLast, cudaStream_t stream);

//! The same from FP32 sums (an FP8 product's): channels-last, sumsStride a multiple of 4.
void launchQuantizedEpilogue(
    float const* sums, void* output, QuantizedEpilogue const& e, int64_t images, cudaStream_t stream);

} // namespace kiln::cuda
