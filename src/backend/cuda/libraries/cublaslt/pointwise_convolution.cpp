#include "backend/cuda/libraries/cublaslt/pointwise_convolution.h"

#include <algorithm>
#include <stdexcept>

namespace kiln::cuda
{
namespace
{

bool allEqual(nvinfer1::Dims const& dims, int64_t value)
{
    return std::all_of(dims.d, dims.d + dims.nbDims, [value](int64_t v) { return v == value; });
}

//! The least alignment of the residual and the output, which share cuBLASLt's C/D layout.
uint32_t outputAlignment(void const* residual, void const* output)
{
    uint32_t const alignment = addressAlignment(output);
    return residual != nullptr ? std::min(alignment, addressAlignment(residual)) : alignment;
}

} // namespace

bool PointwiseConvolution::takes(network::ConvolutionParams const& params, plan::Epilogue const& epilogue,
    Shape const& inputShape, nvinfer1::DataType type, TensorFormat format)
{
    bool const types = type == nvinfer1::DataType::kHALF || type == nvinfer1::DataType::kFLOAT;
    bool const window = params.kernelSize.nbDims == 2 && allEqual(params.kernelSize, 1) && allEqual(params.stride, 1)
        && allEqual(params.prePadding, 0) && allEqual(params.postPadding, 0) && params.nbGroups == 1;
    bool const epilogueRuns = !epilogue.activates || epilogue.relu();
    return types && format == TensorFormat::kHWC && inputShape.size() == 4 && window && epilogueRuns;
}

PointwiseConvolution::PointwiseConvolution(
    ConvolutionGeometry const& geometry, nvinfer1::DataType type, void const* bias, bool relu, cublasLtHandle_t handle)
{
    Shape const& input = geometry.input;
    Shape const& output = geometry.output;
    bool const pointwise = input.size() == 4 && output.size() == 4 && input[0] == output[0] && input[2] == output[2]
        && input[3] == output[3] && geometry.filter[2] == 1 && geometry.filter[3] == 1;
    if (!pointwise)
    {
        throw std::invalid_argument("convolution: only a 1x1 convolution of stride 1 without padding is one GEMM");
    }
    int64_t const positions = input[0] * input[2] * input[3];
    GemmGeometry const gemm = gemmGeometry({positions, input[1]}, nvinfer1::MatrixOperation::kNONE,
        {output[1], input[1]}, nvinfer1::MatrixOperation::kTRANSPOSE);
    mDescriptors.describe(gemm, type, GemmEpilogue{bias, relu});
    cublasLtMatmulHeuristicResult_t const choice
        = mDescriptors.chooseAlgorithm(handle, mAlignments, kMaxGemmWorkspaceBytes);
    mAlgorithm = choice.algo;
    mWorkspaceBytes = choice.workspaceSize;
}

void PointwiseConvolution::run(cublasLtHandle_t handle, void const* input, void const* kernel, void const* residual,
    void* output, void* workspace, cudaStream_t stream)
{
    // The library's A is the layer's second operand (the kernel), its B the input (matrix_multiply_geometry.h).
    GemmAlignments const alignments{
        addressAlignment(kernel), addressAlignment(input), outputAlignment(residual, output)};
    if (!(alignments == mAlignments))
    {
        mAlgorithm = mDescriptors.chooseAlgorithm(handle, alignments, mWorkspaceBytes).algo;
        mAlignments = alignments;
    }
    float const one = 1.0F;
    float const beta = residual != nullptr ? 1.0F : 0.0F;
    void const* const addend = residual != nullptr ? residual : output;
    checkCublasLt(
        cublasLtMatmul(handle, mDescriptors.matmul, &one, kernel, mDescriptors.first, input, mDescriptors.second, &beta,
            addend, mDescriptors.output, output, mDescriptors.output, &mAlgorithm, workspace, mWorkspaceBytes, stream),
        "running a 1x1 convolution");
}

} // namespace kiln::cuda
