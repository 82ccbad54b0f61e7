#include "backend/cuda/libraries/cudnn/convolution_graph.h"

#include "backend/cuda/kernels/kernels.h"
#include "backend/cuda/libraries/cudnn/convolution_descriptors.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

//! The unique ids by which an execution finds the graph's tensors in memory (virtual ones stay in registers).
enum TensorId : int64_t
{
    kINPUT = 1,
    kKERNEL,
    kBIAS,
    kRESIDUAL,
    kOUTPUT,
    kINTERMEDIATES, //!< the convolution's result before the epilogue, then each epilogue stage's but the last
};

//! The type of the convolution's accumulation and of the epilogue's intermediates.
constexpr cudnnDataType_t kAccumulator = CUDNN_DATA_FLOAT;

//! Whether `engine` has numerical note `note`.
bool hasNumericalNote(BackendDescriptor const& engine, cudnnBackendNumericalNote_t note)
{
    return engineHasNote(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE, note);
}

bool sameAddresses(ConvolutionGraphData const& a, ConvolutionGraphData const& b)
{
    return a.input == b.input && a.kernel == b.kernel && a.bias == b.bias && a.residual == b.residual
        && a.output == b.output && a.workspace == b.workspace;
}

} // namespace

BackendDescriptor convolutionOperation(BackendDescriptor const& input, BackendDescriptor const& kernel,
    BackendDescriptor const& output, cudnnDataType_t accumulator, ConvolutionGeometry const& geometry,
    std::deque<BackendDescriptor>& parts)
{
    cudnnConvolutionMode_t const mode = CUDNN_CROSS_CORRELATION;
    BackendDescriptor& window = parts.emplace_back(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    window.set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &accumulator, "describing the accumulation")
        .set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode, "describing the convolution")
        .set(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, static_cast<int64_t>(geometry.padding.size()), "counting axes")
        .set(CUDNN_ATTR_CONVOLUTION_DILATIONS, geometry.dilation, "describing the dilation")
        .set(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, geometry.stride, "describing the stride")
        .set(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, geometry.padding, "describing the padding")
        .set(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, geometry.padding, "describing the padding")
        .finalize("describing the convolution");
    float const one = 1.0F;
    float const zero = 0.0F;
    BackendDescriptor convolution(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    convolution.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, input, "giving the input")
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, kernel, "giving the kernel")
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, output, "giving the output")
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, window, "giving the convolution")
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &one, "scaling")
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &zero, "scaling")
        .finalize("describing the convolution");
    return convolution;
}

ConvolutionGraphPlan::ConvolutionGraphPlan(
    BackendDescriptor plan, int64_t workspaceBytes, bool bias, bool residualInGraph, ResidualPass const& after)
    : mPlan(std::move(plan))
    , mWorkspaceBytes(workspaceBytes)
    , mBias(bias)
    , mResidualInGraph(residualInGraph)
    , mAfter(after)
{
    if (mAfter.present)
    {
        mResidualSum = makeElementWiseLayer(nvinfer1::ElementWiseOperation::kSUM, mAfter.relu);
        Shape const flat{mAfter.count};
        mSumInputs = {ConstTensorView(mAfter.type, flat, nullptr), ConstTensorView(mAfter.type, flat, nullptr)};
        mSumOutputs = {TensorView{mAfter.type, flat, nullptr}};
    }
}

BackendDescriptor const& ConvolutionGraphPlan::packFor(ConvolutionGraphData const& data)
{
    for (KeptPack const& kept : mPacks)
    {
        if (sameAddresses(kept.data, data))
        {
            return kept.pack;
        }
    }
    void const* const tensors[]{data.input, data.kernel, data.output, data.bias, data.residual};
    for (void const* pointer : tensors)
    {
        if (!graphAligned(pointer))
        {
            throw std::invalid_argument("convolution: the CUDA backend needs tensors aligned to "
                + std::to_string(kGraphTensorAlignment)
                + " bytes; one of this layer's is not (check the addresses bound)");
        }
    }
    std::vector<int64_t> ids{kINPUT, kKERNEL, kOUTPUT};
    std::vector<void*> pointers{const_cast<void*>(data.input), const_cast<void*>(data.kernel), data.output};
    if (mBias)
    {
        ids.push_back(kBIAS);
        pointers.push_back(const_cast<void*>(data.bias));
    }
    if (mResidualInGraph)
    {
        ids.push_back(kRESIDUAL);
        pointers.push_back(const_cast<void*>(data.residual));
    }
    BackendDescriptor pack = variantPack(ids, pointers, data.workspace);
    if (mPacks.size() < kPacksKept)
    {
        mPacks.push_back(KeptPack{data, std::move(pack)});
        return mPacks.back().pack;
    }
    KeptPack& replaced = mPacks[mOldestPack];
    mOldestPack = (mOldestPack + 1) % kPacksKept;
    replaced = KeptPack{data, std::move(pack)};
    return replaced.pack;
}

void ConvolutionGraphPlan::execute(cudnnHandle_t handle, ConvolutionGraphData const& data)
{
    checkBackend(cudnnBackendExecute(handle, mPlan.get(), packFor(data).get()), "running");
    if (mAfter.present)
    {
        cudaStream_t stream = nullptr;
        checkBackend(cudnnGetStream(handle, &stream), "finding the stream");
        // The residual and the ReLU after it, in one pass over the output: a same-shape element-wise sum.
        mSumInputs[0].data = data.output;
        mSumInputs[1].data = data.residual;
        mSumOutputs[0].data = data.output;
        mResidualSum->run(mSumInputs, mSumOutputs, stream);
    }
}

ConvolutionGraph::ConvolutionGraph(cudnnHandle_t handle, network::ConvolutionParams const& params,
    plan::Epilogue const& epilogue, bool bias, Shape const& inputShape, nvinfer1::DataType type, TensorFormat format)
    : mHandle(handle)
    , mType(type)
    , mBias(bias)
{
    bool const residual = epilogue.addsResidual;
    describe(params, epilogue, inputShape, format, residual);
    if (residual && mConfigs.empty())
    {
        mParts.clear();
        mGraph.reset();
        describe(params, epilogue, inputShape, format, false);
    }
}

void ConvolutionGraph::describe(network::ConvolutionParams const& params, plan::Epilogue const& epilogue,
    Shape const& inputShape, TensorFormat format, bool residualInGraph)
{
    ConvolutionGeometry const geometry = convolutionGeometry(params, inputShape, false);
    mOutputShape = geometry.layerOutput;
    mResidualInGraph = residualInGraph;
    bool const residualAfter = epilogue.addsResidual && !residualInGraph;
    mAfter = ResidualPass{residualAfter, epilogue.relu(), volume(mOutputShape), mType};

    GraphTensors const tensors{geometry.output, stridesIn(geometry.output, format), cudnnConvolutionType(mType)};
    std::vector<Stage> const stages = epilogueStages(geometry, tensors, epilogue.relu() && !mAfter.present);
    std::vector<BackendDescriptor> operations;
    BackendDescriptor const* result = &describeConvolution(geometry, format, tensors, !stages.empty(), operations);
    // Each epilogue stage reads the previous stage's result; the last one writes the output.
    for (size_t i = 0; i < stages.size(); ++i)
    {
        bool const last = i + 1 == stages.size();
        int64_t const id = last ? kOUTPUT : kINTERMEDIATES + 1 + static_cast<int64_t>(i);
        BackendDescriptor const& next = mParts.emplace_back(
            graphTensor(id, tensors.outputDims, tensors.outputStrides, last ? tensors.type : kAccumulator, !last));
        operations.push_back(pointwiseOperation(stages[i].mode, *result, stages[i].operand, next, mParts));
        result = &next;
    }
    assemble(std::move(operations));
    rankEngines();
}

std::vector<ConvolutionGraph::Stage> ConvolutionGraph::epilogueStages(
    ConvolutionGeometry const& geometry, GraphTensors const& tensors, bool reluInGraph)
{
    std::vector<Stage> stages;
    if (mBias)
    {
        Shape biasDims(geometry.output.size(), 1);
        biasDims[1] = geometry.output[1];
        BackendDescriptor const& bias = mParts.emplace_back(
            graphTensor(kBIAS, biasDims, stridesIn(biasDims, TensorFormat::kLINEAR), tensors.type, false));
        stages.push_back({CUDNN_POINTWISE_ADD, &bias});
    }
    if (mResidualInGraph)
    {
        BackendDescriptor const& residual = mParts.emplace_back(
            graphTensor(kRESIDUAL, tensors.outputDims, tensors.outputStrides, tensors.type, false));
        stages.push_back({CUDNN_POINTWISE_ADD, &residual});
    }
    if (reluInGraph)
    {
        stages.push_back({CUDNN_POINTWISE_RELU_FWD, nullptr});
    }
    return stages;
}

BackendDescriptor const& ConvolutionGraph::describeConvolution(ConvolutionGeometry const& geometry, TensorFormat format,
    GraphTensors const& tensors, bool hasStages, std::vector<BackendDescriptor>& operations)
{
    BackendDescriptor const& input = mParts.emplace_back(
        graphTensor(kINPUT, geometry.input, stridesIn(geometry.input, format), tensors.type, false));
    BackendDescriptor const& kernel = mParts.emplace_back(
        graphTensor(kKERNEL, geometry.filter, stridesIn(geometry.filter, format), tensors.type, false));
    // The convolution writes the output directly, or an FP32 intermediate that the epilogue carries on.
    BackendDescriptor const& result = mParts.emplace_back(graphTensor(hasStages ? kINTERMEDIATES : kOUTPUT,
        tensors.outputDims, tensors.outputStrides, hasStages ? kAccumulator : tensors.type, hasStages));

    operations.push_back(convolutionOperation(input, kernel, result, kAccumulator, geometry, mParts));
    return result;
}

void ConvolutionGraph::assemble(std::vector<BackendDescriptor> operations)
{
    mGraph.emplace(operationGraph(mHandle, operations));
    for (BackendDescriptor& operation : operations)
    {
        mParts.push_back(std::move(operation));
    }
}

void ConvolutionGraph::rankEngines()
{
    for (cudnnBackendHeurMode_t const heuristic : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK})
    {
        for (BackendDescriptor& config : rankedEngineConfigs(*mGraph, heuristic))
        {
            if (keepsNumerics(config))
            {
                mConfigs.push_back(std::move(config));
            }
        }
        // The fallback list is for graphs the tuned engines do not take at all.
        if (!mConfigs.empty())
        {
            break;
        }
    }
}

bool ConvolutionGraph::keepsNumerics(BackendDescriptor const& config) const
{
    BackendDescriptor const engine = engineOf(config);
    if (approximates(engine))
    {
        return false;
    }
    // On FP32 data, tensor cores mean TF32.
    if (mType == nvinfer1::DataType::kFLOAT && hasNumericalNote(engine, CUDNN_NUMERICAL_NOTE_TENSOR_CORE))
    {
        return false;
    }
    return !engineHasNote(
        engine, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE, CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION);
}

std::optional<ConvolutionGraphPlan> ConvolutionGraph::plan(int64_t rank, int64_t workspaceLimit) const
{
    if (rank < 0 || rank >= candidateCount())
    {
        return std::nullopt;
    }
    std::optional<BackendDescriptor> plan = executionPlan(mHandle, mConfigs[static_cast<size_t>(rank)]);
    if (!plan)
    {
        return std::nullopt;
    }
    int64_t const workspace = workspaceBytesOf(*plan);
    if (workspace > workspaceLimit)
    {
        return std::nullopt;
    }
    return ConvolutionGraphPlan(std::move(*plan), workspace, mBias, mResidualInGraph, mAfter);
}

std::optional<ConvolutionGraphPlan> ConvolutionGraph::planOrFirstWorking(int64_t rank) const
{
    std::optional<ConvolutionGraphPlan> chosen = plan(rank);
    for (int64_t other = 0; !chosen && other < candidateCount(); ++other)
    {
        chosen = plan(other);
    }
    return chosen;
}

} // namespace kiln::cuda
