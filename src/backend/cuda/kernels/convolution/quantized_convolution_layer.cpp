#include "backend/cuda/cuda_error.h"
#include "backend/cuda/device_facts.h"
#include "backend/cuda/kernels/convolution/int8_convolution.h"
#include "backend/cuda/kernels/convolution/quantized_convolution.h"
#include "backend/cuda/kernels/convolution/quantized_convolution_kernels.h"
#include "backend/cuda/kernels/convolution/quantized_epilogue.h"
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/libraries/cublaslt/int8_gemm.h"
#include "backend/cuda/libraries/cudnn/convolution_descriptors.h"
#include "backend/cuda/libraries/cudnn/quantized_convolution_graph.h"
#include "backend/cuda/tuning/algorithm_choice.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <memory>
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

//! Byte offsets of the parts of the scratch memory a run uses, each aligned for the integer kernels: the input with its
//! channels padded (from 0, where the layer pads them), then, through cuBLASLt, rows of taps, their sums and
//! cuBLASLt's workspace.
struct ScratchLayout
{
    size_t rows{0};
    size_t sums{0};
    size_t workspace{0};
    size_t total{0};
};

//! How many input shapes' cuDNN graphs a layer keeps: making one compiles its engine (about half a second on Hopper),
//! and an application that switches between a few shapes should not pay that at every switch.
constexpr size_t kGraphShapesKept = 4;

//! Channels-last windows are read 4 channels at a time at least (int8_convolution.h, launchIm2col).
constexpr int64_t kChannelAlignment = 4;

class QuantizedConvolutionLayer final : public DeviceLayer
{
public:
    QuantizedConvolutionLayer(network::QuantizedConvolutionParams const& params, LayerContext const& context)
        : mParams(params)
        , mHandles(context.handles)
        , mScratch(context.sharedScratch)
        , mFormat(context.format)
        , mChoice(AlgorithmChoice::decode(context.record.backendChoice))
    {
        if (!runsQuantizedConvolution(params) || params.kernel.type() != DataType::kINT8
            || (mFormat != TensorFormat::kLINEAR && mFormat != TensorFormat::kHWC))
        {
            throw std::invalid_argument("quantized convolution: the CUDA backend runs INT8 convolutions over two "
                                        "spatial axes, in one group, with symmetric padding, on kLINEAR or kHWC data");
        }
        mMaps = params.nbOutputMaps;
        int64_t const window = params.kernelSize.d[0] * params.kernelSize.d[1];
        mChannels = params.kernel.count() / mMaps / window;
        mStoredChannels = channelsLast() ? roundUp(mChannels, kChannelAlignment) : mChannels;
        mTaps = mStoredChannels * window;
        mRowLength = roundUp(mTaps, kInt8GemmAlignment);
        std::vector<int8_t> const filters = paddedFilters();
        mFilters = uploadedCopy(filters.data(), filters.size(), "quantized convolution: the INT8 filters");
        std::vector<float> multipliers(static_cast<size_t>(mMaps));
        auto const* scales = static_cast<float const*>(params.kernelScales.data());
        for (size_t k = 0; k < multipliers.size(); ++k)
        {
            multipliers[k] = params.inputScale * scales[k];
        }
        mMultipliers = uploadedCopy(
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
        if (input.shape != mPreparedShape)
        {
            prepare(input.shape);
        }
        if (output.count() == 0)
        {
            return;
        }
        QuantizedEpilogue e = mEpilogue;
        e.residual = mParams.addsResidual ? inputs.at(1).data : nullptr;
        auto const* filters = reinterpret_cast<int8_t const*>(mFilters.data());
        if (mLayout.total > 0)
        {
            mScratch.reserve(
                mLayout.total, stream, "quantized convolution: its padded input, rows of taps, their sums");
        }
        auto const* windows = static_cast<int8_t const*>(input.data);
        if (mGraph)
        {
            mGraph->execute(mHandles.cudnn(stream),
                QuantizedConvolutionGraphData{input.data, e.residual, output.data, mScratch.data()});
            return;
        }
        if (padsChannels())
        {
            auto* const padded = reinterpret_cast<int8_t*>(mScratch.data());
            launchPadChannels(windows, padded, mImages * mIm2col.height * mIm2col.width,
                static_cast<int32_t>(mChannels), static_cast<int32_t>(mStoredChannels), stream);
            windows = padded;
        }
        if (mImplicitGemm)
        {
            launchInt8Convolution(windows, filters, output.data, mIm2col, mImages, e, mKernel, stream);
            return;
        }
        auto* const sums = reinterpret_cast<int32_t*>(mScratch.data() + mLayout.sums);
        auto const* rows = windows; // a 1x1 convolution's input is its rows
        if (!mReadsInPlace)
        {
            auto* const gathered = reinterpret_cast<int8_t*>(mScratch.data() + mLayout.rows);
            launchIm2col(windows, gathered, mIm2col, mImages, channelsLast(), stream);
            rows = gathered;
        }
        // Channels-first sums are a column per map (rows x filters); channels-last ones a column per position.
        mGemm->run(mHandles.cublasLt(), channelsLast() ? filters : rows, channelsLast() ? rows : filters, sums,
            mScratch.data() + mLayout.workspace, stream);
        launchQuantizedEpilogue(sums, output.data, e, mImages, channelsLast(), stream);
    }

private:
    void checkTensors(std::vector<ConstTensorView> const& inputs, TensorView const& output) const
    {
        ConstTensorView const& input = inputs.at(0);
        if (input.type != DataType::kINT8 || output.type != mParams.outputType() || input.rank() != 4
            || input.format != mFormat || output.format != mFormat)
        {
            throw std::invalid_argument("quantized convolution: the CUDA backend reads an INT8 [N, C, H, W] tensor "
                                        "and writes the layer's output type, both in the format it was made for");
        }
        if (mParams.addsResidual
            && (inputs.size() < 2 || inputs[1].type != mParams.residualType() || inputs[1].shape != output.shape
                || inputs[1].format != mFormat))
        {
            throw std::invalid_argument("quantized convolution: the residual must have the output's shape and format "
                                        "and the type its scale gives");
        }
    }

    void prepare(Shape const& inputShape)
    {
        ConvolutionGeometry const geometry = convolutionGeometry(mParams, inputShape, false);
        if (geometry.input[1] != mChannels)
        {
            throw std::invalid_argument("quantized convolution: the input has " + std::to_string(inputShape[1])
                + " channels, which the filters do not fit");
        }
        int64_t const rowCount = geometry.output[0] * geometry.output[2] * geometry.output[3];
        mImages = geometry.output[0];
        int64_t const imageBytes = std::max(mStoredChannels * geometry.input[2] * geometry.input[3],
            geometry.output[2] * geometry.output[3] * mRowLength);
        if (imageBytes > std::numeric_limits<int32_t>::max() || mImages > 65535)
        {
            throw std::invalid_argument("quantized convolution: the CUDA kernels take images of fewer than 2^31 "
                                        "elements and windows, and at most 65535 of them a batch");
        }
        mIm2col = windowGeometry(geometry);
        mPreparedShape = inputShape;
        prepareEpilogue(geometry);
        mGemm.reset();
        mLayout = ScratchLayout{};
        if (prepareGraph(inputShape))
        {
            return;
        }
        int const device = currentDevice();
        mImplicitGemm = channelsLast()
            && int8ConvolutionFillsGpu(mIm2col, mImages, mMaps, multiprocessorCount("quantized convolution"));
        mKernel = int8ConvolutionKernelOfDevice(device);
        if (padsChannels())
        {
            mLayout.rows
                = static_cast<size_t>(roundUp(mImages * mIm2col.height * mIm2col.width * mStoredChannels, 256));
        }
        mLayout.total = mLayout.rows;
        if (rowCount == 0 || mImplicitGemm)
        {
            return; // the implicit GEMM reads the windows where they lie
        }
        // A 1x1 window of stride 1 without padding over channels-last data reads each position's channels, as they are
        // stored, as its row: no gathering, where the channels are the product's padded length already.
        Im2colGeometry const& g = mIm2col;
        mReadsInPlace = channelsLast() && g.kernelHeight == 1 && g.kernelWidth == 1 && g.strideY == 1 && g.strideX == 1
            && g.padY == 0 && g.padX == 0 && g.channels == mRowLength;
        int64_t const sumsStride = roundUp(channelsLast() ? mMaps : rowCount, kInt8GemmAlignment);
        if (channelsLast())
        {
            mGemm.emplace(mMaps, rowCount, mRowLength, sumsStride, mHandles.cublasLt());
        }
        else
        {
            mGemm.emplace(rowCount, mMaps, mRowLength, sumsStride, mHandles.cublasLt());
        }
        mLayout.sums = mLayout.rows + (mReadsInPlace ? 0 : static_cast<size_t>(roundUp(rowCount * mRowLength, 256)));
        mLayout.workspace
            = mLayout.sums + static_cast<size_t>(roundUp(sumsStride * (channelsLast() ? rowCount : mMaps) * 4, 256));
        mLayout.total = mLayout.workspace + mGemm->workspaceBytes();
        mEpilogue.sumsStride = sumsStride;
    }

    //! Makes (or takes, where this shape ran before) the cuDNN graph the builder chose for the layer, where it chose
    //! one and cuDNN takes `inputShape`; its workspace is the shared scratch. False where Kiln's kernels run the layer.
    bool prepareGraph(Shape const& inputShape)
    {
        mGraph = nullptr;
        if (mChoice.source != AlgorithmChoice::Source::kGRAPH_ENGINE
            || !QuantizedConvolutionGraph::takes(mParams, inputShape, mFormat))
        {
            return false;
        }
        auto const kept = std::find_if(mGraphs.begin(), mGraphs.end(),
            [&](ShapeGraph const& shapeGraph) { return shapeGraph.shape == inputShape; });
        if (kept != mGraphs.end())
        {
            mGraph = kept->graph.get();
        }
        else
        {
            try
            {
                if (mGraphConstants == nullptr)
                {
                    mGraphConstants = std::make_shared<QuantizedConvolutionGraphConstants const>(mParams);
                }
                auto graph = std::make_unique<QuantizedConvolutionGraph>(
                    mHandles.cudnn(nullptr), mParams, inputShape, mGraphConstants);
                if (!graph->chooseOrFirstWorking(mChoice.index, QuantizedConvolutionGraph::kWorkspaceLimit))
                {
                    return false;
                }
                if (mGraphs.size() == kGraphShapesKept)
                {
                    mGraphs.pop_front();
                }
                mGraph = mGraphs.emplace_back(ShapeGraph{inputShape, std::move(graph)}).graph.get();
            }
            catch (std::runtime_error const&)
            {
                return false; // cuDNN refuses the graph at this shape: Kiln's kernels run it
            }
        }
        mLayout.total = static_cast<size_t>(mGraph->workspaceBytes());
        return true;
    }

    static int currentDevice()
    {
        int device = 0;
        check(cudaGetDevice(&device), "quantized convolution: finding the device");
        return device;
    }

    Im2colGeometry windowGeometry(ConvolutionGeometry const& geometry) const
    {
        Im2colGeometry g;
        g.channels = static_cast<int32_t>(mStoredChannels);
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
        g.taps = static_cast<int32_t>(mTaps);
        g.rowLength = static_cast<int32_t>(mRowLength);
        return g;
    }

    void prepareEpilogue(ConvolutionGeometry const& geometry)
    {
        mEpilogue.multipliers = reinterpret_cast<float const*>(mMultipliers.data());
        mEpilogue.bias = reinterpret_cast<float const*>(mBias.data());
        mEpilogue.residualType = mParams.residualType();
        mEpilogue.residualScale = mParams.residualScale;
        mEpilogue.activates = mParams.activates;
        mEpilogue.activation = mParams.activation;
        mEpilogue.selfGated = mParams.selfGated;
        mEpilogue.alpha = mParams.alpha;
        mEpilogue.beta = mParams.beta;
        mEpilogue.outputScale = mParams.outputScale;
        mEpilogue.maps = mMaps;
        mEpilogue.positions = geometry.output[2] * geometry.output[3];
    }

    bool channelsLast() const
    {
        return mFormat == TensorFormat::kHWC;
    }

    bool padsChannels() const
    {
        return mStoredChannels != mChannels;
    }

    //! The INT8 filters as the product reads them: a row of rowLength taps per map, in the order of the layout's rows
    //! of taps (channels-first: channel, row, column, as the plan stores them; channels-last: row, column, stored
    //! channel), the padding (of the row, and of the channels) zero.
    std::vector<int8_t> paddedFilters() const
    {
        std::vector<int8_t> filters(static_cast<size_t>(mMaps * mRowLength), 0);
        auto const* kernel = static_cast<int8_t const*>(mParams.kernel.data());
        int64_t const window = mParams.kernelSize.d[0] * mParams.kernelSize.d[1];
        for (int64_t k = 0; k < mMaps; ++k)
        {
            for (int64_t c = 0; c < mChannels; ++c)
            {
                for (int64_t rs = 0; rs < window; ++rs)
                {
                    int64_t const tap = channelsLast() ? rs * mStoredChannels + c : c * window + rs;
                    filters[static_cast<size_t>(k * mRowLength + tap)] = kernel[(k * mChannels + c) * window + rs];
                }
            }
        }
        return filters;
    }

    network::QuantizedConvolutionParams const& mParams;
    LibraryHandles& mHandles;
    DeviceBuffer& mScratch;
    TensorFormat mFormat;    //!< of the input, the residual and the output
    AlgorithmChoice mChoice; //!< the builder's: a rank of cuDNN's graph engines, or Kiln's kernels
    int64_t mMaps{0};
    int64_t mChannels{0};       //!< of the input
    int64_t mStoredChannels{0}; //!< of the windows the kernels read: channels-last, padded to kChannelAlignment
    int64_t mTaps{0};           //!< of a window, mStoredChannels channels deep
    int64_t mRowLength{0};
    DeviceBuffer mFilters;     //!< paddedFilters()
    DeviceBuffer mMultipliers; //!< [maps] FP32
    DeviceBuffer mBias;        //!< [maps] FP32, or empty
    Shape mPreparedShape;
    int64_t mImages{0};
    Im2colGeometry mIm2col;
    bool mImplicitGemm{false}; //!< launchInt8Convolution, rather than the three steps through cuBLASLt
    Int8ConvolutionKernel mKernel{Int8ConvolutionKernel::kMmaSync};
    bool mReadsInPlace{false}; //!< a channels-last 1x1 convolution's input is its rows of taps
    std::optional<Int8Gemm> mGemm;
    ScratchLayout mLayout;
    QuantizedEpilogue mEpilogue;
    //! A cuDNN graph made for one input shape.
    struct ShapeGraph
    {
        Shape shape;
        std::unique_ptr<QuantizedConvolutionGraph> graph;
    };
    std::shared_ptr<QuantizedConvolutionGraphConstants const> mGraphConstants; //!< made with the first graph
    std::deque<ShapeGraph> mGraphs;             //!< the last kGraphShapesKept shapes made, oldest first
    QuantizedConvolutionGraph* mGraph{nullptr}; //!< the prepared shape's, where the layer runs cuDNN's graph
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
