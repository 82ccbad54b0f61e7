#include "model_config.h"

#include "backend_error.h"
#include "data_types.h"

#include <memory>

namespace kiln::triton
{
namespace
{

using Json = nlohmann::json;

//! The server's JSON form writes 64-bit integers as strings ("dims": ["3", "64"]); either form is read.
int64_t integerOf(Json const& value, std::string const& what)
{
    if (value.is_number_integer())
    {
        return value.get<int64_t>();
    }
    if (value.is_string())
    {
        std::string const& text = value.get_ref<std::string const&>();
        size_t used = 0;
        try
        {
            int64_t const parsed = std::stoll(text, &used);
            if (used == text.size())
            {
                return parsed;
            }
        }
        catch (std::exception const&)
        {
        }
    }
    throw BackendError(TRITONSERVER_ERROR_INVALID_ARG, what + " is not an integer: " + value.dump());
}

//! The JSON of message, which the caller still owns.
Json parseMessage(TRITONSERVER_Message* message, std::string const& what)
{
    char const* base = nullptr;
    size_t size = 0;
    check(TRITONSERVER_MessageSerializeToJson(message, &base, &size), "cannot read the " + what);
    Json parsed = Json::parse(base, base + size, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded() || !parsed.is_object())
    {
        throw BackendError(TRITONSERVER_ERROR_INTERNAL, "the " + what + " the server gave is not a JSON object");
    }
    return parsed;
}

std::string stringOr(Json const& object, char const* key, std::string const& fallback)
{
    auto const it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

} // namespace

ModelConfig ModelConfig::read(TRITONBACKEND_Model* model)
{
    TRITONSERVER_Message* message = nullptr;
    check(TRITONBACKEND_ModelConfig(model, 1, &message), "cannot get the model configuration");
    // The model's configuration is the caller's to delete; the backend's configuration (below) is the server's.
    std::unique_ptr<TRITONSERVER_Message, decltype(&TRITONSERVER_MessageDelete)> owned(
        message, &TRITONSERVER_MessageDelete);
    ModelConfig config;
    config.mJson = parseMessage(message, "model configuration");
    return config;
}

void ModelConfig::write(TRITONBACKEND_Model* model) const
{
    std::string const text = mJson.dump();
    TRITONSERVER_Message* message = nullptr;
    check(TRITONSERVER_MessageNewFromSerializedJson(&message, text.data(), text.size()),
        "cannot make the completed model configuration");
    TRITONSERVER_Error* error = TRITONBACKEND_ModelSetConfig(model, 1, message);
    TRITONSERVER_MessageDelete(message);
    check(error, "the server refused the completed model configuration");
}

int64_t ModelConfig::maxBatchSize() const
{
    auto const it = mJson.find("max_batch_size");
    return it == mJson.end() ? 0 : integerOf(*it, "max_batch_size");
}

void ModelConfig::setMaxBatchSize(int64_t value)
{
    mJson["max_batch_size"] = value;
}

std::vector<ConfigTensor> ModelConfig::tensors(char const* key) const
{
    std::vector<ConfigTensor> result;
    auto const list = mJson.find(key);
    if (list == mJson.end() || !list->is_array())
    {
        return result;
    }
    for (Json const& entry : *list)
    {
        ConfigTensor tensor;
        tensor.name = stringOr(entry, "name", "");
        tensor.typeName = stringOr(entry, "data_type", "TYPE_INVALID");
        tensor.type = typeFromConfigName(tensor.typeName);
        auto const dims = entry.find("dims");
        if (dims != entry.end() && dims->is_array())
        {
            for (Json const& d : *dims)
            {
                tensor.dims.push_back(integerOf(d, std::string(key) + " \"" + tensor.name + "\" dims"));
            }
        }
        result.push_back(std::move(tensor));
    }
    return result;
}

std::vector<ConfigTensor> ModelConfig::inputs() const
{
    return tensors("input");
}

std::vector<ConfigTensor> ModelConfig::outputs() const
{
    return tensors("output");
}

void ModelConfig::addTensor(
    bool isInput, std::string const& name, TRITONSERVER_DataType type, std::vector<int64_t> const& dims)
{
    Json entry{{"name", name}, {"data_type", configTypeName(type)}, {"dims", dims}};
    mJson[isInput ? "input" : "output"].push_back(std::move(entry));
}

std::optional<std::string> ModelConfig::parameter(std::string const& key) const
{
    auto const parameters = mJson.find("parameters");
    if (parameters == mJson.end() || !parameters->is_object())
    {
        return std::nullopt;
    }
    auto const entry = parameters->find(key);
    if (entry == parameters->end() || !entry->is_object())
    {
        return std::nullopt;
    }
    return stringOr(*entry, "string_value", "");
}

std::vector<std::string> ModelConfig::parameterKeys() const
{
    std::vector<std::string> keys;
    auto const parameters = mJson.find("parameters");
    if (parameters != mJson.end() && parameters->is_object())
    {
        for (auto const& [key, value] : parameters->items())
        {
            keys.push_back(key);
        }
    }
    return keys;
}

std::string ModelConfig::defaultModelFilename() const
{
    return stringOr(mJson, "default_model_filename", "");
}

bool ModelConfig::cudaGraphs() const
{
    auto const optimization = mJson.find("optimization");
    if (optimization == mJson.end() || !optimization->is_object())
    {
        return false;
    }
    auto const cuda = optimization->find("cuda");
    if (cuda == optimization->end() || !cuda->is_object())
    {
        return false;
    }
    auto const graphs = cuda->find("graphs");
    return graphs != cuda->end() && graphs->is_boolean() && graphs->get<bool>();
}

std::vector<TRITONSERVER_InstanceGroupKind> ModelConfig::instanceKinds() const
{
    std::vector<TRITONSERVER_InstanceGroupKind> kinds;
    auto const groups = mJson.find("instance_group");
    if (groups == mJson.end() || !groups->is_array())
    {
        return kinds;
    }
    for (Json const& group : *groups)
    {
        std::string const kind = stringOr(group, "kind", "KIND_AUTO");
        kinds.push_back(kind == "KIND_CPU" ? TRITONSERVER_INSTANCEGROUPKIND_CPU
                : kind == "KIND_GPU"       ? TRITONSERVER_INSTANCEGROUPKIND_GPU
                : kind == "KIND_MODEL"     ? TRITONSERVER_INSTANCEGROUPKIND_MODEL
                                           : TRITONSERVER_INSTANCEGROUPKIND_AUTO);
    }
    return kinds;
}

BackendSettings readBackendSettings(TRITONBACKEND_Backend* backend)
{
    TRITONSERVER_Message* message = nullptr;
    check(TRITONBACKEND_BackendConfig(backend, &message), "cannot get the backend's configuration");
    Json const config = parseMessage(message, "backend configuration");
    BackendSettings settings;
    auto const commandLine = config.find("cmdline");
    if (commandLine == config.end() || !commandLine->is_object())
    {
        return settings;
    }
    settings.plugins = stringOr(*commandLine, "plugins", "");
    std::string const maxBatch = stringOr(*commandLine, "default-max-batch-size", "");
    if (!maxBatch.empty())
    {
        settings.defaultMaxBatchSize = integerOf(Json(maxBatch), "--backend-config default-max-batch-size");
    }
    return settings;
}

} // namespace kiln::triton
