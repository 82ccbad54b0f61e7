#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/convolution/quantized_epilogue.h"
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/libraries/cublaslt/fp8_gemm.h"
#include "backend/cuda/libraries/cublaslt/int8_gemm.h"
#include "backend/cuda/libraries/cublaslt/matrix_multiply_descriptors.h"
#include "backend/cuda/libraries/cublaslt/quantized_matrix_multiply.h"
#include "backend/cuda/libraries/cudnn/convolution_descriptors.h"
#include "core/data_type.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::cuda
{
namespace
{

using nvinfer1::DataType;

//! The alignment cuBLASLt's heuristics assume of every operand when not told otherwise, as Int8Gemm chooses: rows at
//! another address are copied to scratch memory, which has it.
constexpr uint32_t kOperandAlignment = 256;

int64_t roundUp(int64_t value, int64_t multiple)
{
    return (value + multiple - 1) / multiple * multiple;
}

//! `values` as FLOAT weights, for uploadWeights.
network::WeightsBuffer floats(std::vector<float> const& values)
{
    return network::WeightsBuffer(
        nvinfer1::Weights{DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())});
}

class QuantizedMatrixMultiplyLayer final : public DeviceLayer
{
public:
    QuantizedMatrixMultiplyLayer(network::QuantizedMatrixMultiplyParams const& params, LayerContext const& context)
        : mParams(params)
        , mHandles(context.handles)
        , mScratch(context.sharedScratch)
    {
        if (!runsQuantizedMatrixMultiply(params) || params.quantizedType() != DataType::kINT8
            || context.format != TensorFormat::kLINEAR)
        {
            throw std::invalid_argument("quantized matrix multiply: the CUDA backend runs INT8 weights of N columns "
                                        "with one FP32 scale each and an FP32 bias or none, on kLINEAR data");
        }
        mColumns = params.columns;
        mInner = params.inner();
        mRowLength = roundUp(mInner, kInt8GemmAlignment);
        mSumsStride = roundUp(mColumns, kInt8GemmAlignment);
        // Each column's weights as a row of the product's first operand, padded with zeros that add nothing.
        std::vector<int8_t> padded(static_cast<size_t>(mColumns * mRowLength), 0);
        auto const* weights = static_cast<int8_t const*>(params.weights.data());
        for (int64_t n = 0; n < mColumns; ++n)
        {
            std::copy(weights + n * mInner, weights + (n + 1) * mInner, padded.begin() + n * mRowLength);
        }
        mWeights = DeviceBuffer(padded.size(), "quantized matrix multiply: the INT8 weights");
        check(cudaMemcpy(mWeights.data(), padded.data(), padded.size(), cudaMemcpyHostToDevice),
            "quantized matrix multiply: uploading the INT8 weights");
        std::vector<float> multipliers = params.weightScales.toFloat();
        for (float& multiplier : multipliers)
        {
            multiplier *= params.inputScale;
        }
        mMultipliers = uploadWeights(floats(multipliers), DataType::kFLOAT);
        if (!params.bias.empty())
        {
            mBias = uploadWeights(params.bias, DataType::kFLOAT);
        }
    }

    void run(std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs,
        cudaStream_t stream) override
    {
        ConstTensorView const& input = inputs.at(0);
        TensorView const& output = outputs.at(0);
        checkQuantizedProductTensors(mParams, input, output);
        int64_t const rows = input.count() / mInner;
        if (rows == 0)
        {
            return;
        }
        if (!mGemm || rows != mRows)
        {
            mGemm.reset();
            mGemm.emplace(mColumns, rows, mRowLength, mSumsStride, mHandles.cublasLt());
            mRows = rows;
        }
        // The rows are read where they lie when they are the product's padded length and aligned as its kernels read.
        bool const inPlace = mRowLength == mInner && addressAlignment(input.data) >= kOperandAlignment;
        size_t const rowsBytes = inPlace ? 0 : static_cast<size_t>(roundUp(rows * mRowLength, 256));
        size_t const sumsBytes = static_cast<size_t>(roundUp(rows * mSumsStride * 4, 256));
        mScratch.reserve(rowsBytes + sumsBytes + mGemm->workspaceBytes(), stream,
            "quantized matrix multiply: padded rows and their sums");
        auto const* rowsData = static_cast<int8_t const*>(input.data);
        if (!inPlace)
        {
            auto* const padded = reinterpret_cast<int8_t*>(mScratch.data());
            padRows(static_cast<int8_t const*>(input.data), padded, rows, stream);
            rowsData = padded;
        }
        auto* const sums = reinterpret_cast<int32_t*>(mScratch.data() + rowsBytes);
        mGemm->run(mHandles.cublasLt(), reinterpret_cast<int8_t const*>(mWeights.data()), rowsData, sums,
            mScratch.data() + rowsBytes + sumsBytes, stream);
        launchQuantizedEpilogue(sums, output.data, epilogue(rows), 1, true, stream);
    }

private:
    //! The input's rows, mInner bytes each, into rows of mRowLength bytes whose tail is zero.
    void padRows(int8_t const* input, int8_t* padded, int64_t rows, cudaStream_t stream) const
    {
        auto const length = static_cast<size_t>(mInner);
        auto const pitch = static_cast<size_t>(mRowLength);
        auto const count = static_cast<size_t>(rows);
        check(cudaMemcpy2DAsync(padded, pitch, input, length, length, count, cudaMemcpyDeviceToDevice, stream),
            "quantized matrix multiply: copying the rows");
        if (pitch > length)
        {
            check(cudaMemset2DAsync(padded + length, pitch, 0, pitch - length, count, stream),
                "quantized matrix multiply: padding the rows");
        }
    }

    //! The epilogue over `rows` rows of sums: each row an output position, each column a map.
    QuantizedEpilogue epilogue(int64_t rows) const
    {
        QuantizedEpilogue e;
        e.multipliers = reinterpret_cast<float const*>(mMultipliers.data());
        e.bias = mParams.bias.empty() ? nullptr : reinterpret_cast<float const*>(mBias.data());
        e.activates = mParams.activates;
        e.activation = mParams.activation;
        e.alpha = mParams.alpha;
        e.beta = mParams.beta;
        e.outputScale = mParams.outputScale;
        e.floatType = mParams.floatType;
        e.maps = mColumns;
        e.positions = rows;
        e.sumsStride = mSumsStride;
        return e;
    }

    network::QuantizedMatrixMultiplyParams const& mParams;
    LibraryHandles& mHandles;
    DeviceBuffer& mScratch;
    int64_t mColumns{0};       //!< N
    int64_t mInner{0};         //!< K
    int64_t mRowLength{0};     //!< K padded to kInt8GemmAlignment
    int64_t mSumsStride{0};    //!< N padded to kInt8GemmAlignment: where each row's sums start
    DeviceBuffer mWeights;     //!< [N, mRowLength] INT8
    DeviceBuffer mMultipliers; //!< [N] FP32: inputScale * weightScales[n]
    DeviceBuffer mBias;        //!< [N] FP32, or empty
    int64_t mRows{0};          //!< the rows mGemm was described for
    std::optional<Int8Gemm> mGemm;
};

} // namespace

bool runsQuantizedMatrixMultiply(network::QuantizedMatrixMultiplyParams const& params)
{
    DataType const type = params.weights.type();
    bool const fp8Extents = params.columns % kFp8GemmAlignment == 0 && params.inner() % kFp8GemmAlignment == 0;
    bool const floatRuns = params.floatType == DataType::kFLOAT || params.floatType == DataType::kHALF;
    bool const typeRuns = floatRuns && (type == DataType::kINT8 || (type == DataType::kFP8 && fp8Extents));
    return params.columns > 0 && typeRuns && params.inner() > 0
        && params.weights.count() == params.columns * params.inner() && params.weightScales.type() == DataType::kFLOAT
        && params.weightScales.count() == params.columns
        && (params.bias.empty() || (params.bias.type() == DataType::kFLOAT && params.bias.count() == params.columns));
}

void checkQuantizedProductTensors(
    network::QuantizedMatrixMultiplyParams const& params, ConstTensorView const& input, TensorView const& output)
{
    if (input.type != params.quantizedType() || output.type != params.outputType()
        || input.format != TensorFormat::kLINEAR || output.format != TensorFormat::kLINEAR)
    {
        throw std::invalid_argument("quantized matrix multiply: the CUDA backend reads a kLINEAR "
            + dataTypeName(params.quantizedType()) + " tensor and writes the layer's output type ("
            + dataTypeName(params.outputType()) + ")");
    }
    Shape expected = input.shape;
    if (expected.size() < 2 || expected.back() != params.inner())
    {
        throw std::invalid_argument(
            "quantized matrix multiply: the input's rows must have " + std::to_string(params.inner()) + " elements");
    }
    expected.back() = params.columns;
    if (output.shape != expected)
    {
        throw std::invalid_argument("quantized matrix multiply: the output's shape is not the input's with "
            + std::to_string(params.columns) + " columns");
    }
}

std::unique_ptr<DeviceLayer> lower(network::QuantizedMatrixMultiplyParams const& params, LayerContext const& context)
{
    if (params.quantizedType() == DataType::kFP8)
    {
        return lowerFp8MatrixMultiply(params, context);
    }
    return std::make_unique<QuantizedMatrixMultiplyLayer>(params, context);
}

} // namespace kiln::cuda
