// IExecutionContext: input shapes, tensor addresses and activation memory of one
// inference stream, and the loop over the engine's layers; the backend's Executor does each layer's work.
//
// The context's memory (activations, then plugin workspace) is the context's own (kSTATIC,
// kON_PROFILE_CHANGE) or the application's (kUSER_MANAGED). It lives where the plan's backend
// keeps activations: device memory for CUDA plans, host memory for CPU plans, so that the
// same calls (getDeviceMemorySizeV2, setDeviceMemoryV2) work for both.
#pragma once

#include "runtime/engine.h"
#include "backend/executor.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::runtime
{

class ExecutionContext final : public nvinfer1::IExecutionContext
{
public:
    //! Throws std::runtime_error (naming the plugin, or what could not be allocated and its size) if a plugin
    //! cannot be attached or memory cannot be allocated.
    ExecutionContext(Engine const& engine, nvinfer1::ExecutionContextAllocationStrategy strategy);

    nvinfer1::ICudaEngine const& getEngine() const noexcept override
    {
        return mEngine;
    }
    void setName(char const* name) noexcept override
    {
        mName = name ? name : "";
    }
    char const* getName() const noexcept override
    {
        return mName.c_str();
    }
    bool setInputShape(char const* tensorName, nvinfer1::Dims const& dims) noexcept override;
    nvinfer1::Dims getTensorShape(char const* tensorName) const noexcept override;
    bool allInputDimensionsSpecified() const noexcept override;
    bool setTensorAddress(char const* tensorName, void* data) noexcept override;
    void const* getTensorAddress(char const* tensorName) const noexcept override;
    bool setInputTensorAddress(char const* tensorName, void const* data) noexcept override;
    void* getOutputTensorAddress(char const* tensorName) const noexcept override;
    bool setOptimizationProfileAsync(int32_t profileIndex, cudaStream_t stream) noexcept override;
    int32_t getOptimizationProfile() const noexcept override
    {
        return mProfile;
    }
    bool enqueueV3(cudaStream_t stream) noexcept override;
    bool executeV2(void* const* bindings) noexcept override;
    void setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept override
    {
        mResources.recorder = recorder;
    }
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override
    {
        return mResources.recorder;
    }
    void setProfiler(nvinfer1::IProfiler* profiler) noexcept override
    {
        mProfiler = profiler;
    }
    nvinfer1::IProfiler* getProfiler() const noexcept override
    {
        return mProfiler;
    }
    void setEnqueueEmitsProfile(bool enqueueEmitsProfile) noexcept override
    {
        mEnqueueEmitsProfile = enqueueEmitsProfile;
    }
    bool getEnqueueEmitsProfile() const noexcept override
    {
        return mEnqueueEmitsProfile;
    }
    bool reportToProfiler() const noexcept override;
    void setDeviceMemoryV2(void* memory, int64_t size) noexcept override;
    void setDeviceMemory(void* memory) noexcept override;
    size_t updateDeviceMemorySizeForShapes() noexcept override;

    //! Every tensor's shape (by plan tensor index) for the current input shapes; false with `error` if they are
    //! not all known or do not fit the plan.
    bool computeShapes(std::vector<nvinfer1::Dims>& shapes, std::string& error) const;

private:
    //! Every tensor's concrete shape for the current input shapes; false with error set.
    bool resolveShapes(std::string& error);
    bool run(cudaStream_t stream, std::string& error);
    //! Binds every run-time value: input dimensions, and shape-tensor inputs' values read from the host memory the
    //! application gave; false with `error` naming what is missing.
    bool bindRunTimeValues(shape::SymbolValues& values, std::string& error) const;
    //! computeShapes that also keeps the values it bound.
    bool computeShapes(std::vector<nvinfer1::Dims>& shapes, shape::SymbolValues& values, std::string& error) const;
    //! For a backend that evaluates shape computations on the host: layer `l`'s output values, from the input shapes.
    bool writeShapeValues(size_t l, std::vector<TensorView> const& outputs, cudaStream_t stream, std::string& error);
    //! Writes shape tensor `tensor`'s values, evaluated for this run, into `view` (device memory on CUDA).
    bool writeShapeValues(int32_t tensor, TensorView const& view, cudaStream_t stream, std::string& error);
    void reportError(std::string const& message, nvinfer1::ErrorCode code = nvinfer1::ErrorCode::kFAILED_EXECUTION);

    Engine const& mEngine;
    nvinfer1::ExecutionContextAllocationStrategy mStrategy;
    std::string mName;
    int32_t mProfile{0};
    std::vector<nvinfer1::Dims> mInputShapes;        //!< by tensor index (inputs only)
    std::vector<std::optional<void*>> mAddresses;    //!< by tensor index (I/O only)
    std::vector<nvinfer1::Dims> mShapes;             //!< by tensor index, valid when mShapesValid
    bool mShapesValid{false};
    bool mHasShapeInputs{false}; //!< some shape depends on input values, so shapes are resolved on every use
    shape::SymbolValues mBoundValues; //!< the run-time values mShapes were computed from
    plugin::ContextResources mResources;      //!< lent to the plugins; before mExecutor, so it outlives them
    std::unique_ptr<backend::Executor> mExecutor; //!< the backend's memory and layer work
    nvinfer1::IProfiler* mProfiler{nullptr};
    bool mEnqueueEmitsProfile{true};
    size_t mProfiledLayers{0}; //!< how many layers the last run timed (all, unless it failed or had no profiler)
};

} // namespace kiln::runtime
