// CUDA graphs for KIND_GPU instances (the configuration's optimization { cuda { graphs: true } }): the first run of
// each set of input shapes is captured into a graph, and later runs of those shapes replay it, which queues the
// whole inference in one launch instead of one per kernel.
//
// Each captured set of shapes has an execution context of its own, made for that capture alone: a context keeps
// state across runs that its graph reads (the shape values Kiln stages in host memory for its kernels, for
// example), and a context that ran other shapes since the capture would have changed it under the graph. The
// contexts share one block of activation memory (kUSER_MANAGED), since the instance runs one inference at a time.
#pragma once

#include <NvInferRuntime.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln::triton
{

class CudaGraphs
{
public:
    CudaGraphs(std::shared_ptr<nvinfer1::ICudaEngine> engine, size_t maxGraphs, std::string instance);
    ~CudaGraphs();
    CudaGraphs(CudaGraphs const&) = delete;
    CudaGraphs& operator=(CudaGraphs const&) = delete;

    //! Queues the inference context is set up for (its input shapes and tensor addresses) on stream: the graph of
    //! those shapes where one was captured with those addresses; else a capture, where the limit allows, with the
    //! inference run once on the capture's own context; else context's enqueueV3. False when the run failed.
    bool enqueue(nvinfer1::IExecutionContext& context, cudaStream_t stream);

private:
    struct Captured;

    //! A context for shapes of context's with its addresses, run once, then captured; null (with why) on failure.
    std::unique_ptr<Captured> capture(nvinfer1::IExecutionContext& context, cudaStream_t stream, std::string& why);
    std::string shapesOf(nvinfer1::IExecutionContext const& context) const;
    std::vector<void const*> addressesOf(nvinfer1::IExecutionContext const& context) const;

    std::shared_ptr<nvinfer1::ICudaEngine> mEngine;
    size_t mMaxGraphs;
    std::string mInstance;
    std::vector<std::string> mInputs;  //!< the engine's input names
    std::vector<std::string> mTensors; //!< every input and output name
    void* mActivations{nullptr};       //!< the captures' contexts' memory, getDeviceMemorySizeV2 bytes
    std::map<std::string, std::unique_ptr<Captured>> mGraphs; //!< by input shapes
    bool mCaptureFailed{false}; //!< a capture failed: the plan cannot be captured, every run is enqueued directly
    bool mLimitLogged{false};
};

} // namespace kiln::triton
