#include "model_state.h"

#include "backend_error.h"
#include "onnx_build.h"
#include "plugin_libraries.h"
#include "server_log.h"

namespace kiln::triton
{
namespace
{

//! Which backend an engine runs on: CPU plans take host memory, CUDA plans device memory.
Backend backendOf(nvinfer1::ICudaEngine const& engine)
{
    for (int32_t i = 0; i < engine.getNbIOTensors(); ++i)
    {
        char const* name = engine.getIOTensorName(i);
        if (engine.getTensorIOMode(name) == nvinfer1::TensorIOMode::kOUTPUT)
        {
            return engine.getTensorLocation(name) == nvinfer1::TensorLocation::kHOST ? Backend::kCPU : Backend::kCUDA;
        }
    }
    return Backend::kCPU;
}

} // namespace

ModelState::ModelState(TRITONBACKEND_Model* model, BackendSettings const& backend)
{
    char const* text = nullptr;
    check(TRITONBACKEND_ModelName(model, &text), "cannot get the model's name");
    mName = text != nullptr ? text : "";
    uint64_t version = 0;
    check(TRITONBACKEND_ModelVersion(model, &version), "cannot get the model's version");
    TRITONBACKEND_ArtifactType artifacts = TRITONBACKEND_ARTIFACT_FILESYSTEM;
    check(TRITONBACKEND_ModelRepository(model, &artifacts, &text), "cannot get the model's folder");
    std::string const modelDirectory = text != nullptr ? text : "";
    mVersionDirectory = modelDirectory + "/" + std::to_string(version);
    mConfig = ModelConfig::read(model);
    mParameters = readModelParameters(mConfig, modelDirectory, backend);
    mDefaultMaxBatchSize = backend.defaultMaxBatchSize;
    check(TRITONBACKEND_ModelAutoCompleteConfig(model, &mAutoComplete), "cannot ask about auto-completion");
    registerKilnPlugins();
    loadPluginLibraries(mParameters.pluginLibraries);
    mFile = findModelFile(mVersionDirectory, mConfig.defaultModelFilename());
    {
        KilnErrorCapture errors;
        mRuntime.reset(nvinfer1::createInferRuntime(serverLogger()));
        if (mRuntime == nullptr)
        {
            throw BackendError(TRITONSERVER_ERROR_INTERNAL, errors.explain("cannot create Kiln's runtime"));
        }
    }
    mOnnxRequest = onnxRequest();
    std::shared_ptr<nvinfer1::ICudaEngine> engine = mFile.isOnnx ? makeEngine(initialBackend(mConfig))
                                                                 : deserialize(readWholeFile(mFile.path), mFile.path);
    bool changed = false;
    mServed = completeAndCheck(mConfig, describeEngine(*engine), mAutoComplete, changed);
    if (changed)
    {
        mConfig.write(model);
    }
    mPlanBackend = backendOf(*engine);
    // A CPU engine serves every KIND_CPU instance; a CUDA engine belongs to the GPU that was current, which need not
    // be an instance's, so KIND_GPU instances make their own on their GPU (from the cached plan, for ONNX models).
    if (mPlanBackend == Backend::kCPU)
    {
        mEngines[{Backend::kCPU, 0}] = engine;
    }
    logInfo("Kiln: model " + mName + " ready from " + mFile.path + " (max_batch_size "
        + std::to_string(mServed.maxBatchSize) + ")");
}

ModelState::~ModelState() = default;

Backend ModelState::initialBackend(ModelConfig const& config) const
{
    std::vector<TRITONSERVER_InstanceGroupKind> const kinds = config.instanceKinds();
    TRITONSERVER_InstanceGroupKind const first = kinds.empty() ? TRITONSERVER_INSTANCEGROUPKIND_AUTO : kinds[0];
    return first == TRITONSERVER_INSTANCEGROUPKIND_CPU ? Backend::kCPU
        : first == TRITONSERVER_INSTANCEGROUPKIND_GPU  ? Backend::kCUDA
                                                       : defaultBackend();
}

std::shared_ptr<nvinfer1::ICudaEngine> ModelState::engineFor(Backend backend, int32_t device)
{
    std::lock_guard<std::mutex> lock(mMutex);
    std::pair<Backend, int32_t> const place{backend, backend == Backend::kCUDA ? device : 0};
    auto const found = mEngines.find(place);
    if (found != mEngines.end())
    {
        return found->second;
    }
    if (!mFile.isOnnx && backend != mPlanBackend)
    {
        throw BackendError(TRITONSERVER_ERROR_INVALID_ARG,
            mFile.path + " is a plan for the " + backendName(mPlanBackend) + " backend; an instance on the "
                + backendName(backend) + " backend needs a plan built for it (kiln --backend=" + backendName(backend)
                + " --saveEngine), or the ONNX model");
    }
    std::shared_ptr<nvinfer1::ICudaEngine> engine = mFile.isOnnx ? makeEngine(backend)
                                                                 : deserialize(readWholeFile(mFile.path), mFile.path);
    mEngines[place] = engine;
    return engine;
}

OnnxBuildRequest ModelState::onnxRequest() const
{
    OnnxBuildRequest request{mFile.path, Backend::kCPU, mParameters, 0, {}};
    int64_t const maxBatchSize = mConfig.maxBatchSize();
    bool const ioLeftOut = mConfig.inputs().empty() && mConfig.outputs().empty();
    request.batchMax = maxBatchSize > 0 ? maxBatchSize : (mAutoComplete && ioLeftOut ? mDefaultMaxBatchSize : 0);
    for (ConfigTensor const& input : mConfig.inputs())
    {
        std::vector<int64_t> dims = input.dims;
        if (maxBatchSize > 0)
        {
            dims.insert(dims.begin(), -1);
        }
        request.configDims[input.name] = dims;
    }
    return request;
}

std::shared_ptr<nvinfer1::ICudaEngine> ModelState::makeEngine(Backend backend)
{
    if (!backendAvailable(backend))
    {
        throw BackendError(TRITONSERVER_ERROR_UNAVAILABLE,
            std::string("Kiln's ") + backendName(backend)
                + " backend is not available here (no GPU, or Kiln was built without CUDA); use KIND_CPU");
    }
    OnnxBuildRequest request = mOnnxRequest;
    request.backend = backend;
    BuiltPlan plan = planForOnnx(request, /*rebuild=*/false);
    if (plan.fromCache)
    {
        try
        {
            return deserialize(plan.bytes, mFile.path + "." + backendName(backend) + ".plan");
        }
        catch (BackendError const& e)
        {
            logWarning(std::string("Kiln: the cached plan cannot be used (") + e.what() + "); building it again");
            plan = planForOnnx(request, /*rebuild=*/true);
        }
    }
    return deserialize(plan.bytes, "built from " + mFile.path);
}

std::shared_ptr<nvinfer1::ICudaEngine> ModelState::deserialize(std::string const& plan, std::string const& origin)
{
    KilnErrorCapture errors;
    std::shared_ptr<nvinfer1::ICudaEngine> engine(mRuntime->deserializeCudaEngine(plan.data(), plan.size()));
    if (engine == nullptr)
    {
        throw BackendError(TRITONSERVER_ERROR_INVALID_ARG,
            errors.explain("Kiln cannot load the plan " + origin
                + " (a plan that uses plugins needs their libraries in the plugins parameter)"));
    }
    return engine;
}

} // namespace kiln::triton
