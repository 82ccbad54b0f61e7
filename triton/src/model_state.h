// One model the server loaded: its configuration, plugins and engines. Instances share it; an engine is made for
// each place the model's instances run (KIND_CPU: Kiln's CPU backend; KIND_GPU: its CUDA backend, one engine per GPU)
// the first time an instance there needs it.
#pragma once

#include "config_completion.h"
#include "model_config.h"
#include "model_files.h"
#include "model_parameters.h"
#include "onnx_build.h"

#include <kiln/Backend.h>

#include <NvInferRuntime.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace kiln::triton
{

class ModelState
{
public:
    //! Reads the configuration and parameters, loads the plugins, makes the engine of the backend the first
    //! instance group asks for, and completes and checks the configuration against it.
    ModelState(TRITONBACKEND_Model* model, BackendSettings const& backend);
    ~ModelState();
    ModelState(ModelState const&) = delete;
    ModelState& operator=(ModelState const&) = delete;

    std::string const& name() const
    {
        return mName;
    }
    ServedModel const& served() const
    {
        return mServed;
    }
    ModelParameters const& parameters() const
    {
        return mParameters;
    }
    //! The engine for backend on device (CUDA; ignored for the CPU), made on first use with device current
    //! (thread-safe: instances may start together).
    std::shared_ptr<nvinfer1::ICudaEngine> engineFor(Backend backend, int32_t device);

private:
    std::shared_ptr<nvinfer1::ICudaEngine> makeEngine(Backend backend);
    OnnxBuildRequest onnxRequest() const;
    std::shared_ptr<nvinfer1::ICudaEngine> deserialize(std::string const& plan, std::string const& origin);
    Backend initialBackend(ModelConfig const& config) const;

    std::string mName;
    std::string mVersionDirectory;
    ModelFile mFile;
    ModelParameters mParameters;
    int64_t mDefaultMaxBatchSize{4};
    ModelConfig mConfig; //!< as completed
    //! What ONNX models are built from, made from the configuration as the server gave it (before completion), so
    //! that every engine of the model, of either backend, is built from the same request and shares the plan cache.
    OnnxBuildRequest mOnnxRequest;
    bool mAutoComplete{false};
    ServedModel mServed;
    std::unique_ptr<nvinfer1::IRuntime> mRuntime; // declared before the engines, which it must outlive
    std::mutex mMutex;
    Backend mPlanBackend{Backend::kCPU}; //!< what a plan file was built for
    std::map<std::pair<Backend, int32_t>, std::shared_ptr<nvinfer1::ICudaEngine>> mEngines;
};

} // namespace kiln::triton
