// ICudaEngine's queries beyond what Kiln's own tools use: tensor formats per profile, the option objects
// (runtime and serialization configs), and the features Kiln has nothing behind (weight streaming, engine stats),
// which fail with one error naming the call.
#include "runtime/engine.h"

#include "core/data_type.h"
#include "core/logging.h"
#include "runtime/runtime_config.h"

#include <memory>
#include <algorithm>
#include <string>

namespace kiln::runtime
{

namespace
{

//! How a format vectorizes a tensor of rank `rank`: the dimension it splits and the components per vector; dim -1
//! for formats that are not vectorized (kLINEAR, and kHWC/kDHWC whose channels stay unpadded).
struct Vectorization
{
    int32_t dim{-1};
    int32_t components{-1};
};

Vectorization vectorizationOf(nvinfer1::TensorFormat format, int32_t rank)
{
    using F = nvinfer1::TensorFormat;
    switch (format)
    {
    case F::kCHW2: return {rank - 3, 2};
    case F::kCHW4: return {rank - 3, 4};
    // Kiln pads the channels, dimension 1, at every rank (core/tensor_view.h's storedChannels): TensorRT's
    // dims[nbDims - 3] for four dimensions. Reporting another would have applications size their buffers for a
    // padding Kiln does not read (a plan with a five-dimensional kHWC8 input was read past its buffer).
    case F::kHWC8: return {std::min(rank - 1, 1), 8};
    case F::kCHW16:
    case F::kHWC16: return {rank - 3, 16};
    case F::kCHW32: return {rank - 3, 32};
    case F::kDHWC8: return {rank - 4, 8};
    case F::kCDHW32: return {rank - 4, 32};
    default: return {};
    }
}

//! The vectorization of I/O tensor `tensorName` in profile `profileIndex`; not vectorized (-1) for an unknown
//! name (logged, naming `call`) or profile.
Vectorization vectorizationOf(Engine const& engine, char const* tensorName, int32_t profileIndex, char const* call)
{
    int32_t const index = engine.ioTensorIndex(tensorName, call);
    if (index < 0 || profileIndex < 0 || profileIndex >= engine.getNbOptimizationProfiles())
    {
        return {};
    }
    auto const& tensor = engine.model().tensors[static_cast<size_t>(index)];
    return vectorizationOf(tensor.format, static_cast<int32_t>(tensor.dims.size()));
}

std::string formatSentence(nvinfer1::TensorFormat format, std::string const& type)
{
    using F = nvinfer1::TensorFormat;
    switch (format)
    {
    case F::kLINEAR: return "Row-major linear " + type + " format";
    case F::kHWC: return "Channel-last " + type + " format (unpadded channels)";
    case F::kHWC8: return "Channel-last " + type + " format where channels are padded to a multiple of 8";
    default: return "Vectorized " + type + " format (TensorFormat " + std::to_string(static_cast<int>(format)) + ")";
    }
}

} // namespace

nvinfer1::IExecutionContext* Engine::createExecutionContext(nvinfer1::IRuntimeConfig* runtimeConfig) noexcept
{
    return createExecutionContext(runtimeConfig == nullptr ? nvinfer1::ExecutionContextAllocationStrategy::kSTATIC
                                                           : runtimeConfig->getExecutionContextAllocationStrategy());
}

nvinfer1::IRuntimeConfig* Engine::createRuntimeConfig() noexcept
{
    return new (std::nothrow) RuntimeConfig();
}

int32_t Engine::getTensorBytesPerComponent(char const* tensorName) const noexcept
{
    return getTensorBytesPerComponent(tensorName, 0);
}

int32_t Engine::getTensorBytesPerComponent(char const* tensorName, int32_t profileIndex) const noexcept
{
    if (getTensorVectorizedDim(tensorName, profileIndex) < 0)
    {
        return -1;
    }
    return static_cast<int32_t>(elementSize(getTensorDataType(tensorName)));
}

int32_t Engine::getTensorComponentsPerElement(char const* tensorName) const noexcept
{
    return getTensorComponentsPerElement(tensorName, 0);
}

int32_t Engine::getTensorComponentsPerElement(char const* tensorName, int32_t profileIndex) const noexcept
{
    return vectorizationOf(*this, tensorName, profileIndex, "ICudaEngine::getTensorComponentsPerElement").components;
}

nvinfer1::TensorFormat Engine::getTensorFormat(char const* tensorName, int32_t profileIndex) const noexcept
{
    if (profileIndex < 0 || profileIndex >= getNbOptimizationProfiles())
    {
        logError("ICudaEngine::getTensorFormat: profile " + std::to_string(profileIndex) + " does not exist");
        return nvinfer1::TensorFormat::kLINEAR;
    }
    return getTensorFormat(tensorName);
}

char const* Engine::getTensorFormatDesc(char const* tensorName) const noexcept
{
    return getTensorFormatDesc(tensorName, 0);
}

char const* Engine::getTensorFormatDesc(char const* tensorName, int32_t profileIndex) const noexcept
{
    int32_t const index = ioTensorIndex(tensorName, "ICudaEngine::getTensorFormatDesc");
    if (index < 0 || profileIndex < 0 || profileIndex >= getNbOptimizationProfiles())
    {
        return "";
    }
    auto const& tensor = mModel.tensors[index];
    mFormatDesc = formatSentence(tensor.format, trtexecTypeName(tensor.type));
    return mFormatDesc.c_str();
}

int32_t Engine::getTensorVectorizedDim(char const* tensorName) const noexcept
{
    return getTensorVectorizedDim(tensorName, 0);
}

int32_t Engine::getTensorVectorizedDim(char const* tensorName, int32_t profileIndex) const noexcept
{
    return vectorizationOf(*this, tensorName, profileIndex, "ICudaEngine::getTensorVectorizedDim").dim;
}

int32_t const* Engine::getProfileTensorValues(
    char const* /*tensorName*/, int32_t /*profileIndex*/, nvinfer1::OptProfileSelector /*select*/) const noexcept
{
    logError("ICudaEngine::getProfileTensorValues: Kiln's plans do not keep the profiles' shape-tensor values");
    return nullptr;
}

int64_t const* Engine::getProfileTensorValuesV2(
    char const* /*tensorName*/, int32_t /*profileIndex*/, nvinfer1::OptProfileSelector /*select*/) const noexcept
{
    logError("ICudaEngine::getProfileTensorValuesV2: Kiln's plans do not keep the profiles' shape-tensor values");
    return nullptr;
}

nvinfer1::TacticSources Engine::getTacticSources() const noexcept
{
    // The plan does not record the builder's sources; Kiln's kernels do not depend on them.
    return 1U << static_cast<uint32_t>(nvinfer1::TacticSource::kEDGE_MASK_CONVOLUTIONS)
        | 1U << static_cast<uint32_t>(nvinfer1::TacticSource::kJIT_CONVOLUTIONS);
}

nvinfer1::HardwareCompatibilityLevel Engine::getHardwareCompatibilityLevel() const noexcept
{
    return static_cast<nvinfer1::HardwareCompatibilityLevel>(0); // kNONE (the enum is defined in NvInfer.h)
}

nvinfer1::ISerializationConfig* Engine::createSerializationConfig() noexcept
{
    return new (std::nothrow) SerializationConfig();
}

nvinfer1::IHostMemory* Engine::serializeWithConfig(nvinfer1::ISerializationConfig& config) const noexcept
{
    if (config.getFlag(nvinfer1::SerializationFlag::kEXCLUDE_WEIGHTS))
    {
        logError("ICudaEngine::serializeWithConfig: kEXCLUDE_WEIGHTS: Kiln writes no weight-stripped plans yet "
                 "(serialize() gives the plan with its weights, which a refittable engine's refitter can replace)");
        return nullptr;
    }
    // kEXCLUDE_LEAN_RUNTIME changes nothing (Kiln's plans hold no runtime), nor does kINCLUDE_REFIT: a refittable
    // plan always lists its refittable weights.
    return serialize();
}

bool Engine::setWeightStreamingBudget(int64_t /*gpuMemoryBudget*/) noexcept
{
    logError("ICudaEngine::setWeightStreamingBudget: Kiln has no weight streaming");
    return false;
}

bool Engine::setWeightStreamingBudgetV2(int64_t /*gpuMemoryBudget*/) noexcept
{
    logError("ICudaEngine::setWeightStreamingBudgetV2: Kiln has no weight streaming");
    return false;
}

int64_t Engine::getEngineStat(nvinfer1::EngineStat stat) const noexcept
{
    logError("ICudaEngine::getEngineStat: Kiln's plans do not report weight sizes yet (stat "
        + std::to_string(static_cast<int32_t>(stat)) + ")");
    return -1;
}

} // namespace kiln::runtime
