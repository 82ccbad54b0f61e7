// ModulatedDeformConv2d on CUDA, several images at a time (as many as kColumnsBudget allows, as torchvision's
// deform_conv2d does): their columns matrices into the workspace (deform_conv_kernels.cu), then per convolution
// group one cuBLAS GEMM batched over the images, then the bias and the output type (epilogue). FP16 tensors keep
// their columns in FP16, as torchvision's deform_conv2d does, and the GEMM accumulates them in FP32 into an FP32
// product in the workspace, which the epilogue rounds once.
#include "deform_conv_device.h"

#ifdef KILN_WITH_CUDA
#include "deform_conv_kernels.h"

#include "common/cuda_check.h"

#include <cublas_v2.h>

#include <limits>
#endif

#include <algorithm>

namespace kiln::plugins
{
namespace
{

//! What a run's columns matrices may take: enough for several images to fill the GPU, small next to its memory.
size_t constexpr kColumnsBudget = size_t{64} << 20;

size_t aligned(size_t bytes)
{
    return (bytes + 255) / 256 * 256;
}

//! The bytes of an element of the columns matrices: the input's type (FP16 or FP32).
size_t columnElementBytes(bool half)
{
    return half ? 2 : 4;
}

//! One image's columns matrix [C * KH * KW, OH * OW], in bytes.
size_t imageColumnsBytes(DeformConvShape const& s, bool half)
{
    return static_cast<size_t>(s.inChannels * s.kernelH * s.kernelW * s.outH * s.outW) * columnElementBytes(half);
}

#ifdef KILN_WITH_CUDA
//! The images one pass of the kernels and GEMMs takes (only the CUDA run splits the batch; the workspace size, which
//! a build without CUDA reports too, does not need it).
int64_t imagesPerPass(DeformConvShape const& s, bool half)
{
    auto const fit = static_cast<int64_t>(kColumnsBudget / std::max<size_t>(imageColumnsBytes(s, half), 1));
    return std::max<int64_t>(1, std::min(s.batch, fit));
}
#endif

// The workspace is sized at build time for the largest shape, but a run of a smaller shape may take more images per
// pass. Its columns take at most max(one image, min(all images, the budget)), which only grows with the shape; the
// FP32 products of FP16 columns take 2 * O / (C * KH * KW) times as much.
size_t columnsBytes(DeformConvShape const& s, bool half)
{
    size_t const image = imageColumnsBytes(s, half);
    return aligned(std::max(image, std::min(static_cast<size_t>(s.batch) * image, kColumnsBudget)));
}

size_t halfProductBytes(DeformConvShape const& s)
{
    auto const rows = static_cast<size_t>(std::max<int64_t>(s.inChannels * s.kernelH * s.kernelW, 1));
    size_t const columnElements = columnsBytes(s, true) / columnElementBytes(true);
    return aligned((columnElements * static_cast<size_t>(s.outChannels) + rows - 1) / rows * sizeof(float));
}

} // namespace

size_t deformConvWorkspaceSize(DeformConvShape const& shape, bool half)
{
    return columnsBytes(shape, half) + (half ? halfProductBytes(shape) : 0);
}

void runDeformConvDevice(DeformConvShape const& s, BlasHandle const& blas, PluginTensors const& io, cudaStream_t stream)
{
#ifdef KILN_WITH_CUDA
    bool const half = io.inputDesc[0].type == nvinfer1::DataType::kHALF;
    int64_t const plane = s.outH * s.outW;
    int64_t const outPerGroup = s.outChannels / s.group;
    int64_t const rowsPerGroup = s.inChannels / s.group * s.kernelH * s.kernelW;
    int64_t constexpr kIntMax = std::numeric_limits<int32_t>::max();
    if (plane > kIntMax || rowsPerGroup > kIntMax || outPerGroup > kIntMax || rowsPerGroup * plane > kIntMax * 64LL)
    {
        throw PluginError(std::string(kDeformConvName) + ": the GEMM's extents exceed cuBLAS's 32-bit sizes");
    }
    void* columns = io.workspace;
    auto* product = reinterpret_cast<float*>(static_cast<char*>(io.workspace) + columnsBytes(s, half));
    auto handle = static_cast<cublasHandle_t>(blas.get(kDeformConvName));
    if (cublasSetStream(handle, stream) != CUBLAS_STATUS_SUCCESS)
    {
        throw PluginError(std::string(kDeformConvName) + ": could not set the cuBLAS stream");
    }
    size_t const elementBytes = columnElementBytes(half);
    cudaDataType_t const elementType = half ? CUDA_R_16F : CUDA_R_32F;
    float const one = 1.F;
    float const zero = 0.F;
    int64_t const images = imagesPerPass(s, half);
    for (int64_t first = 0; first < s.batch; first += images)
    {
        int64_t const count = std::min(images, s.batch - first);
        checkCuda(kDeformConvName,
            launchDeformColumns(s, half, io.inputs[0], io.inputs[1], io.inputs[2], first, count, columns, stream));
        void* output = static_cast<char*>(io.outputs[0]) + first * s.outChannels * plane * elementBytes;
        float* result = half ? product : static_cast<float*>(output);
        for (int64_t g = 0; g < s.group; ++g)
        {
            // Row-major output [O/g, P] = weight [O/g, K] x columns [K, P] is, column-major, columns^T-shaped [P, K]
            // times weight [K, O/g]: cuBLAS's (m, n, k) = (P, O/g, K), batched over the images (the weight shared),
            // accumulated in FP32.
            cublasStatus_t const status = cublasGemmStridedBatchedEx(handle, CUBLAS_OP_N, CUBLAS_OP_N,
                static_cast<int>(plane), static_cast<int>(outPerGroup), static_cast<int>(rowsPerGroup), &one,
                static_cast<char*>(columns) + g * rowsPerGroup * plane * elementBytes, elementType,
                static_cast<int>(plane), s.group * rowsPerGroup * plane,
                static_cast<char const*>(io.inputs[3]) + g * outPerGroup * rowsPerGroup * elementBytes, elementType,
                static_cast<int>(rowsPerGroup), 0, &zero, result + g * outPerGroup * plane, CUDA_R_32F,
                static_cast<int>(plane), s.outChannels * plane, static_cast<int>(count), CUBLAS_COMPUTE_32F,
                CUBLAS_GEMM_DEFAULT);
            if (status != CUBLAS_STATUS_SUCCESS)
            {
                throw PluginError(
                    std::string(kDeformConvName) + ": cuBLAS GEMM failed: " + cublasGetStatusString(status));
            }
        }
        checkCuda(kDeformConvName,
            launchDeformEpilogue(s, count, half, result, s.hasBias ? io.inputs[4] : nullptr, output, stream));
    }
#else
    (void) s;
    (void) blas;
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins
