// ModulatedDeformConv2d on CUDA, several images at a time (as many as kColumnsBudget allows, as torchvision's
// deform_conv2d does): their columns matrices into the workspace (deform_conv_kernels.cu), then per convolution
// group one cuBLAS GEMM batched over the images, then the bias and the output type (epilogue). FP16 tensors are
// computed in FP32: the weights and the product are FP32 copies in the workspace.
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

//! One image's columns matrix [C * KH * KW, OH * OW], in bytes.
size_t imageColumnsBytes(DeformConvShape const& s)
{
    return static_cast<size_t>(s.inChannels * s.kernelH * s.kernelW * s.outH * s.outW) * sizeof(float);
}

#ifdef KILN_WITH_CUDA
//! The images one pass of the kernels and GEMMs takes (only the CUDA run splits the batch; the workspace size, which
//! a build without CUDA reports too, does not need it).
int64_t imagesPerPass(DeformConvShape const& s)
{
    auto const fit = static_cast<int64_t>(kColumnsBudget / std::max<size_t>(imageColumnsBytes(s), 1));
    return std::max<int64_t>(1, std::min(s.batch, fit));
}
#endif

// The workspace is sized at build time for the largest shape, but a run of a smaller shape may take more images per
// pass. Its columns take at most max(one image, min(all images, the budget)), which only grows with the shape; the
// FP32 products take O / (C * KH * KW) times as much.
size_t columnsBytes(DeformConvShape const& s)
{
    size_t const image = imageColumnsBytes(s);
    return aligned(std::max(image, std::min(static_cast<size_t>(s.batch) * image, kColumnsBudget)));
}

size_t weightBytes(DeformConvShape const& s)
{
    return aligned(
        static_cast<size_t>(s.outChannels * (s.inChannels / s.group) * s.kernelH * s.kernelW) * sizeof(float));
}

size_t productBytes(DeformConvShape const& s)
{
    auto const rows = static_cast<size_t>(std::max<int64_t>(s.inChannels * s.kernelH * s.kernelW, 1));
    return aligned((columnsBytes(s) * static_cast<size_t>(s.outChannels) + rows - 1) / rows + sizeof(float));
}

} // namespace

size_t deformConvWorkspaceSize(DeformConvShape const& shape, bool half)
{
    return columnsBytes(shape) + (half ? weightBytes(shape) + productBytes(shape) : 0);
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
    auto* columns = static_cast<float*>(io.workspace);
    auto* workspaceEnd = static_cast<char*>(io.workspace) + columnsBytes(s);
    float const* weight = io.input<float>(3);
    float* product = nullptr;
    if (half)
    {
        auto* weightCopy = reinterpret_cast<float*>(workspaceEnd);
        product = reinterpret_cast<float*>(workspaceEnd + weightBytes(s));
        checkCuda(kDeformConvName, launchHalfToFloat(io.inputs[3], weightCopy, s.outChannels * rowsPerGroup, stream));
        weight = weightCopy;
    }
    auto handle = static_cast<cublasHandle_t>(blas.get(kDeformConvName));
    if (cublasSetStream(handle, stream) != CUBLAS_STATUS_SUCCESS)
    {
        throw PluginError(std::string(kDeformConvName) + ": could not set the cuBLAS stream");
    }
    size_t const elementBytes = half ? 2 : 4;
    float const one = 1.F;
    float const zero = 0.F;
    int64_t const images = imagesPerPass(s);
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
            // times weight [K, O/g]: cuBLAS's (m, n, k) = (P, O/g, K), batched over the images (the weight shared).
            cublasStatus_t const status = cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N,
                static_cast<int>(plane), static_cast<int>(outPerGroup), static_cast<int>(rowsPerGroup), &one,
                columns + g * rowsPerGroup * plane, static_cast<int>(plane), s.group * rowsPerGroup * plane,
                weight + g * outPerGroup * rowsPerGroup, static_cast<int>(rowsPerGroup), 0, &zero,
                result + g * outPerGroup * plane, static_cast<int>(plane), s.outChannels * plane,
                static_cast<int>(count));
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
