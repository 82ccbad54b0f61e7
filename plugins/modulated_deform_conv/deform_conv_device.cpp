// ModulatedDeformConv2d on CUDA: per image, the columns matrix into the workspace (deform_conv_kernels.cu), then one
// cuBLAS GEMM per convolution group (strided batched), then the bias and the output type (epilogue). FP16 tensors
// are computed in FP32: the weights and the product are FP32 copies in the workspace.
#include "deform_conv_device.h"

#ifdef KILN_WITH_CUDA
#include "deform_conv_kernels.h"

#include "common/cuda_check.h"

#include <cublas_v2.h>

#include <limits>
#endif

namespace kiln::plugins
{
namespace
{

size_t aligned(size_t bytes)
{
    return (bytes + 255) / 256 * 256;
}

size_t columnsBytes(DeformConvShape const& s)
{
    return aligned(static_cast<size_t>(s.inChannels * s.kernelH * s.kernelW * s.outH * s.outW) * sizeof(float));
}

size_t weightBytes(DeformConvShape const& s)
{
    return aligned(static_cast<size_t>(s.outChannels * (s.inChannels / s.group) * s.kernelH * s.kernelW)
        * sizeof(float));
}

size_t productBytes(DeformConvShape const& s)
{
    return aligned(static_cast<size_t>(s.outChannels * s.outH * s.outW) * sizeof(float));
}

} // namespace

size_t deformConvWorkspaceSize(DeformConvShape const& shape, bool half)
{
    return columnsBytes(shape) + (half ? weightBytes(shape) + productBytes(shape) : 0);
}

void runDeformConvDevice(
    DeformConvShape const& s, BlasHandle const& blas, PluginTensors const& io, cudaStream_t stream)
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
    for (int64_t n = 0; n < s.batch; ++n)
    {
        checkCuda(kDeformConvName,
            launchDeformColumns(s, half, io.inputs[0], io.inputs[1], io.inputs[2], n, columns, stream));
        void* output = static_cast<char*>(io.outputs[0]) + n * s.outChannels * plane * elementBytes;
        float* result = half ? product : static_cast<float*>(output);
        // Row-major output [O/g, P] = weight [O/g, K] x columns [K, P] is, column-major, columns^T-shaped [P, K]
        // times weight [K, O/g]: cuBLAS's (m, n, k) = (P, O/g, K).
        cublasStatus_t const status = cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N,
            static_cast<int>(plane), static_cast<int>(outPerGroup), static_cast<int>(rowsPerGroup), &one, columns,
            static_cast<int>(plane), rowsPerGroup * plane, weight, static_cast<int>(rowsPerGroup),
            outPerGroup * rowsPerGroup, &zero, result, static_cast<int>(plane), outPerGroup * plane, s.group);
        if (status != CUBLAS_STATUS_SUCCESS)
        {
            throw PluginError(std::string(kDeformConvName) + ": cuBLAS GEMM failed: " + cublasGetStatusString(status));
        }
        checkCuda(kDeformConvName,
            launchDeformEpilogue(s, half, result, s.hasBias ? io.inputs[4] : nullptr, output, stream));
    }
#else
    (void) s;
    (void) blas;
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins
