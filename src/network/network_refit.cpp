// Names of weights and refittable marks: what an engine built with BuilderFlag::kREFIT or kREFIT_INDIVIDUAL lets a
// refitter find its weights by (runtime/refitter.h).
#include "core/logging.h"
#include "network/network.h"

#include <string>

namespace kiln::network
{
namespace
{

std::string quoted(char const* name)
{
    return name != nullptr ? "\"" + std::string(name) + "\"" : std::string("(null)");
}

} // namespace

bool Network::setWeightsName(nvinfer1::Weights weights, char const* name) noexcept
{
    if (name == nullptr || *name == '\0' || weights.values == nullptr)
    {
        logError("INetworkDefinition::setWeightsName: " + quoted(name)
            + ": a name needs non-empty text and weights with values");
        return false;
    }
    // One name may stand for several copies of the same values (an ONNX initializer read at two shapes): a refit
    // by that name replaces each.
    mWeightsNames[weights.values] = name;
    return true;
}

std::string const& Network::weightsName(void const* source) const
{
    static std::string const kUnnamed;
    auto const found = mWeightsNames.find(source);
    return source != nullptr && found != mWeightsNames.end() ? found->second : kUnnamed;
}

bool Network::markWeightsRefittable(char const* name) noexcept
{
    for (auto const& [source, existing] : mWeightsNames)
    {
        if (name != nullptr && existing == name)
        {
            mRefittableNames.insert(existing);
            return true;
        }
    }
    logError("INetworkDefinition::markWeightsRefittable: no weights are named " + quoted(name)
        + " (setWeightsName names them; the ONNX parser names them after the model's initializers)");
    return false;
}

bool Network::unmarkWeightsRefittable(char const* name) noexcept
{
    if (name == nullptr || mRefittableNames.erase(name) == 0)
    {
        logError("INetworkDefinition::unmarkWeightsRefittable: " + quoted(name) + " is not marked refittable");
        return false;
    }
    return true;
}

bool Network::areWeightsMarkedRefittable(char const* name) const noexcept
{
    return name != nullptr && weightsMarkedRefittable(name);
}

} // namespace kiln::network
