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

//! The alignment the graph promises cuDNN for every tensor in memory: what its vectorized kernels load by.
constexpr int64_t kAlignment = 16;

//! The type of the convolution's accumulation and of the epilogue's intermediates.
constexpr cudnnDataType_t kAccumulator = CUDNN_DATA_FLOAT;

BackendDescriptor tensor(int64_t id, Shape const& dims, Shape const& strides, cudnnDataType_t type, bool isVirtual)
{
    BackendDescriptor described(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    described.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type, "describing a tensor's type")
        .set(CUDNN_ATTR_TENSOR_DIMENSIONS, dims, "describing a tensor's dimensions")
        .set(CUDNN_ATTR_TENSOR_STRIDES, strides, "describing a tensor's strides")
        .set(CUDNN_ATTR_TENSOR_UNIQUE_ID, id, "naming a tensor")
        .set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, kAlignment, "describing a tensor's alignment")
        .set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &isVirtual, "describing a tensor")
        .finalize("describing a tensor");
    return described;
}

//! An element-wise operation `mode` of `x` (and `b`, for a binary one) into `y`, computed in FP32.
BackendDescriptor pointwise(cudnnPointwiseMode_t mode, BackendDescriptor const& x, BackendDescriptor const* b,
    BackendDescriptor const& y, std::deque<BackendDescriptor>& parts)
{
    cudnnDataType_t const precision = CUDNN_DATA_FLOAT;
    // NaN stays NaN through the ReLU, as on the CPU reference.
    cudnnNanPropagation_t const nan = CUDNN_PROPAGATE_NAN;
    BackendDescriptor function(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    function.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode, "describing an epilogue operation")
        .set(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &precision, "describing an epilogue's precision")
        .set(CUDNN_ATTR_POINTWISE_NAN_PROPAGATION, CUDNN_TYPE_NAN_PROPOGATION, 1, &nan, "describing NaN propagation")
        .finalize("describing an epilogue operation");
    BackendDescriptor operation(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    operation.set(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, function, "describing an epilogue")
        .set(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x, "describing an epilogue's input")
        .set(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y, "describing an epilogue's output");
    if (b != nullptr)
    {
        operation.set(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, *b, "describing an epilogue's second input");
    }
    operation.finalize("describing an epilogue");
    parts.push_back(std::move(function));
    return operation;
}

template <typename Note>
std::vector<Note> notesOf(BackendDescriptor const& engine, cudnnBackendAttributeName_t name,
    cudnnBackendAttributeType_t type, int64_t capacity)
{
    std::vector<Note> notes(static_cast<size_t>(capacity));
    int64_t count = 0;
    checkBackend(cudnnBackendGetAttribute(engine.get(), name, type, capacity, &count, notes.data()),
        "reading an engine's notes");
    notes.resize(static_cast<size_t>(count));
    return notes;
}

template <typename Note>
bool has(std::vector<Note> const& notes, Note note)
{
    for (Note const present : notes)
    {
        if (present == note)
        {
            return true;
        }
    }
    return false;
}

bool sameAddresses(ConvolutionGraphData const& a, ConvolutionGraphData const& b)
{
    return a.input == b.input && a.kernel == b.kernel && a.bias == b.bias && a.residual == b.residual
        && a.output == b.output && a.workspace == b.workspace;
}

} // namespace

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
        if (reinterpret_cast<uintptr_t>(pointer) % kAlignment != 0)
        {
            throw std::invalid_argument("convolution: the CUDA backend needs tensors aligned to "
                + std::to_string(kAlignment) + " bytes; one of this layer's is not (check the addresses bound)");
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
    void* workspace = data.workspace;
    BackendDescriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, ids, "naming the tensors of a run")
        .set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, static_cast<int64_t>(pointers.size()),
            pointers.data(), "giving the tensors of a run")
        .set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace, "giving the workspace")
        .finalize("preparing a run");
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
            tensor(id, tensors.outputDims, tensors.outputStrides, last ? tensors.type : kAccumulator, !last));
        operations.push_back(pointwise(stages[i].mode, *result, stages[i].operand, next, mParts));
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
            tensor(kBIAS, biasDims, stridesIn(biasDims, TensorFormat::kLINEAR), tensors.type, false));
        stages.push_back({CUDNN_POINTWISE_ADD, &bias});
    }
    if (mResidualInGraph)
    {
        BackendDescriptor const& residual
            = mParts.emplace_back(tensor(kRESIDUAL, tensors.outputDims, tensors.outputStrides, tensors.type, false));
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
    BackendDescriptor const& input
        = mParts.emplace_back(tensor(kINPUT, geometry.input, stridesIn(geometry.input, format), tensors.type, false));
    BackendDescriptor const& kernel = mParts.emplace_back(
        tensor(kKERNEL, geometry.filter, stridesIn(geometry.filter, format), tensors.type, false));
    // The convolution writes the output directly, or an FP32 intermediate that the epilogue carries on.
    BackendDescriptor const& result = mParts.emplace_back(tensor(hasStages ? kINTERMEDIATES : kOUTPUT,
        tensors.outputDims, tensors.outputStrides, hasStages ? kAccumulator : tensors.type, hasStages));

    cudnnDataType_t const accumulator = kAccumulator;
    cudnnConvolutionMode_t const mode = CUDNN_CROSS_CORRELATION;
    BackendDescriptor& window = mParts.emplace_back(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
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
    BackendDescriptor& convolution = operations.emplace_back(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    convolution.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, input, "giving the input")
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, kernel, "giving the kernel")
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, result, "giving the output")
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, window, "giving the convolution")
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &one, "scaling")
        .set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &zero, "scaling")
        .finalize("describing the convolution");
    return result;
}

void ConvolutionGraph::assemble(std::vector<BackendDescriptor> operations)
{
    std::vector<BackendDescriptor const*> operationList;
    for (BackendDescriptor const& operation : operations)
    {
        operationList.push_back(&operation);
    }
    mGraph.emplace(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    mGraph->set(CUDNN_ATTR_OPERATIONGRAPH_OPS, operationList, "putting the graph together")
        .set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &mHandle, "giving the graph a handle")
        .finalize("putting the graph together");
    for (BackendDescriptor& operation : operations)
    {
        mParts.push_back(std::move(operation));
    }
}

void ConvolutionGraph::rankEngines()
{
    for (cudnnBackendHeurMode_t const heuristic : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK})
    {
        BackendDescriptor ranking(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
        ranking.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, *mGraph, "ranking engines")
            .set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &heuristic, "ranking engines")
            .finalize("ranking engines");
        int64_t count = 0;
        checkBackend(cudnnBackendGetAttribute(ranking.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                         CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr),
            "counting engines");
        std::vector<BackendDescriptor> configs;
        std::vector<cudnnBackendDescriptor_t> handles;
        for (int64_t i = 0; i < count; ++i)
        {
            handles.push_back(configs.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR).get());
        }
        checkBackend(cudnnBackendGetAttribute(ranking.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                         CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &count, handles.data()),
            "reading the engines");
        configs.erase(configs.begin() + count, configs.end());
        for (BackendDescriptor& config : configs)
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
    BackendDescriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    cudnnBackendDescriptor_t engineHandle = engine.get();
    int64_t count = 0;
    checkBackend(cudnnBackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                     &count, &engineHandle),
        "reading an engine");
    auto const numerics = notesOf<cudnnBackendNumericalNote_t>(
        engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE, CUDNN_NUMERICAL_NOTE_TYPE_COUNT);
    auto const behaviour = notesOf<cudnnBackendBehaviorNote_t>(
        engine, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT);
    for (cudnnBackendNumericalNote_t const excluded : {CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC,
             CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS, CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION,
             CUDNN_NUMERICAL_NOTE_FFT, CUDNN_NUMERICAL_NOTE_WINOGRAD, CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4,
             CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_6x6, CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13})
    {
        if (has(numerics, excluded))
        {
            return false;
        }
    }
    // On FP32 data, tensor cores mean TF32.
    if (mType == nvinfer1::DataType::kFLOAT && has(numerics, CUDNN_NUMERICAL_NOTE_TENSOR_CORE))
    {
        return false;
    }
    return !has(behaviour, CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION);
}

std::optional<ConvolutionGraphPlan> ConvolutionGraph::plan(int64_t rank, int64_t workspaceLimit) const
{
    if (rank < 0 || rank >= candidateCount())
    {
        return std::nullopt;
    }
    BackendDescriptor plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    cudnnHandle_t handle = mHandle;
    plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle, "giving a plan its handle")
        .set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, mConfigs[static_cast<size_t>(rank)], "choosing an engine");
    if (!plan.tryFinalize())
    {
        return std::nullopt;
    }
    int64_t workspace = 0;
    int64_t count = 0;
    checkBackend(cudnnBackendGetAttribute(
                     plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &count, &workspace),
        "sizing a plan's workspace");
    if (workspace > workspaceLimit)
    {
        return std::nullopt;
    }
    return ConvolutionGraphPlan(std::move(plan), workspace, mBias, mResidualInGraph, mAfter);
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
