#include "runtime/refitter.h"

#include "core/data_type.h"
#include "core/logging.h"

#include <algorithm>
#include <cmath>
#include <new>

namespace kiln::runtime
{
namespace
{

std::string quoted(char const* name)
{
    return name != nullptr ? "\"" + std::string(name) + "\"" : std::string("(null)");
}

char const* roleName(nvinfer1::WeightsRole role)
{
    switch (role)
    {
    case nvinfer1::WeightsRole::kKERNEL: return "kKERNEL";
    case nvinfer1::WeightsRole::kBIAS: return "kBIAS";
    case nvinfer1::WeightsRole::kSHIFT: return "kSHIFT";
    case nvinfer1::WeightsRole::kSCALE: return "kSCALE";
    case nvinfer1::WeightsRole::kCONSTANT: return "kCONSTANT";
    case nvinfer1::WeightsRole::kANY: return "kANY";
    }
    return "an unknown role";
}

} // namespace

Refitter::Refitter(Engine& engine, nvinfer1::ILogger& logger)
    : mEngine(engine)
    , mLogger(logger)
{
}

void Refitter::reportError(std::string const& message, nvinfer1::ErrorCode code) const
{
    mLogger.log(nvinfer1::ILogger::Severity::kERROR, message.c_str());
    if (mRecorder != nullptr)
    {
        mRecorder->reportError(code, message.c_str());
    }
}

int32_t Refitter::named(char const* name) const
{
    auto const& records = mEngine.refittable();
    for (size_t r = 0; name != nullptr && *name != '\0' && r < records.size(); ++r)
    {
        if (records[r].name == name)
        {
            return static_cast<int32_t>(r);
        }
    }
    return -1;
}

bool Refitter::stage(int32_t r, nvinfer1::Weights const& weights, nvinfer1::TensorLocation location, char const* call,
    std::string const& what)
{
    if (location != nvinfer1::TensorLocation::kHOST)
    {
        reportError(std::string("IRefitter::") + call + ": " + what
            + ": Kiln refits from host memory; give TensorLocation::kHOST weights");
        return false;
    }
    network::WeightsBuffer const& current = mEngine.refittableWeights(static_cast<size_t>(r));
    if (weights.count != current.count() || (weights.count > 0 && weights.values == nullptr))
    {
        reportError(std::string("IRefitter::") + call + ": " + what + " holds " + std::to_string(current.count())
            + " values; the weights given have " + std::to_string(weights.count)
            + (weights.values == nullptr ? " and no values" : ""));
        return false;
    }
    if (!isFloatType(weights.type) || network::weightsElementSize(weights.type) == 0)
    {
        reportError(std::string("IRefitter::") + call + ": " + what
            + ": refitted weights must be kFLOAT, kHALF or kBF16 (converted to the plan's "
            + dataTypeName(current.type()) + ")");
        return false;
    }
    Staged staged{weights, location, network::WeightsBuffer(weights).storedAs(current.type())};
    if (mValidateWeights)
    {
        std::vector<float> const given = network::WeightsBuffer(weights).toFloat();
        std::vector<float> const stored = staged.values.toFloat();
        for (size_t i = 0; i < given.size(); ++i)
        {
            if (std::isfinite(given[i]) && !std::isfinite(stored[i]))
            {
                reportError(std::string("IRefitter::") + call + ": " + what + ": value " + std::to_string(i) + " ("
                    + std::to_string(given[i]) + ") does not fit the plan's " + dataTypeName(current.type())
                    + " (setWeightsValidation(false) stores it as infinity)");
                return false;
            }
        }
    }
    mStaged[r] = std::move(staged);
    return true;
}

bool Refitter::setWeights(char const* layerName, nvinfer1::WeightsRole role, nvinfer1::Weights weights) noexcept
{
    try
    {
        auto const& records = mEngine.refittable();
        for (size_t r = 0; layerName != nullptr && r < records.size(); ++r)
        {
            if (records[r].layerName == layerName && records[r].role == role)
            {
                return stage(static_cast<int32_t>(r), weights, nvinfer1::TensorLocation::kHOST, "setWeights",
                    "the " + std::string(roleName(role)) + " weights of layer " + quoted(layerName));
            }
        }
        reportError("IRefitter::setWeights: layer " + quoted(layerName) + " has no refittable " + roleName(role)
            + " weights in this engine");
        return false;
    }
    catch (std::bad_alloc const&)
    {
        reportError("IRefitter::setWeights: out of host memory", nvinfer1::ErrorCode::kFAILED_ALLOCATION);
        return false;
    }
}

bool Refitter::setNamedWeights(char const* name, nvinfer1::Weights weights, nvinfer1::TensorLocation location) noexcept
{
    try
    {
        if (named(name) < 0)
        {
            reportError("IRefitter::setNamedWeights: the engine has no refittable weights named " + quoted(name));
            return false;
        }
        // Weights a network uses in several layers (tied embeddings) have one name and a record per use.
        auto const& records = mEngine.refittable();
        for (size_t r = 0; r < records.size(); ++r)
        {
            if (records[r].name == name
                && !stage(static_cast<int32_t>(r), weights, location, "setNamedWeights", "weights " + quoted(name)))
            {
                return false;
            }
        }
        return true;
    }
    catch (std::bad_alloc const&)
    {
        reportError("IRefitter::setNamedWeights: out of host memory", nvinfer1::ErrorCode::kFAILED_ALLOCATION);
        return false;
    }
}

nvinfer1::Weights Refitter::getNamedWeights(char const* weightsName) const noexcept
{
    auto const staged = mStaged.find(named(weightsName));
    return staged != mStaged.end() ? staged->second.given : nvinfer1::Weights{nvinfer1::DataType::kFLOAT, nullptr, 0};
}

nvinfer1::TensorLocation Refitter::getWeightsLocation(char const* weightsName) const noexcept
{
    auto const staged = mStaged.find(named(weightsName));
    return staged != mStaged.end() ? staged->second.location : nvinfer1::TensorLocation::kHOST;
}

bool Refitter::unsetNamedWeights(char const* weightsName) noexcept
{
    size_t const before = mStaged.size();
    std::erase_if(mStaged, [&](auto const& staged) {
        return weightsName != nullptr && mEngine.refittable()[static_cast<size_t>(staged.first)].name == weightsName;
    });
    if (mStaged.size() == before)
    {
        reportError("IRefitter::unsetNamedWeights: no weights were set for " + quoted(weightsName));
        return false;
    }
    return true;
}

nvinfer1::Weights Refitter::getWeightsPrototype(char const* weightsName) const noexcept
{
    int32_t const r = named(weightsName);
    if (r < 0)
    {
        reportError(
            "IRefitter::getWeightsPrototype: the engine has no refittable weights named " + quoted(weightsName));
        return nvinfer1::Weights{nvinfer1::DataType::kFLOAT, nullptr, -1};
    }
    network::WeightsBuffer const& current = mEngine.refittableWeights(static_cast<size_t>(r));
    return nvinfer1::Weights{current.type(), nullptr, current.count()};
}

bool Refitter::refitCudaEngine() noexcept
{
    try
    {
        for (auto const& [r, staged] : mStaged)
        {
            mEngine.replaceWeights(static_cast<size_t>(r), staged.values);
        }
        mStaged.clear();
        return true;
    }
    catch (std::exception const& e)
    {
        reportError(std::string("IRefitter::refitCudaEngine: ") + e.what(), nvinfer1::ErrorCode::kINTERNAL_ERROR);
        return false;
    }
}

bool Refitter::refitCudaEngineAsync(cudaStream_t /*stream*/) noexcept
{
    // The weights are written on the host now; each context uploads its copy before its next run, in that run's
    // stream order.
    return refitCudaEngine();
}

int32_t Refitter::getMissing(int32_t /*size*/, char const** /*layerNames*/, nvinfer1::WeightsRole* /*roles*/) noexcept
{
    // Weights go missing where a build combined refittable weights (batch norm folded into a convolution); Kiln's
    // builder combines none, so any subset of the refittable weights can be refitted alone.
    return 0;
}

int32_t Refitter::getMissingWeights(int32_t /*size*/, char const** /*weightsNames*/) noexcept
{
    return 0; // as getMissing: no weights are combined
}

int32_t Refitter::getAll(int32_t size, char const** layerNames, nvinfer1::WeightsRole* roles) noexcept
{
    auto const& records = mEngine.refittable();
    for (int32_t r = 0; r < std::min(size, static_cast<int32_t>(records.size())); ++r)
    {
        if (layerNames != nullptr)
        {
            layerNames[r] = records[static_cast<size_t>(r)].layerName.c_str();
        }
        if (roles != nullptr)
        {
            roles[r] = records[static_cast<size_t>(r)].role;
        }
    }
    return static_cast<int32_t>(records.size());
}

int32_t Refitter::getAllWeights(int32_t size, char const** weightsNames) noexcept
{
    auto const& records = mEngine.refittable();
    int32_t count = 0;
    for (size_t r = 0; r < records.size(); ++r)
    {
        // Unnamed weights are refitted through setWeights (layer and role); a name used twice is listed once.
        if (records[r].name.empty() || named(records[r].name.c_str()) != static_cast<int32_t>(r))
        {
            continue;
        }
        if (weightsNames != nullptr && count < size)
        {
            weightsNames[count] = records[r].name.c_str();
        }
        ++count;
    }
    return count;
}

bool Refitter::setMaxThreads(int32_t maxThreads) noexcept
{
    if (maxThreads < 1)
    {
        reportError("IRefitter::setMaxThreads: " + std::to_string(maxThreads) + " is not a thread count (>= 1)");
        return false;
    }
    mMaxThreads = maxThreads;
    return true;
}

bool Refitter::setDynamicRange(char const* tensorName, float /*min*/, float /*max*/) noexcept
{
    reportError("IRefitter::setDynamicRange: " + quoted(tensorName)
        + ": Kiln fixes an engine's INT8 scales when it builds it, so no dynamic range can be refitted");
    return false;
}

float Refitter::getDynamicRangeMin(char const* /*tensorName*/) const noexcept
{
    return 0.0F;
}

float Refitter::getDynamicRangeMax(char const* /*tensorName*/) const noexcept
{
    return 0.0F;
}

int32_t Refitter::getTensorsWithDynamicRange(int32_t /*size*/, char const** /*tensorNames*/) const noexcept
{
    return 0;
}

} // namespace kiln::runtime

extern "C" void* createInferRefitter_INTERNAL(void* engine, void* logger, int32_t /*version*/) noexcept
{
    if (engine == nullptr || logger == nullptr)
    {
        kiln::logError("createInferRefitter: the engine and the logger must not be null");
        return nullptr;
    }
    auto* ours = dynamic_cast<kiln::runtime::Engine*>(static_cast<nvinfer1::ICudaEngine*>(engine));
    auto& log = *static_cast<nvinfer1::ILogger*>(logger);
    if (ours == nullptr || !ours->isRefittable())
    {
        log.log(nvinfer1::ILogger::Severity::kERROR,
            "createInferRefitter: the engine is not refittable: build it with BuilderFlag::kREFIT, kREFIT_IDENTICAL "
            "or kSTRIP_PLAN (every weight), or kREFIT_INDIVIDUAL and INetworkDefinition::markWeightsRefittable");
        return nullptr;
    }
    return static_cast<nvinfer1::IRefitter*>(new (std::nothrow) kiln::runtime::Refitter(*ours, log));
}
