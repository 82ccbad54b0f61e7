#include "backend/cuda/libraries/cudnn/quantized_convolution_graph.h"

#include "backend/cuda/kernels/convolution/quantized_convolution.h"
#include "backend/cuda/libraries/cudnn/convolution_graph.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace kiln::cuda
{
namespace
{

//! The unique ids by which a run finds the graph's tensors in memory (virtual ones stay inside the engine).
enum TensorId : int64_t
{
    kINPUT = 1,
    kFILTERS,
    kMULTIPLIERS,
    kBIAS,
    kRESIDUAL,
    kRESIDUAL_MULTIPLIER,
    kOUTPUT_SCALE,
    kOUTPUT,
    kINTERMEDIATES, //!< the sums, then each epilogue stage's result but the last
};

//! The channels cuDNN's INT8 kernels load at a time.
constexpr int64_t kChannelMultiple = 16;

//! Whether the graph divides by the output scale after the activation, as SiLU needs (silu(v) / s is not silu(v / s));
//! ReLU and no activation take the output scale folded into the multipliers, the bias and the residual's multiplier.
bool dividesAfterActivation(network::QuantizedConvolutionParams const& params)
{
    return params.activates && params.selfGated;
}

bool sameAddresses(QuantizedConvolutionGraphData const& a, QuantizedConvolutionGraphData const& b)
{
    return a.input == b.input && a.residual == b.residual && a.output == b.output && a.workspace == b.workspace;
}

} // namespace

QuantizedConvolutionGraphConstants::QuantizedConvolutionGraphConstants(
    network::QuantizedConvolutionParams const& params)
{
    int64_t const maps = params.nbOutputMaps;
    int64_t const window = params.kernelSize.d[0] * params.kernelSize.d[1];
    int64_t const channels = params.kernel.count() / maps / window;
    // The plan stores the filters [K, C, R, S]; the graph reads them channels-last, [K, R, S, C].
    auto const* kernel = static_cast<int8_t const*>(params.kernel.data());
    std::vector<int8_t> reordered(static_cast<size_t>(maps * window * channels));
    for (int64_t k = 0; k < maps; ++k)
    {
        for (int64_t c = 0; c < channels; ++c)
        {
            for (int64_t rs = 0; rs < window; ++rs)
            {
                reordered[static_cast<size_t>((k * window + rs) * channels + c)]
                    = kernel[(k * channels + c) * window + rs];
            }
        }
    }
    filters = uploadedCopy(reordered.data(), reordered.size(), "quantized convolution: its filters for cuDNN");
    auto const* kernelScales = static_cast<float const*>(params.kernelScales.data());
    auto const* biasValues = params.bias.empty() ? nullptr : static_cast<float const*>(params.bias.data());
    float const folded = dividesAfterActivation(params) ? 1.0F : params.outputScale;
    std::vector<float> perMap(static_cast<size_t>(maps));
    std::vector<float> shifts(static_cast<size_t>(maps), 0.0F);
    for (size_t k = 0; k < perMap.size(); ++k)
    {
        perMap[k] = params.inputScale * kernelScales[k] / folded;
        if (biasValues != nullptr)
        {
            shifts[k] = biasValues[k] / folded;
        }
    }
    multipliers = uploadedCopy(
        perMap.data(), perMap.size() * sizeof(float), "quantized convolution: its multipliers for cuDNN");
    bias = uploadedCopy(shifts.data(), shifts.size() * sizeof(float), "quantized convolution: its bias for cuDNN");
    float const residual = params.residualScale / folded;
    residualMultiplier
        = uploadedCopy(&residual, sizeof(float), "quantized convolution: its residual's multiplier for cuDNN");
    outputScale = uploadedCopy(&params.outputScale, sizeof(float), "quantized convolution: its output scale for cuDNN");
}

bool QuantizedConvolutionGraph::takes(
    network::QuantizedConvolutionParams const& params, Shape const& inputShape, TensorFormat format)
{
    bool const relu = params.activation == nvinfer1::ActivationType::kRELU && !params.selfGated;
    bool const silu = params.activation == nvinfer1::ActivationType::kSIGMOID && params.selfGated;
    bool const activationInGraph = !params.activates || relu || silu;
    bool const int8Residual = !params.addsResidual || params.residualType() == nvinfer1::DataType::kINT8;
    return format == TensorFormat::kHWC && inputShape.size() == 4 && runsQuantizedConvolution(params)
        && params.kernel.type() == nvinfer1::DataType::kINT8 && inputShape[1] % kChannelMultiple == 0
        && params.nbOutputMaps % kChannelMultiple == 0 && params.outputType() == nvinfer1::DataType::kINT8
        && int8Residual && activationInGraph;
}

QuantizedConvolutionGraph::QuantizedConvolutionGraph(cudnnHandle_t handle,
    network::QuantizedConvolutionParams const& params, Shape const& inputShape,
    std::shared_ptr<QuantizedConvolutionGraphConstants const> constants)
    : mHandle(handle)
    , mResidual(params.addsResidual)
    , mDividesAfterActivation(dividesAfterActivation(params))
    , mConstants(std::move(constants))
{
    describe(params, inputShape);
    for (cudnnBackendHeurMode_t const heuristic : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK})
    {
        for (BackendDescriptor& config : rankedEngineConfigs(*mGraph, heuristic))
        {
            if (!approximates(engineOf(config)))
            {
                mConfigs.push_back(std::move(config));
            }
        }
        if (!mConfigs.empty())
        {
            break; // the fallback list is for graphs the tuned engines do not take at all
        }
    }
}

void QuantizedConvolutionGraph::describe(network::QuantizedConvolutionParams const& params, Shape const& inputShape)
{
    ConvolutionGeometry const geometry = convolutionGeometry(params, inputShape, false);
    Shape const& outputDims = geometry.output;
    Shape const outputStrides = stridesIn(outputDims, TensorFormat::kHWC);
    Shape const perMap{1, outputDims[1], 1, 1};
    Shape const one{1, 1, 1, 1};
    auto const inMemory = [&](int64_t id, Shape const& dims, cudnnDataType_t type) -> BackendDescriptor const& {
        return mParts.emplace_back(graphTensor(id, dims, stridesIn(dims, TensorFormat::kHWC), type, false));
    };
    int64_t nextIntermediate = kINTERMEDIATES;
    auto const intermediate = [&]() -> BackendDescriptor const& {
        return mParts.emplace_back(graphTensor(nextIntermediate++, outputDims, outputStrides, CUDNN_DATA_FLOAT, true));
    };

    std::vector<BackendDescriptor> operations;
    BackendDescriptor const& sums = intermediate();
    operations.push_back(convolutionOperation(inMemory(kINPUT, geometry.input, CUDNN_DATA_INT8),
        inMemory(kFILTERS, geometry.filter, CUDNN_DATA_INT8), sums, CUDNN_DATA_INT32, geometry, mParts));
    // Each stage reads the one before; the last writes the INT8 output, which cuDNN rounds to nearest and saturates.
    struct Stage
    {
        cudnnPointwiseMode_t mode;
        BackendDescriptor const* operand;
    };
    std::vector<Stage> stages{{CUDNN_POINTWISE_MUL, &inMemory(kMULTIPLIERS, perMap, CUDNN_DATA_FLOAT)},
        {CUDNN_POINTWISE_ADD, &inMemory(kBIAS, perMap, CUDNN_DATA_FLOAT)}};
    if (mResidual)
    {
        BackendDescriptor const& residual = intermediate();
        operations.push_back(pointwiseOperation(CUDNN_POINTWISE_MUL, inMemory(kRESIDUAL, outputDims, CUDNN_DATA_INT8),
            &inMemory(kRESIDUAL_MULTIPLIER, one, CUDNN_DATA_FLOAT), residual, mParts));
        stages.push_back({CUDNN_POINTWISE_ADD, &residual});
    }
    if (params.activates)
    {
        // ReLU, or SiLU (y * sigmoid(y): cuDNN's swish, whose beta is 1 unless set).
        stages.push_back({params.selfGated ? CUDNN_POINTWISE_SWISH_FWD : CUDNN_POINTWISE_RELU_FWD, nullptr});
    }
    if (mDividesAfterActivation)
    {
        stages.push_back({CUDNN_POINTWISE_DIV, &inMemory(kOUTPUT_SCALE, one, CUDNN_DATA_FLOAT)});
    }
    BackendDescriptor const* result = &sums;
    for (size_t i = 0; i < stages.size(); ++i)
    {
        bool const last = i + 1 == stages.size();
        BackendDescriptor const& next = last
            ? mParts.emplace_back(graphTensor(kOUTPUT, outputDims, outputStrides, CUDNN_DATA_INT8, false))
            : intermediate();
        operations.push_back(pointwiseOperation(stages[i].mode, *result, stages[i].operand, next, mParts));
        result = &next;
    }
    mGraph.emplace(operationGraph(mHandle, operations));
    for (BackendDescriptor& operation : operations)
    {
        mParts.push_back(std::move(operation));
    }
}

bool QuantizedConvolutionGraph::choose(int64_t rank, int64_t workspaceLimit)
{
    if (rank < 0 || rank >= candidateCount())
    {
        return false;
    }
    std::optional<BackendDescriptor> plan = executionPlan(mHandle, mConfigs[static_cast<size_t>(rank)]);
    if (!plan || workspaceBytesOf(*plan) > workspaceLimit)
    {
        return false;
    }
    mWorkspaceBytes = workspaceBytesOf(*plan);
    mPlan = std::move(plan);
    mPack.reset();
    return true;
}

bool QuantizedConvolutionGraph::chooseOrFirstWorking(int64_t rank, int64_t workspaceLimit)
{
    bool chosen = choose(rank, workspaceLimit);
    for (int64_t other = 0; !chosen && other < candidateCount(); ++other)
    {
        chosen = other != rank && choose(other, workspaceLimit);
    }
    return chosen;
}

void QuantizedConvolutionGraph::execute(cudnnHandle_t handle, QuantizedConvolutionGraphData const& data)
{
    if (!mPlan)
    {
        throw std::logic_error("quantized convolution: cuDNN's graph runs only once a plan is chosen");
    }
    if (!mPack || !sameAddresses(mPackData, data))
    {
        for (void const* pointer : {data.input, data.residual, static_cast<void const*>(data.output)})
        {
            if (!graphAligned(pointer))
            {
                throw std::invalid_argument("quantized convolution: cuDNN needs tensors aligned to "
                    + std::to_string(kGraphTensorAlignment) + " bytes; one of this layer's is not");
            }
        }
        std::vector<int64_t> ids{kINPUT, kFILTERS, kMULTIPLIERS, kBIAS, kOUTPUT};
        std::vector<void*> pointers{const_cast<void*>(data.input), mConstants->filters.data(),
            mConstants->multipliers.data(), mConstants->bias.data(), data.output};
        if (mResidual)
        {
            ids.insert(ids.end(), {kRESIDUAL, kRESIDUAL_MULTIPLIER});
            pointers.insert(pointers.end(), {const_cast<void*>(data.residual), mConstants->residualMultiplier.data()});
        }
        if (mDividesAfterActivation)
        {
            ids.push_back(kOUTPUT_SCALE);
            pointers.push_back(mConstants->outputScale.data());
        }
        mPack.emplace(variantPack(ids, pointers, data.workspace));
        mPackData = data;
    }
    checkBackend(cudnnBackendExecute(handle, mPlan->get(), mPack->get()), "running a quantized convolution");
}

} // namespace kiln::cuda
