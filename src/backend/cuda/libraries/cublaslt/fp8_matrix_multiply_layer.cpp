// The CUDA backend's FP8 QuantizedMatrixMultiply (quantized_matrix_multiply.h says how it runs).
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/convolution/quantized_epilogue.h"
#include "backend/cuda/libraries/cublaslt/fp8_gemm.h"
#include "backend/cuda/libraries/cublaslt/matrix_multiply_descriptors.h"
#include "backend/cuda/libraries/cublaslt/quantized_matrix_multiply.h"
#include "backend/cuda/libraries/cudnn/convolution_descriptors.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <vector>

namespace kiln::cuda
{
namespace
{

using nvinfer1::DataType;

//! The alignment cuBLASLt's heuristics assume of every operand: rows or outputs elsewhere go through scratch memory.
constexpr uint32_t kOperandAlignment = 256;

//! FP32 values from one per-tensor scale to the next, so that each is aligned as Fp8Gemm takes scales.
constexpr size_t kScaleSlot = kFp8ScaleAlignment / sizeof(float);

size_t roundUp(size_t value, size_t multiple)
{
    return (value + multiple - 1) / multiple * multiple;
}

network::WeightsBuffer floats(std::vector<float> const& values)
{
    return network::WeightsBuffer(
        nvinfer1::Weights{DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())});
}

//! How cuBLASLt's epilogue computes the whole layer after its product, where it can (the direct form): no activation
//! or a ReLU, and an output it adds a bias to where there is one; with one scale for all the weights (its per-tensor
//! scales, any output), or with one per column (Model Optimizer's) as its outer-vector scales (FP32 and FP16 outputs:
//! that scaling has no FP8 output).
enum class DirectForm
{
    kNone,
    kTensorScales,
    kColumnScales,
};

DirectForm directFormOf(network::QuantizedMatrixMultiplyParams const& params)
{
    std::vector<float> const scales = params.weightScales.toFloat();
    bool const oneScale = std::all_of(scales.begin(), scales.end(), [&](float s) { return s == scales.front(); });
    bool const activation = !params.activates || params.activation == nvinfer1::ActivationType::kRELU;
    bool const biasTaken = params.bias.empty() || params.outputType() != DataType::kFLOAT;
    if (!activation || !biasTaken)
    {
        return DirectForm::kNone;
    }
    if (oneScale)
    {
        return DirectForm::kTensorScales;
    }
    return params.outputType() == DataType::kFP8 ? DirectForm::kNone : DirectForm::kColumnScales;
}

class Fp8MatrixMultiplyLayer final : public DeviceLayer
{
public:
    Fp8MatrixMultiplyLayer(network::QuantizedMatrixMultiplyParams const& params, LayerContext const& context)
        : mParams(params)
        , mHandles(context.handles)
        , mScratch(context.sharedScratch)
        , mColumns(params.columns)
        , mInner(params.inner())
        , mDirectForm(directFormOf(params))
    {
        mWeights = DeviceBuffer(static_cast<size_t>(params.weights.count()), "FP8 matrix multiply: the weights");
        check(cudaMemcpy(mWeights.data(), params.weights.data(), static_cast<size_t>(params.weights.count()),
                  cudaMemcpyHostToDevice),
            "FP8 matrix multiply: uploading the weights");
        std::vector<float> multipliers = params.weightScales.toFloat();
        // The direct form's per-tensor scales: the weights', the input's, and the output's reciprocal (cuBLASLt
        // multiplies by it before rounding into FP8), each in a slot of its own (kFp8ScaleAlignment).
        std::vector<float> scales(3 * kScaleSlot, 0.0F);
        scales[0] = multipliers.front();
        scales[kScaleSlot] = params.inputScale;
        scales[2 * kScaleSlot] = params.outputScale > 0.0F ? 1.0F / params.outputScale : 1.0F;
        mScales = uploadWeights(floats(scales), DataType::kFLOAT);
        for (float& multiplier : multipliers)
        {
            multiplier *= params.inputScale;
        }
        mMultipliers = uploadWeights(floats(multipliers), DataType::kFLOAT);
        if (!params.bias.empty())
        {
            mBias = uploadWeights(params.bias, DataType::kFLOAT);
            mHalfBias = uploadWeights(params.bias, DataType::kHALF);
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
        describe(rows, stream);
        bool const direct = mDirect.has_value() && addressAlignment(output.data) >= kOperandAlignment;
        Fp8Gemm const& gemm = direct ? *mDirect : sumsGemm();
        bool const inPlace = addressAlignment(input.data) >= kOperandAlignment;
        size_t const rowsBytes = inPlace ? 0 : roundUp(static_cast<size_t>(input.count()), 256);
        size_t const sumsBytes = direct ? 0 : roundUp(static_cast<size_t>(rows * mColumns) * sizeof(float), 256);
        mScratch.reserve(rowsBytes + sumsBytes + gemm.workspaceBytes(), stream, "FP8 matrix multiply: rows and sums");
        auto const* rowsData = static_cast<uint8_t const*>(input.data);
        if (!inPlace)
        {
            check(cudaMemcpyAsync(mScratch.data(), input.data, static_cast<size_t>(input.count()),
                      cudaMemcpyDeviceToDevice, stream),
                "FP8 matrix multiply: copying the rows");
            rowsData = reinterpret_cast<uint8_t const*>(mScratch.data());
        }
        void* const workspace = mScratch.data() + rowsBytes + sumsBytes;
        auto const* weights = reinterpret_cast<uint8_t const*>(mWeights.data());
        if (direct)
        {
            gemm.run(mHandles.cublasLt(), weights, rowsData, output.data, workspace, stream);
            return;
        }
        auto* const sums = reinterpret_cast<float*>(mScratch.data() + rowsBytes);
        gemm.run(mHandles.cublasLt(), weights, rowsData, sums, workspace, stream);
        launchQuantizedEpilogue(sums, output.data, epilogue(rows), 1, stream);
    }

private:
    //! The products for `rows` rows: the direct form where the layer has it and cuBLASLt an algorithm for it.
    void describe(int64_t rows, cudaStream_t stream)
    {
        if (rows == mRows)
        {
            return;
        }
        mDirect.reset();
        mSums.reset();
        mRows = rows;
        if (mDirectForm != DirectForm::kNone)
        {
            try
            {
                if (mDirectForm == DirectForm::kColumnScales)
                {
                    growRowScales(rows, stream);
                }
                mDirect.emplace(mColumns, rows, mInner, directOutput(), mHandles.cublasLt());
            }
            catch (std::runtime_error const&)
            {
                // No kernel for this output and epilogue here: the FP32 sums and Kiln's epilogue compute the same.
            }
        }
    }

    //! The outer-vector form's scale of each input row: ones (the input's scale is in mMultipliers), for `rows`
    //! rows at least. Grown only, so that a layer that ran its largest shape once never copies while a CUDA graph
    //! captures it (where it would have to, it throws, and describe() takes the sums' form).
    void growRowScales(int64_t rows, cudaStream_t stream)
    {
        size_t const bytes = static_cast<size_t>(rows) * sizeof(float);
        if (bytes <= mRowScales.size())
        {
            return;
        }
        mRowScales.reserve(bytes, stream, "FP8 matrix multiply: the rows' scales");
        std::vector<float> const ones(static_cast<size_t>(rows), 1.0F);
        check(cudaMemcpyAsync(mRowScales.data(), ones.data(), bytes, cudaMemcpyHostToDevice, stream),
            "FP8 matrix multiply: the rows' scales");
    }

    //! The product of plain FP32 sums, for Kiln's epilogue kernel.
    Fp8Gemm const& sumsGemm()
    {
        if (!mSums)
        {
            mSums.emplace(mColumns, mRows, mInner, Fp8GemmOutput{}, mHandles.cublasLt());
        }
        return *mSums;
    }

    Fp8GemmOutput directOutput() const
    {
        auto const* scales = reinterpret_cast<float const*>(mScales.data());
        Fp8GemmOutput out;
        DataType const type = mParams.outputType();
        out.type = type == DataType::kFP8 ? CUDA_R_8F_E4M3 : type == DataType::kHALF ? CUDA_R_16F : CUDA_R_32F;
        out.aScale = scales;
        out.bScale = scales + kScaleSlot;
        out.dScale = type == DataType::kFP8 ? scales + 2 * kScaleSlot : nullptr;
        if (mDirectForm == DirectForm::kColumnScales)
        {
            // Each sum times inputScale * weightScales[n], then times 1: the multiplication the epilogue kernel does.
            out.aScale = reinterpret_cast<float const*>(mMultipliers.data());
            out.bScale = reinterpret_cast<float const*>(mRowScales.data());
            out.outerVectors = true;
        }
        out.bias = mParams.bias.empty() ? nullptr : mHalfBias.data();
        out.relu = mParams.activates;
        return out;
    }

    //! The epilogue over `rows` rows of FP32 sums: each row an output position, each column a map.
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
        e.quantizedType = DataType::kFP8;
        e.floatType = mParams.floatType;
        e.maps = mColumns;
        e.positions = rows;
        e.sumsStride = mColumns;
        return e;
    }

    network::QuantizedMatrixMultiplyParams const& mParams;
    LibraryHandles& mHandles;
    DeviceBuffer& mScratch;
    int64_t mColumns{0}; //!< N
    int64_t mInner{0};   //!< K
    DirectForm mDirectForm{DirectForm::kNone};
    DeviceBuffer mWeights;     //!< [N, K] FP8
    DeviceBuffer mScales;      //!< FP32 slots: the weights' scale, the input's, 1 / the output's
    DeviceBuffer mMultipliers; //!< [N] FP32: inputScale * weightScales[n] (the column-scales form's A scales)
    DeviceBuffer mBias;        //!< [N] FP32, or empty
    DeviceBuffer mHalfBias;    //!< [N] FP16, for cuBLASLt's epilogue, or empty
    DeviceBuffer mRowScales;   //!< FP32 ones, one per row at least, in the column-scales direct form
    int64_t mRows{0};          //!< the rows the products were described for
    std::optional<Fp8Gemm> mDirect;
    std::optional<Fp8Gemm> mSums;
};

} // namespace

std::unique_ptr<DeviceLayer> lowerFp8MatrixMultiply(
    network::QuantizedMatrixMultiplyParams const& params, LayerContext const& context)
{
    if (!runsQuantizedMatrixMultiply(params) || params.quantizedType() != DataType::kFP8
        || context.format != TensorFormat::kLINEAR)
    {
        throw std::invalid_argument("FP8 matrix multiply: the CUDA backend runs FP8 weights of N columns of K values "
                                    "(both multiples of 16) with one FP32 scale each, on kLINEAR data");
    }
    return std::make_unique<Fp8MatrixMultiplyLayer>(params, context);
}

} // namespace kiln::cuda
