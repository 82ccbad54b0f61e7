// The model configuration checked against the engine, and completed from it where the user left fields out and
// the server allows auto-completion (as Triton's TensorRT backend completes a configuration from a plan).
#pragma once

#include "engine_io.h"
#include "model_config.h"

#include <string>
#include <vector>

namespace kiln::triton
{

//! What the server will send and ask for, once the configuration holds.
struct ServedModel
{
    int64_t maxBatchSize{0};           //!< 0: requests carry the engine's whole shape, no batch dimension added
    std::vector<EngineTensor> inputs;  //!< every engine input, in the engine's order
    std::vector<EngineTensor> outputs; //!< the outputs the configuration lists, in its order
};

//! Completes config where autoComplete allows it (max_batch_size from profile 0 when the configuration names no
//! input and no output; missing inputs and outputs from the engine), then checks it against io. Sets changed when
//! the configuration was completed and needs writing back. A BackendError (INVALID_ARG or UNSUPPORTED) says which
//! field disagrees with the engine and what the engine has.
ServedModel completeAndCheck(ModelConfig& config, EngineIo const& io, bool autoComplete, bool& changed);

} // namespace kiln::triton
