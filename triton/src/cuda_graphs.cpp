#include "cuda_graphs.h"

#include "server_log.h"

#include <cuda_runtime_api.h>

namespace kiln::triton
{

struct CudaGraphs::Captured
{
    std::unique_ptr<nvinfer1::IExecutionContext> context;
    std::vector<void const*> addresses; //!< every input's and output's, as the graph holds them
    cudaGraphExec_t graph{nullptr};

    ~Captured()
    {
        if (graph != nullptr)
        {
            cudaGraphExecDestroy(graph);
        }
    }
};

CudaGraphs::CudaGraphs(std::shared_ptr<nvinfer1::ICudaEngine> engine, size_t maxGraphs, std::string instance)
    : mEngine(std::move(engine))
    , mMaxGraphs(maxGraphs)
    , mInstance(std::move(instance))
{
    for (int32_t i = 0; i < mEngine->getNbIOTensors(); ++i)
    {
        char const* name = mEngine->getIOTensorName(i);
        mTensors.emplace_back(name);
        if (mEngine->getTensorIOMode(name) == nvinfer1::TensorIOMode::kINPUT)
        {
            mInputs.emplace_back(name);
        }
    }
}

CudaGraphs::~CudaGraphs()
{
    mGraphs.clear(); // the contexts go before the memory they ran on
    cudaFree(mActivations);
}

std::string CudaGraphs::shapesOf(nvinfer1::IExecutionContext const& context) const
{
    std::string key;
    for (std::string const& input : mInputs)
    {
        nvinfer1::Dims const dims = context.getTensorShape(input.c_str());
        key += input + ":";
        for (int32_t d = 0; d < dims.nbDims; ++d)
        {
            key += (d == 0 ? "" : "x") + std::to_string(dims.d[d]);
        }
        key += " ";
    }
    return key;
}

std::vector<void const*> CudaGraphs::addressesOf(nvinfer1::IExecutionContext const& context) const
{
    std::vector<void const*> addresses;
    for (std::string const& tensor : mTensors)
    {
        addresses.push_back(context.getTensorAddress(tensor.c_str()));
    }
    return addresses;
}

bool CudaGraphs::enqueue(nvinfer1::IExecutionContext& context, cudaStream_t stream)
{
    std::string const shapes = shapesOf(context);
    auto const found = mGraphs.find(shapes);
    if (found != mGraphs.end() && found->second->addresses == addressesOf(context))
    {
        return cudaGraphLaunch(found->second->graph, stream) == cudaSuccess;
    }
    if (found != mGraphs.end())
    {
        mGraphs.erase(found); // a staging slot moved since the capture: capture again at the new addresses
    }
    if (mCaptureFailed || mGraphs.size() >= mMaxGraphs)
    {
        if (!mCaptureFailed && !mLimitLogged)
        {
            logInfo("Kiln: instance " + mInstance + " holds " + std::to_string(mMaxGraphs)
                + " CUDA graphs (max_cuda_graphs); runs of other input shapes are enqueued directly");
            mLimitLogged = true;
        }
        return context.enqueueV3(stream);
    }
    std::string why;
    std::unique_ptr<Captured> captured = capture(context, stream, why);
    if (captured == nullptr)
    {
        mCaptureFailed = true;
        logWarning("Kiln: instance " + mInstance + " cannot capture its inference into a CUDA graph (" + why
            + "); it runs without CUDA graphs");
        return context.enqueueV3(stream); // the capture's run may have stopped midway: run it again
    }
    logVerbose("Kiln: instance " + mInstance + " captured a CUDA graph for " + shapes);
    mGraphs[shapes] = std::move(captured);
    return true;
}

std::unique_ptr<CudaGraphs::Captured> CudaGraphs::capture(
    nvinfer1::IExecutionContext& context, cudaStream_t stream, std::string& why)
{
    auto captured = std::make_unique<Captured>();
    captured->addresses = addressesOf(context);
    if (mActivations == nullptr && mEngine->getDeviceMemorySizeV2() > 0
        && cudaMalloc(&mActivations, static_cast<size_t>(mEngine->getDeviceMemorySizeV2())) != cudaSuccess)
    {
        why = "no device memory for the capture's context";
        cudaGetLastError(); // so that no later check of Kiln's takes this error for its own
        return nullptr;
    }
    captured->context.reset(
        mEngine->createExecutionContext(nvinfer1::ExecutionContextAllocationStrategy::kUSER_MANAGED));
    nvinfer1::IExecutionContext* own = captured->context.get();
    if (own == nullptr)
    {
        why = "cannot create an execution context for it";
        return nullptr;
    }
    own->setDeviceMemoryV2(mActivations, mEngine->getDeviceMemorySizeV2());
    bool bound = true;
    for (std::string const& input : mInputs)
    {
        bound = bound && own->setInputShape(input.c_str(), context.getTensorShape(input.c_str()));
    }
    for (size_t t = 0; t < mTensors.size(); ++t)
    {
        bound = bound && own->setTensorAddress(mTensors[t].c_str(), const_cast<void*>(captured->addresses[t]));
    }
    // This run answers the requests; it also makes, outside the capture, what a first run allocates.
    if (!bound || !own->enqueueV3(stream) || cudaStreamSynchronize(stream) != cudaSuccess)
    {
        why = "the first run on the capture's own context failed";
        return nullptr;
    }
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
    {
        why = std::string("cudaStreamBeginCapture: ") + cudaGetErrorString(cudaGetLastError());
        return nullptr;
    }
    bool const enqueued = own->enqueueV3(stream);
    cudaGraph_t graph = nullptr;
    cudaError_t const ended = cudaStreamEndCapture(stream, &graph);
    cudaError_t const instantiated = enqueued && ended == cudaSuccess ? cudaGraphInstantiate(&captured->graph, graph, 0)
                                                                      : cudaErrorStreamCaptureInvalidated;
    if (graph != nullptr)
    {
        cudaGraphDestroy(graph); // the instantiated graph keeps what it needs
    }
    if (instantiated != cudaSuccess)
    {
        why = !enqueued
            ? std::string("enqueueV3 failed while capturing, see Kiln's error above")
            : std::string("capturing failed: ") + cudaGetErrorString(ended != cudaSuccess ? ended : instantiated);
        cudaGetLastError(); // the failed capture's error is reported here, not by a later call
        captured->graph = nullptr;
        return nullptr;
    }
    return captured;
}

} // namespace kiln::triton
