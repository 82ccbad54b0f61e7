#include "backend/cuda/cuda_executor.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/device_reformatter.h"
#include "backend/cuda/kernels/tensor/reformat.h"
#include "backend/cuda/layer_lowering.h"
#include "backend/cuda/memory/default_gpu_allocator.h"
#include "network/layers/layer_kinds.h"
#include "plan/plan_graph.h"
#include "plan/plan_loops.h"

#include <cstring>
#include <stdexcept>

namespace kiln::cuda
{
namespace
{

//! Throws std::runtime_error where `record` carries an epilogue part that its kind's CUDA layer does not fuse: the
//! CPU reference applies any epilogue after any layer, so running without it would compute something else. The
//! CUDA backend's fusions make a convolution's residual and ReLU (its bias is its own) and a matrix multiply's
//! bias and ReLU.
void checkFusedEpilogue(plan::LayerRecord const& record)
{
    plan::Epilogue const& epilogue = record.epilogue;
    if (!epilogue.any())
    {
        return;
    }
    if (record.type == nvinfer1::LayerType::kCONVOLUTION)
    {
        if (!epilogue.bias.empty())
        {
            throw std::runtime_error("the plan fuses a bias into a convolution, which adds its own");
        }
        return;
    }
    auto const* product = plan::paramsOf<network::MatrixMultiplyParams>(record);
    if (product == nullptr)
    {
        throw std::runtime_error("the plan fuses an epilogue into a layer kind the CUDA backend fuses none into");
    }
    if (epilogue.addsResidual)
    {
        throw std::runtime_error("the plan fuses a residual into a matrix multiply, which the CUDA backend does not");
    }
    bool const vectors = product->op0 == nvinfer1::MatrixOperation::kVECTOR
        || product->op1 == nvinfer1::MatrixOperation::kVECTOR;
    if (!epilogue.bias.empty() && vectors)
    {
        throw std::runtime_error("the plan fuses a bias into a matrix multiply of vectors; it needs two matrices");
    }
}

//! Whether the builder chose, for some slot of `record`, a type or format other than its tensor's: then the layer
//! runs through its reformatter's conversions.
bool convertsAnySlot(plan::PlanModel const& model, plan::LayerRecord const& record)
{
    size_t slot = 0;
    for (auto const* tensors : {&record.inputs, &record.outputs})
    {
        for (int32_t t : *tensors)
        {
            if (t >= 0)
            {
                plan::TensorRecord const& tensor = model.tensors[t];
                if (plan::slotType(model, record, slot) != tensor.type
                    || plan::slotFormat(model, record, slot) != tensor.format)
                {
                    return true;
                }
            }
            ++slot;
        }
    }
    return false;
}

} // namespace

CudaExecutor::CudaExecutor(backend::LoadedPlan const& plan, plugin::ContextResources& resources)
    : mPlan(plan)
    , mAllocator(plan.allocator != nullptr ? *plan.allocator : defaultGpuAllocator())
    , mOwnedMemory(mAllocator)
{
    auto const& model = *plan.model;
    resources.allocator = &mAllocator;
    mPlugins.resize(model.layers.size());
    mReformatters.resize(model.layers.size());
    mDeviceLayers.resize(model.layers.size());
    mBoundWeights.resize(model.layers.size());
    mConverts.assign(model.layers.size(), false);
    // The layers' own buffers (a convolution's weights and workspace) come from the context's allocator too.
    AllocatorScope const scope(mAllocator);
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        try
        {
            prepareLayer(l, resources);
        }
        catch (std::exception const& e)
        {
            throw std::runtime_error("layer \"" + model.layers[l].name + "\": " + e.what());
        }
    }
    mHandles.forgetStreams(); // plugins that were given the handles may have bound them to streams of their own
}

void CudaExecutor::prepareLayer(size_t l, plugin::ContextResources& resources)
{
    auto const& model = *mPlan.model;
    network::LayerParams const& params = mPlan.params(l);
    if (auto const* pluginParams = dynamic_cast<network::PluginParams const*>(&params))
    {
        if (plugin::receivesLibraryHandles(pluginParams->adapter->family()) && resources.cudnn == nullptr)
        {
            // Made for the first plugin that takes them; bound to the enqueue stream before each plugin runs.
            resources.cudnn = mHandles.cudnn(nullptr);
            resources.cublas = mHandles.cublas(nullptr);
        }
        std::string error;
        mPlugins[l] = backend::PluginRunner::attach(
            *pluginParams, backend::PluginRunner::Memory::kDEVICE, makeDeviceReformatter(mAllocator), resources, error);
        if (mPlugins[l] == nullptr)
        {
            throw std::runtime_error(error);
        }
        return;
    }
    auto const& record = model.layers[l];
    if (plan::outputsItsWeights(model, record) && model.tensors[record.outputs[0]].arenaOffset < 0)
    {
        // The plan bound the output to the weights (CudaBackend::bindsConstants): the layer never runs.
        mBoundWeights[l] = uploadWeights(*plan::paramsOf<network::ConstantParams>(record));
        return;
    }
    if (plan::computesShapesOnly(model, l) || plan::isConditionalOutput(record) || plan::isLoopBoundary(record))
    {
        return; // evaluated on the host (writeShapeValues), or run by the execution context
    }
    checkFusedEpilogue(record);
    mReformatters[l] = makeDeviceReformatter(mAllocator);
    mConverts[l] = convertsAnySlot(model, record);
    // The type and format the layer reads its first input in: the builder's choice, else the tensor's own.
    bool const readsInput = !record.inputs.empty() && record.inputs[0] >= 0;
    nvinfer1::DataType const dataType = !record.ioTypes.empty() || readsInput ? plan::slotType(model, record, 0)
                                                                              : nvinfer1::DataType::kFLOAT;
    TensorFormat const format = !record.ioFormats.empty() || readsInput ? plan::slotFormat(model, record, 0)
                                                                        : TensorFormat::kLINEAR;
    mDeviceLayers[l] = lowerLayer(LayerContext{record, dataType, format, mHandles, mSharedScratch});
}

void CudaExecutor::allocateContextMemory()
{
    mOwnedMemory = DeviceBuffer(
        mAllocator, static_cast<size_t>(mPlan.contextMemoryBytes), "the context's activations and plugin workspace");
    mContextMemory = mOwnedMemory.data();
}

bool CudaExecutor::runLayer(size_t l, std::vector<ConstTensorView> const& inputs,
    std::vector<TensorView> const& outputs, cudaStream_t stream, std::string& error)
{
    if (mPlugins[l] == nullptr)
    {
        return runBuiltInLayer(l, inputs, outputs, stream, error);
    }
    bool ran = false;
    try
    {
        mHandles.bind(stream);
        ran = mPlugins[l]->run(inputs, outputs, mContextMemory + mPlan.workspaceOffset, stream, error);
        mHandles.forgetStreams(); // the plugin may have bound the handles it was given to a stream of its own
    }
    catch (std::exception const& e)
    {
        mHandles.forgetStreams();
        error = e.what(); // the conversions' scratch could not be allocated
        return false;
    }
    // What the plugin got wrong shows up here, without waiting for the GPU; name the plugin while we know it. A
    // broken capture comes first: the plugin's later calls on the stream then fail too, and its own error (such as
    // enqueue returning non-zero) would hide the cause.
    cudaError_t const status = cudaGetLastError();
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &capture) == cudaSuccess && capture == cudaStreamCaptureStatusInvalidated)
    {
        error = "plugin " + mPlugins[l]->description() + " broke the CUDA graph capture of the stream (its enqueue "
            + "synchronised, or used memory or streams a graph cannot hold)"
            + (status != cudaSuccess ? std::string(": ") + cudaGetErrorString(status) : std::string())
            + (ran ? std::string() : "; then: " + error);
        return false;
    }
    if (!ran)
    {
        if (status != cudaSuccess)
        {
            error += std::string(" (and CUDA reports ") + cudaGetErrorName(status) + ": " + cudaGetErrorString(status)
                + ")";
        }
        return false;
    }
    if (status != cudaSuccess)
    {
        error = "CUDA error after the enqueue of plugin " + mPlugins[l]->description() + ": " + cudaGetErrorName(status)
            + " (" + cudaGetErrorString(status) + ")";
        return false;
    }
    return true;
}

void CudaExecutor::writeShapeValues(
    int32_t tensor, TensorView const& output, std::vector<int64_t> const& values, cudaStream_t stream)
{
    std::vector<uint8_t> bytes(values.size() * elementSize(output.type));
    for (size_t i = 0; i < values.size(); ++i)
    {
        if (output.type == nvinfer1::DataType::kINT32)
        {
            auto const value = static_cast<int32_t>(values[i]);
            std::memcpy(bytes.data() + i * 4, &value, 4);
        }
        else
        {
            std::memcpy(bytes.data() + i * 8, &values[i], 8);
        }
    }
    ShapeStaging& staging = mShapeStaging[tensor];
    if (staging.host == nullptr || staging.bytes != bytes)
    {
        if (staging.copied != nullptr)
        {
            // The shapes changed: the previous copy out of this memory must have happened before it is rewritten.
            check(cudaEventSynchronize(staging.copied), "waiting for a shape-values copy");
        }
        else
        {
            check(cudaEventCreateWithFlags(&staging.copied, cudaEventDisableTiming), "creating an event");
        }
        if (staging.host == nullptr || staging.bytes.size() < bytes.size())
        {
            void* pinned = nullptr;
            check(cudaMallocHost(&pinned, bytes.size() + 1), "allocating pinned memory for shape values");
            staging.host
                = std::shared_ptr<std::byte>(static_cast<std::byte*>(pinned), [](std::byte* p) { cudaFreeHost(p); });
        }
        std::memcpy(staging.host.get(), bytes.data(), bytes.size());
        staging.bytes = std::move(bytes);
    }
    check(cudaMemcpyAsync(output.data, staging.host.get(), staging.bytes.size(), cudaMemcpyHostToDevice, stream),
        "writing a shape tensor's values");
    check(cudaEventRecord(staging.copied, stream), "recording a shape-values copy");
}

int64_t CudaExecutor::readScalar(ConstTensorView const& view, cudaStream_t stream)
{
    if (mSizeValue == nullptr)
    {
        void* pinned = nullptr;
        check(cudaMallocHost(&pinned, sizeof(int64_t)), "allocating pinned memory for a size tensor's value");
        mSizeValue = std::shared_ptr<std::byte>(static_cast<std::byte*>(pinned), [](std::byte* p) { cudaFreeHost(p); });
    }
    // The layers after this one need the extent on the host to be queued: this is where the run waits for the GPU.
    check(cudaMemcpyAsync(mSizeValue.get(), view.data, elementSize(view.type), cudaMemcpyDefault, stream),
        "copying a size tensor's value to the host");
    check(cudaStreamSynchronize(stream), "waiting for the layer that computes a data-dependent size or a condition");
    int64_t value = 0;
    if (view.type == nvinfer1::DataType::kBOOL)
    {
        value = *reinterpret_cast<bool const*>(mSizeValue.get()) ? 1 : 0;
    }
    else if (view.type == nvinfer1::DataType::kINT32)
    {
        int32_t narrow = 0;
        std::memcpy(&narrow, mSizeValue.get(), sizeof(narrow));
        value = narrow;
    }
    else
    {
        std::memcpy(&value, mSizeValue.get(), sizeof(value));
    }
    return value;
}

void CudaExecutor::copyTensor(ConstTensorView const& from, TensorView const& to, cudaStream_t stream)
{
    if (from.type == to.type && from.format == to.format)
    {
        size_t const bytes = static_cast<size_t>(storedCount(from.shape, from.format)) * elementSize(from.type);
        check(cudaMemcpyAsync(to.data, from.data, bytes, cudaMemcpyDeviceToDevice, stream), "copying a tensor");
        return;
    }
    reformatOnDevice(from, to, stream);
}

void CudaExecutor::copyBytes(void* destination, void const* source, size_t bytes, cudaStream_t stream)
{
    // Default: the allocator's memory may be device or managed memory.
    check(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDefault, stream),
        "copying a data-dependent output into the memory of its output allocator");
}

void CudaExecutor::zeroBytes(void* destination, size_t bytes, cudaStream_t stream)
{
    check(cudaMemsetAsync(destination, 0, bytes, stream), "zeroing a loop's output");
}

bool CudaExecutor::synchronize(cudaStream_t stream, std::string& error)
{
    if (cudaError_t const status = cudaStreamSynchronize(stream); status != cudaSuccess)
    {
        error
            = "the GPU work failed: " + std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")";
        return false;
    }
    return true;
}

bool CudaExecutor::runBuiltInLayer(size_t l, std::vector<ConstTensorView> const& inputs,
    std::vector<TensorView> const& outputs, cudaStream_t stream, std::string& error)
{
    DeviceLayer* const deviceLayer = mDeviceLayers[l].get();
    try
    {
        if (!mConverts[l])
        {
            deviceLayer->run(inputs, outputs, stream); // every slot as its tensor is stored
            return true;
        }
        plan::LayerRecord const& record = mPlan.model->layers[l];
        return mReformatters[l]->around(record.ioTypes, record.ioFormats, inputs, outputs, stream,
            [&](std::vector<ConstTensorView> const& in, std::vector<TensorView> const& out) {
                deviceLayer->run(in, out, stream);
                return true;
            });
    }
    catch (std::exception const& e)
    {
        error = e.what();
        return false;
    }
}

CudaExecutor::~CudaExecutor()
{
    for (auto const& [start, end] : mEvents)
    {
        cudaEventDestroy(start);
        cudaEventDestroy(end);
    }
    for (auto const& [tensor, staging] : mShapeStaging)
    {
        cudaEventDestroy(staging.copied);
    }
}

void CudaExecutor::beginTiming(size_t l, cudaStream_t stream)
{
    if (mEvents.empty())
    {
        mEvents.resize(mPlan.model->layers.size());
        mTimed.assign(mPlan.model->layers.size(), false);
        for (auto& [start, end] : mEvents)
        {
            check(cudaEventCreate(&start), "creating a profiling event");
            check(cudaEventCreate(&end), "creating a profiling event");
        }
    }
    cudaEventRecord(mEvents[l].first, stream);
}

void CudaExecutor::endTiming(size_t l, cudaStream_t stream)
{
    cudaEventRecord(mEvents[l].second, stream);
    mTimed[l] = true;
}

float CudaExecutor::elapsedMs(size_t l)
{
    // A layer that did not run (a bound constant, a branch not taken) has events never recorded, whose elapsed time
    // CUDA refuses with an error that a later launch's check would take for its own.
    float ms = 0.0F;
    if (l < mTimed.size() && mTimed[l] && cudaEventSynchronize(mEvents[l].second) == cudaSuccess)
    {
        cudaEventElapsedTime(&ms, mEvents[l].first, mEvents[l].second);
    }
    return ms;
}

} // namespace kiln::cuda
