#include "backend/cuda/libraries/cublaslt/matrix_multiply_layer.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/layer_kernels.h"

#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

//! The fused bias on the device in `type`, rounded once here rather than on every run.
DeviceBuffer uploadBias(network::WeightsBuffer const& bias, nvinfer1::DataType type)
{
    if (type != nvinfer1::DataType::kFLOAT && type != nvinfer1::DataType::kHALF)
    {
        throw std::invalid_argument("matrix multiply: the CUDA backend multiplies FP32 or FP16 matrices");
    }
    network::WeightsBuffer const stored = bias.storedAs(type);
    size_t const bytes = static_cast<size_t>(stored.count()) * elementSize(type);
    DeviceBuffer buffer(bytes, "the matrix multiply's fused bias");
    check(cudaMemcpy(buffer.data(), stored.data(), bytes, cudaMemcpyHostToDevice),
        "matrix multiply: uploading the fused bias");
    return buffer;
}

} // namespace

MatrixMultiplyLayer::MatrixMultiplyLayer(network::MatrixMultiplyParams const& params, plan::Epilogue const& epilogue,
    AlgorithmChoice choice, nvinfer1::DataType dataType, LibraryHandles& handles)
    : mParams(params)
    , mEpilogue(epilogue)
    , mChoice(choice)
    , mDataType(dataType)
    , mHandles(handles)
{
    if (!epilogue.bias.empty())
    {
        mBias = uploadBias(epilogue.bias, dataType);
    }
}

void MatrixMultiplyLayer::describe(Shape const& input0, Shape const& input1, GemmAlignments const& alignments,
    GemmGeometry const& geometry, bool biasRowPerMatrix)
{
    bool const same = mDescribed && mProblem.input0 == input0 && mProblem.input1 == input1
        && mProblem.alignments == alignments;
    if (same)
    {
        return;
    }
    mDescribed = false;
    mDescriptors.describe(geometry, mDataType, GemmEpilogue{mBias.data(), mEpilogue.relu(), biasRowPerMatrix});
    // The builder timed the ranks of the heuristic's choices for operands aligned to 256 bytes, as the plan aligns
    // activations; other alignments rank other algorithms.
    bool const timed = mChoice.source == AlgorithmChoice::Source::kGEMM && alignments == GemmAlignments{};
    cublasLtMatmulHeuristicResult_t choice = mDescriptors.chooseAlgorithm(
        mHandles.cublasLt(), alignments, kMaxGemmWorkspaceBytes, timed ? mChoice.gemmRank() : 0);
    if (timed && mChoice.gemmSplits() > 1)
    {
        // Where this cuBLASLt cannot split it so (another version than the builder's), the whole product runs.
        choice = mDescriptors.splitAlgorithm(mHandles.cublasLt(), choice, mChoice.gemmSplits(), kMaxGemmWorkspaceBytes)
                     .value_or(choice);
    }
    mAlgorithm = choice.algo;
    mWorkspaceBytes = choice.workspaceSize;
    // Assigned in place, so that a problem of the same ranks is recorded without allocating.
    mProblem.input0 = input0;
    mProblem.input1 = input1;
    mProblem.alignments = alignments;
    mDescribed = true;
}

void MatrixMultiplyLayer::prepare(std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    ConstTensorView const& a = inputs[0];
    ConstTensorView const& b = inputs[1];
    TensorView const& c = outputs[0];
    if (a.type != b.type || a.type != c.type)
    {
        throw std::invalid_argument("matrix multiply: both inputs and the output must have one type");
    }
    if (a.type != mDataType)
    {
        throw std::invalid_argument("matrix multiply: the tensors' type differs from the type the layer was made for");
    }
    mRun = Run{};
    if (c.count() == 0)
    {
        return;
    }
    GemmGeometry const& geometry = geometryFor(a.shape, b.shape);
    if (geometry.batches * geometry.m * geometry.n != c.count())
    {
        throw std::invalid_argument("matrix multiply: the output holds " + std::to_string(c.count())
            + " values where the product has " + std::to_string(geometry.batches * geometry.m * geometry.n));
    }
    int64_t const biasValues = mEpilogue.bias.count();
    bool const oneBiasRow = biasValues == geometry.n;
    bool const biasRowPerMatrix = geometry.batches > 1 && biasValues == geometry.n * geometry.batches;
    if (biasValues != 0 && !oneBiasRow && !biasRowPerMatrix)
    {
        throw std::invalid_argument("matrix multiply: the fused bias has " + std::to_string(biasValues) + " values for "
            + std::to_string(geometry.n) + " output columns and " + std::to_string(geometry.batches) + " matrices");
    }
    if (geometry.k == 0)
    {
        // An empty sum is 0 (and so is its ReLU); cuBLASLt takes no empty inner extent. The builder fuses a bias
        // only where the inner extent is a constant other than 0.
        if (!mEpilogue.bias.empty())
        {
            throw std::invalid_argument("matrix multiply: the CUDA backend cannot add a fused bias to a product over "
                                        "an inner extent of 0");
        }
        mRun = Run{Run::Work::kZERO, nullptr, nullptr, c.data, static_cast<size_t>(c.count()) * elementSize(c.type)};
        return;
    }
    // The library's A is the layer's second input (matrix_multiply_geometry.h).
    describe(a.shape, b.shape, {addressAlignment(b.data), addressAlignment(a.data), addressAlignment(c.data)}, geometry,
        biasRowPerMatrix);
    mRun = Run{Run::Work::kMULTIPLY, a.data, b.data, c.data, 0};
}

GemmGeometry const& MatrixMultiplyLayer::geometryFor(Shape const& input0, Shape const& input1)
{
    if (!mGeometry || mGeometryShapes[0] != input0 || mGeometryShapes[1] != input1)
    {
        mGeometry.reset(); // until the new one is known: gemmGeometry throws for shapes it cannot multiply
        mGeometry = gemmGeometry(input0, mParams.op0, input1, mParams.op1);
        mGeometryShapes[0] = input0; // assigned in place: shapes of the same ranks reuse the memory they had
        mGeometryShapes[1] = input1;
    }
    return *mGeometry;
}

void MatrixMultiplyLayer::launch(cudaStream_t stream)
{
    if (mRun.work == Run::Work::kNONE)
    {
        return;
    }
    if (mRun.work == Run::Work::kZERO)
    {
        check(cudaMemsetAsync(mRun.c, 0, mRun.zeroBytes, stream),
            "matrix multiply: zeroing a product over an inner extent of 0");
        return;
    }
    mWorkspace.reserve(mWorkspaceBytes, stream);
    float const one = 1.0F;
    float const zero = 0.0F;
    checkCublasLt(cublasLtMatmul(mHandles.cublasLt(), mDescriptors.matmul, &one, mRun.b, mDescriptors.first, mRun.a,
                      mDescriptors.second, &zero, mRun.c, mDescriptors.output, mRun.c, mDescriptors.output, &mAlgorithm,
                      mWorkspace.data(), mWorkspaceBytes, stream),
        "running");
}

std::unique_ptr<DeviceLayer> lower(network::MatrixMultiplyParams const& params, LayerContext const& context)
{
    AlgorithmChoice const choice = AlgorithmChoice::decode(context.record.backendChoice);
    if (choice.source != AlgorithmChoice::Source::kHEURISTIC && choice.source != AlgorithmChoice::Source::kGEMM)
    {
        throw std::runtime_error("matrix multiply \"" + context.record.name
            + "\": the plan's algorithm choice is not one of cuBLASLt's (the plan is malformed)");
    }
    return std::make_unique<MatrixMultiplyLayer>(
        params, context.record.epilogue, choice, context.dataType, context.handles);
}

} // namespace kiln::cuda
