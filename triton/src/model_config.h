// A model's configuration as the server hands it over (config.pbtxt, as JSON): what the backend reads of it, and
// the fields it fills in where auto-completion is on.
#pragma once

#include "kiln_triton/triton_api.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::triton
{

//! One entry of the configuration's `input` or `output` list.
struct ConfigTensor
{
    std::string name;
    TRITONSERVER_DataType type{TRITONSERVER_TYPE_INVALID};
    std::string typeName; //!< as written ("TYPE_FP32"), for messages
    std::vector<int64_t> dims;
};

class ModelConfig
{
public:
    //! The configuration of model (version 1 of the server's JSON form).
    static ModelConfig read(TRITONBACKEND_Model* model);
    //! Hands the configuration back to the server (after auto-completion changed it).
    void write(TRITONBACKEND_Model* model) const;

    int64_t maxBatchSize() const;
    void setMaxBatchSize(int64_t value);
    std::vector<ConfigTensor> inputs() const;
    std::vector<ConfigTensor> outputs() const;
    //! Adds an entry to `input` (isInput) or `output`.
    void addTensor(bool isInput, std::string const& name, TRITONSERVER_DataType type, std::vector<int64_t> const& dims);
    //! The string value of parameter key (config.pbtxt's `parameters { key: ... value { string_value: ... } }`).
    std::optional<std::string> parameter(std::string const& key) const;
    //! The keys of every parameter, to refuse those the backend does not know.
    std::vector<std::string> parameterKeys() const;
    //! `default_model_filename`, empty when not set.
    std::string defaultModelFilename() const;
    //! `optimization { cuda { graphs: true } }`, the TensorRT backend's switch for CUDA graphs.
    bool cudaGraphs() const;
    //! The kinds of the `instance_group` entries, in order (empty when there are none yet).
    std::vector<TRITONSERVER_InstanceGroupKind> instanceKinds() const;

private:
    std::vector<ConfigTensor> tensors(char const* key) const;

    nlohmann::json mJson;
};

//! A backend's own settings (`tritonserver --backend-config=kiln,key=value`), from the backend's configuration.
struct BackendSettings
{
    std::string plugins;            //!< "plugins": libraries every model loads, ';'-separated
    int64_t defaultMaxBatchSize{4}; //!< the server's --backend-config=default-max-batch-size (4 unless set)
};

BackendSettings readBackendSettings(TRITONBACKEND_Backend* backend);

} // namespace kiln::triton
