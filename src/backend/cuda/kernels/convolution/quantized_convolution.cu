#include "backend/cuda/kernels/convolution/quantized_convolution.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/pointwise/pointwise_math.cuh"
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/libraries/cublaslt/int8_gemm.h"
#include "backend/cuda/libraries/cudnn/convolution_descriptors.h"
#include "core/quantization.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::cuda
{
namespace
{

using nvinfer1::DataType;

int64_t roundUp(int64_t value, int64_t multiple)
{
    return (value + multiple - 1) / multiple * multiple;
}

//! Where each output position's window reads the input, and how the rows of taps are laid out.
struct Im2col
{
    int32_t channels{0};
    int32_t height{0};
    int32_t width{0};
    int32_t kernelHeight{0};
    int32_t kernelWidth{0};
    int32_t strideY{1};
    int32_t strideX{1};
    int32_t padY{0};
    int32_t padX{0};
    int32_t dilationY{1};
    int32_t dilationX{1};
    int32_t outputHeight{0};
    int32_t outputWidth{0};
    int64_t rows{0};      //!< N * OH * OW: one per output position
    int32_t taps{0};      //!< C * R * S, in the filter's order (channel, then row, then column)
    int32_t rowLength{0}; //!< taps padded to kInt8GemmAlignment
};

//! The tile one block transposes: kTile output positions by kTile taps, so that the loads run along positions (the
//! input's rows) and the stores along taps (the matrix's rows). Within one image every index fits 32 bits (checked
//! when the layer is prepared); only the image's offset is 64-bit.
constexpr int kTile = 32;
constexpr int kTileRowsPerPass = 8;

//! Where output position `position` of an image reads tap (channel, r, s), or -1 in the padding.
struct Window
{
    int32_t y0; //!< the window's top row in the input (may be negative)
    int32_t x0;
    bool valid; //!< a position of the image, not past its end
};

__device__ int32_t tapOffset(Im2col const& g, Window const& w, int32_t tap)
{
    int32_t const perChannel = g.kernelHeight * g.kernelWidth;
    int32_t const channel = tap / perChannel;
    int32_t const rs = tap - channel * perChannel;
    int32_t const r = rs / g.kernelWidth;
    int32_t const y = w.y0 + r * g.dilationY;
    int32_t const x = w.x0 + (rs - r * g.kernelWidth) * g.dilationX;
    bool const inside = w.valid && tap < g.taps && y >= 0 && y < g.height && x >= 0 && x < g.width;
    return inside ? (channel * g.height + y) * g.width + x : -1;
}

//! blockIdx.x: a tile of one image's positions; blockIdx.y: a tile of taps (of the padded row); blockIdx.z: the image.
//! The windows of a 1x1 convolution of stride 1 without padding make this a transposition of the image's [C, H * W]
//! into [H * W, C].
__global__ void im2colKernel(int8_t const* input, int8_t* rows, Im2col g)
{
    __shared__ int8_t tile[kTile][kTile + 4];
    int32_t const positions = g.outputHeight * g.outputWidth;
    int32_t const firstPosition = static_cast<int32_t>(blockIdx.x) * kTile;
    int32_t const firstTap = static_cast<int32_t>(blockIdx.y) * kTile;
    int8_t const* const image = input + static_cast<int64_t>(blockIdx.z) * g.channels * g.height * g.width;
    int32_t const position = firstPosition + static_cast<int32_t>(threadIdx.x);
    int32_t const oy = position / g.outputWidth;
    Window const window{
        oy * g.strideY - g.padY, (position - oy * g.outputWidth) * g.strideX - g.padX, position < positions};
    for (int t = threadIdx.y; t < kTile; t += kTileRowsPerPass)
    {
        int32_t const offset = tapOffset(g, window, firstTap + t);
        tile[t][threadIdx.x] = offset >= 0 ? image[offset] : int8_t{0};
    }
    __syncthreads();
    int8_t* const imageRows = rows + static_cast<int64_t>(blockIdx.z) * positions * g.rowLength;
    int32_t const tap = firstTap + static_cast<int32_t>(threadIdx.x);
    for (int r = threadIdx.y; r < kTile; r += kTileRowsPerPass)
    {
        int32_t const row = firstPosition + r;
        if (row < positions && tap < g.rowLength)
        {
            imageRows[static_cast<int64_t>(row) * g.rowLength + tap] = tile[threadIdx.x][r];
        }
    }
}

//! What the epilogue applies to the sums, per output map k.
struct Epilogue
{
    float const* multipliers{nullptr}; //!< inputScale * kernelScales[k]
    float const* bias{nullptr};        //!< or none
    void const* residual{nullptr};     //!< channels-first, as the output; or none
    DataType residualType{DataType::kFLOAT};
    float residualScale{0.0F};
    bool activates{false};
    nvinfer1::ActivationType activation{nvinfer1::ActivationType::kRELU};
    float alpha{0.0F};
    float beta{0.0F};
    float outputScale{0.0F}; //!< > 0: INT8 output
    int64_t maps{0};
    int64_t positions{0};  //!< OH * OW
    int64_t sumsStride{0}; //!< between the sums of consecutive maps (the product's ldd)
};

//! The value of output element `i` (channels-first), from its sum of map `map`.
__device__ float epilogueValue(Epilogue const& e, int32_t sum, int64_t map, int64_t i)
{
    float y = static_cast<float>(sum) * e.multipliers[map];
    if (e.bias != nullptr)
    {
        y += e.bias[map];
    }
    if (e.residual != nullptr)
    {
        y += e.residualType == DataType::kINT8
            ? dequantizeInt8(static_cast<int8_t const*>(e.residual)[i], e.residualScale)
            : static_cast<float const*>(e.residual)[i];
    }
    return e.activates ? device::activate(e.activation, e.alpha, e.beta, y) : y;
}

__device__ void storeOutput(Epilogue const& e, void* output, int64_t i, float y)
{
    if (e.outputScale > 0.0F)
    {
        static_cast<int8_t*>(output)[i] = quantizeToInt8(y, e.outputScale);
    }
    else
    {
        static_cast<float*>(output)[i] = y;
    }
}

//! blockIdx.y (and further planes in steps of gridDim.y): one output plane, image * maps + map; the threads run along
//! its positions, `Width` adjacent positions each (4 where the planes' length is a multiple of 4: one 16-byte load of
//! sums). The sums of map k lie in a column of their own ([rows] INT32 from k * sumsStride), so neighbouring threads
//! read neighbouring sums and write neighbouring outputs.
template <int Width>
__global__ void epilogueKernel(int32_t const* sums, void* output, Epilogue e, int64_t planes)
{
    for (int64_t plane = blockIdx.y; plane < planes; plane += gridDim.y)
    {
        int64_t const image = plane / e.maps;
        int64_t const map = plane - image * e.maps;
        int32_t const* const planeSums = sums + map * e.sumsStride + image * e.positions;
        for (int64_t p = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * Width; p < e.positions;
             p += static_cast<int64_t>(gridDim.x) * blockDim.x * Width)
        {
            int32_t values[Width];
            if constexpr (Width == 4)
            {
                int4 const loaded = *reinterpret_cast<int4 const*>(planeSums + p);
                values[0] = loaded.x;
                values[1] = loaded.y;
                values[2] = loaded.z;
                values[3] = loaded.w;
            }
            else
            {
                values[0] = planeSums[p];
            }
            for (int j = 0; j < Width; ++j)
            {
                int64_t const i = plane * e.positions + p + j;
                storeOutput(e, output, i, epilogueValue(e, values[j], map, i));
            }
        }
    }
}

void launchEpilogue(int32_t const* sums, void* output, Epilogue const& e, int64_t images, cudaStream_t stream)
{
    int64_t const planes = images * e.maps;
    bool const vectors = e.positions % 4 == 0;
    int64_t const perPlane = vectors ? e.positions / 4 : e.positions;
    dim3 const grid(static_cast<unsigned>(
                        std::min<int64_t>((perPlane + device::kThreadsPerBlock - 1) / device::kThreadsPerBlock, 64)),
        static_cast<unsigned>(std::min<int64_t>(planes, 65535)));
    if (vectors)
    {
        epilogueKernel<4><<<grid, device::kThreadsPerBlock, 0, stream>>>(sums, output, e, planes);
    }
    else
    {
        epilogueKernel<1><<<grid, device::kThreadsPerBlock, 0, stream>>>(sums, output, e, planes);
    }
    check(cudaGetLastError(), "quantized convolution: scaling the sums");
}

//! A device copy of `values`.
DeviceBuffer uploaded(void const* values, size_t bytes, char const* what)
{
    DeviceBuffer buffer(bytes, what);
    check(cudaMemcpy(buffer.data(), values, bytes, cudaMemcpyHostToDevice), what);
    return buffer;
}

//! Byte offsets of the three parts of the scratch memory one run uses, each aligned for the integer kernels.
struct ScratchLayout
{
    size_t sums{0};
    size_t workspace{0};
    size_t total{0};
};

class QuantizedConvolutionLayer final : public DeviceLayer
{
public:
    QuantizedConvolutionLayer(network::QuantizedConvolutionParams const& params, LayerContext const& context)
        : mParams(params)
        , mHandles(context.handles)
        , mScratch(context.sharedScratch)
    {
        if (!runsQuantizedConvolution(params) || params.kernel.type() != DataType::kINT8)
        {
            throw std::invalid_argument("quantized convolution: the CUDA backend runs INT8 convolutions over two "
                                        "spatial axes, in one group, with symmetric padding");
        }
        mMaps = params.nbOutputMaps;
        mTaps = params.kernel.count() / mMaps;
        mRowLength = roundUp(mTaps, kInt8GemmAlignment);
        std::vector<int8_t> filters(static_cast<size_t>(mMaps * mRowLength), 0);
        auto const* kernel = static_cast<int8_t const*>(params.kernel.data());
        for (int64_t k = 0; k < mMaps; ++k)
        {
            std::copy(kernel + k * mTaps, kernel + (k + 1) * mTaps, filters.begin() + k * mRowLength);
        }
        mFilters = uploaded(filters.data(), filters.size(), "quantized convolution: the INT8 filters");
        std::vector<float> multipliers(static_cast<size_t>(mMaps));
        auto const* scales = static_cast<float const*>(params.kernelScales.data());
        for (size_t k = 0; k < multipliers.size(); ++k)
        {
            multipliers[k] = params.inputScale * scales[k];
        }
        mMultipliers = uploaded(
            multipliers.data(), multipliers.size() * sizeof(float), "quantized convolution: the scales of its sums");
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
        checkTensors(inputs, output);
        if (!mGemm || input.shape != mPreparedShape)
        {
            prepare(input.shape);
        }
        if (output.count() == 0)
        {
            return;
        }
        mScratch.reserve(mLayout.total, stream, "quantized convolution: rows of taps and their sums");
        auto* const rows = reinterpret_cast<int8_t*>(mScratch.data());
        auto* const sums = reinterpret_cast<int32_t*>(mScratch.data() + mLayout.sums);
        int32_t const positions = mIm2col.outputHeight * mIm2col.outputWidth;
        dim3 const grid(static_cast<unsigned>((positions + kTile - 1) / kTile),
            static_cast<unsigned>((mIm2col.rowLength + kTile - 1) / kTile), static_cast<unsigned>(mImages));
        im2colKernel<<<grid, dim3(kTile, kTileRowsPerPass), 0, stream>>>(
            static_cast<int8_t const*>(input.data), rows, mIm2col);
        check(cudaGetLastError(), "quantized convolution: gathering the windows");
        mGemm->run(mHandles.cublasLt(), rows, reinterpret_cast<int8_t const*>(mFilters.data()), sums,
            mScratch.data() + mLayout.workspace, stream);
        Epilogue e = mEpilogue;
        e.residual = mParams.addsResidual ? inputs.at(1).data : nullptr;
        launchEpilogue(sums, output.data, e, mImages, stream);
    }

private:
    void checkTensors(std::vector<ConstTensorView> const& inputs, TensorView const& output) const
    {
        ConstTensorView const& input = inputs.at(0);
        if (input.type != DataType::kINT8 || output.type != mParams.outputType() || input.rank() != 4
            || input.format != TensorFormat::kLINEAR || output.format != TensorFormat::kLINEAR)
        {
            throw std::invalid_argument("quantized convolution: the CUDA backend reads a channels-first INT8 "
                                        "[N, C, H, W] tensor and writes the layer's output type, channels-first");
        }
        if (mParams.addsResidual
            && (inputs.size() < 2 || inputs[1].type != mParams.residualType() || inputs[1].shape != output.shape
                || inputs[1].format != TensorFormat::kLINEAR))
        {
            throw std::invalid_argument("quantized convolution: the residual must have the output's shape and format "
                                        "and the type its scale gives");
        }
    }

    void prepare(Shape const& inputShape)
    {
        ConvolutionGeometry const geometry = convolutionGeometry(mParams, inputShape, false);
        if (geometry.input[1] * geometry.filter[2] * geometry.filter[3] != mTaps)
        {
            throw std::invalid_argument("quantized convolution: the input has " + std::to_string(inputShape[1])
                + " channels, which the filters do not fit");
        }
        Im2col g;
        g.channels = static_cast<int32_t>(geometry.input[1]);
        g.height = static_cast<int32_t>(geometry.input[2]);
        g.width = static_cast<int32_t>(geometry.input[3]);
        g.kernelHeight = static_cast<int32_t>(geometry.filter[2]);
        g.kernelWidth = static_cast<int32_t>(geometry.filter[3]);
        g.strideY = static_cast<int32_t>(geometry.stride[0]);
        g.strideX = static_cast<int32_t>(geometry.stride[1]);
        g.padY = static_cast<int32_t>(geometry.padding[0]);
        g.padX = static_cast<int32_t>(geometry.padding[1]);
        g.dilationY = static_cast<int32_t>(geometry.dilation[0]);
        g.dilationX = static_cast<int32_t>(geometry.dilation[1]);
        g.outputHeight = static_cast<int32_t>(geometry.output[2]);
        g.outputWidth = static_cast<int32_t>(geometry.output[3]);
        g.rows = geometry.output[0] * geometry.output[2] * geometry.output[3];
        mImages = geometry.output[0];
        int64_t const imageBytes = std::max(geometry.input[1] * geometry.input[2] * geometry.input[3],
            geometry.output[2] * geometry.output[3] * mRowLength);
        if (imageBytes > std::numeric_limits<int32_t>::max() || mImages > 65535)
        {
            throw std::invalid_argument("quantized convolution: the CUDA kernel takes images of fewer than 2^31 "
                                        "elements and windows, and at most 65535 of them a batch");
        }
        g.taps = static_cast<int32_t>(mTaps);
        g.rowLength = static_cast<int32_t>(mRowLength);
        mIm2col = g;
        mPreparedShape = inputShape;
        mGemm.reset();
        if (g.rows == 0)
        {
            return;
        }
        int64_t const sumsStride = roundUp(g.rows, kInt8GemmAlignment);
        mGemm.emplace(g.rows, mMaps, mRowLength, sumsStride, mHandles.cublasLt());
        mLayout.sums = static_cast<size_t>(roundUp(g.rows * mRowLength, 256));
        mLayout.workspace = mLayout.sums + static_cast<size_t>(roundUp(sumsStride * mMaps * 4, 256));
        mLayout.total = mLayout.workspace + mGemm->workspaceBytes();

        mEpilogue.multipliers = reinterpret_cast<float const*>(mMultipliers.data());
        mEpilogue.bias = reinterpret_cast<float const*>(mBias.data());
        mEpilogue.residualType = mParams.residualType();
        mEpilogue.residualScale = mParams.residualScale;
        mEpilogue.activates = mParams.activates;
        mEpilogue.activation = mParams.activation;
        mEpilogue.alpha = mParams.alpha;
        mEpilogue.beta = mParams.beta;
        mEpilogue.outputScale = mParams.outputScale;
        mEpilogue.maps = mMaps;
        mEpilogue.positions = geometry.output[2] * geometry.output[3];
        mEpilogue.sumsStride = sumsStride;
    }

    network::QuantizedConvolutionParams const& mParams;
    LibraryHandles& mHandles;
    DeviceBuffer& mScratch;
    int64_t mMaps{0};
    int64_t mTaps{0};
    int64_t mRowLength{0};
    DeviceBuffer mFilters;     //!< [maps, rowLength] INT8, each row's padding zero
    DeviceBuffer mMultipliers; //!< [maps] FP32
    DeviceBuffer mBias;        //!< [maps] FP32, or empty
    Shape mPreparedShape;
    int64_t mImages{0};
    Im2col mIm2col;
    std::optional<Int8Gemm> mGemm;
    ScratchLayout mLayout;
    Epilogue mEpilogue;
};

} // namespace

bool runsQuantizedConvolution(network::QuantizedConvolutionParams const& params)
{
    bool const symmetric = params.paddingMode == nvinfer1::PaddingMode::kEXPLICIT_ROUND_DOWN
        || params.paddingMode == nvinfer1::PaddingMode::kEXPLICIT_ROUND_UP;
    bool samePadding = true;
    for (int32_t axis = 0; axis < params.prePadding.nbDims && axis < params.postPadding.nbDims; ++axis)
    {
        samePadding = samePadding && params.prePadding.d[axis] == params.postPadding.d[axis];
    }
    return params.kernelSize.nbDims == 2 && params.nbGroups == 1 && params.nbOutputMaps > 0 && symmetric && samePadding
        && params.prePadding.nbDims == params.postPadding.nbDims;
}

std::unique_ptr<DeviceLayer> lower(network::QuantizedConvolutionParams const& params, LayerContext const& context)
{
    return std::make_unique<QuantizedConvolutionLayer>(params, context);
}

} // namespace kiln::cuda
