// IRefitter: replaces the weights of an engine built with BuilderFlag::kREFIT (or kREFIT_INDIVIDUAL for the weights
// marked with markWeightsRefittable). The plan lists the refittable weights (plan::RefitRecord), which no build pass
// combined with other weights, so no weights are ever missing: any subset can be refitted. New values are copied and
// converted to the type the plan stores when they are set; refitCudaEngine writes them into the engine, and each
// execution context reloads its weights before its next run. As in TensorRT, refit while no context of the engine
// runs.
#pragma once

#include "network/weights_buffer.h"
#include "runtime/engine.h"

#include <NvInferRuntime.h>

#include <map>
#include <string>

namespace kiln::runtime
{

class Refitter final : public nvinfer1::IRefitter
{
public:
    Refitter(Engine& engine, nvinfer1::ILogger& logger);

    bool setWeights(char const* layerName, nvinfer1::WeightsRole role, nvinfer1::Weights weights) noexcept override;
    bool refitCudaEngine() noexcept override;
    int32_t getMissing(int32_t size, char const** layerNames, nvinfer1::WeightsRole* roles) noexcept override;
    int32_t getAll(int32_t size, char const** layerNames, nvinfer1::WeightsRole* roles) noexcept override;
    bool setDynamicRange(char const* tensorName, float min, float max) noexcept override;
    float getDynamicRangeMin(char const* tensorName) const noexcept override;
    float getDynamicRangeMax(char const* tensorName) const noexcept override;
    int32_t getTensorsWithDynamicRange(int32_t size, char const** tensorNames) const noexcept override;
    void setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept override
    {
        mRecorder = recorder;
    }
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override
    {
        return mRecorder;
    }
    bool setNamedWeights(char const* name, nvinfer1::Weights weights) noexcept override
    {
        return setNamedWeights(name, weights, nvinfer1::TensorLocation::kHOST);
    }
    int32_t getMissingWeights(int32_t size, char const** weightsNames) noexcept override;
    int32_t getAllWeights(int32_t size, char const** weightsNames) noexcept override;
    nvinfer1::ILogger* getLogger() const noexcept override
    {
        return &mLogger;
    }
    //! Kept: refitting copies host memory, which Kiln does on the calling thread.
    bool setMaxThreads(int32_t maxThreads) noexcept override;
    int32_t getMaxThreads() const noexcept override
    {
        return mMaxThreads;
    }
    bool setNamedWeights(
        char const* name, nvinfer1::Weights weights, nvinfer1::TensorLocation location) noexcept override;
    nvinfer1::Weights getNamedWeights(char const* weightsName) const noexcept override;
    nvinfer1::TensorLocation getWeightsLocation(char const* weightsName) const noexcept override;
    bool unsetNamedWeights(char const* weightsName) noexcept override;
    void setWeightsValidation(bool weightsValidation) noexcept override
    {
        mValidateWeights = weightsValidation;
    }
    bool getWeightsValidation() const noexcept override
    {
        return mValidateWeights;
    }
    bool refitCudaEngineAsync(cudaStream_t stream) noexcept override;
    nvinfer1::Weights getWeightsPrototype(char const* weightsName) const noexcept override;

private:
    //! New values for one of the plan's refittable weights: as the application gave them, and converted.
    struct Staged
    {
        nvinfer1::Weights given{};
        nvinfer1::TensorLocation location{nvinfer1::TensorLocation::kHOST};
        network::WeightsBuffer values;
    };

    //! The index of the first of the plan's refittable weights named `name`, or -1.
    int32_t named(char const* name) const;
    //! Checks `weights` against record `r` and keeps a converted copy; false with an error naming `call` and `what`.
    bool stage(int32_t r, nvinfer1::Weights const& weights, nvinfer1::TensorLocation location, char const* call,
        std::string const& what);
    void reportError(
        std::string const& message, nvinfer1::ErrorCode code = nvinfer1::ErrorCode::kINVALID_ARGUMENT) const;

    Engine& mEngine;
    nvinfer1::ILogger& mLogger;
    nvinfer1::IErrorRecorder* mRecorder{nullptr};
    std::map<int32_t, Staged> mStaged; //!< by refit record
    int32_t mMaxThreads{1};
    bool mValidateWeights{true};
};

} // namespace kiln::runtime
