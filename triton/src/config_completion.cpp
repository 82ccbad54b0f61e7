#include "config_completion.h"

#include "backend_error.h"
#include "data_types.h"

#include <algorithm>

namespace kiln::triton
{
namespace
{

BackendError mismatch(std::string const& what)
{
    return BackendError(TRITONSERVER_ERROR_INVALID_ARG, what);
}

//! The dims the configuration shows for an engine tensor: without the batch dimension when the model batches.
std::vector<int64_t> configDimsOf(EngineTensor const& tensor, int64_t maxBatchSize)
{
    return maxBatchSize > 0 ? std::vector<int64_t>(tensor.dims.begin() + 1, tensor.dims.end()) : tensor.dims;
}

EngineTensor const* findTensor(std::vector<EngineTensor> const& tensors, std::string const& name)
{
    auto const it = std::find_if(tensors.begin(), tensors.end(), [&](EngineTensor const& t) { return t.name == name; });
    return it == tensors.end() ? nullptr : &*it;
}

std::string namesOf(std::vector<EngineTensor> const& tensors)
{
    std::string names;
    for (EngineTensor const& t : tensors)
    {
        names += (names.empty() ? "\"" : ", \"") + t.name + "\"";
    }
    return names;
}

void checkTensor(ConfigTensor const& entry, EngineTensor const& tensor, char const* kind, int64_t maxBatchSize)
{
    std::string const what = std::string(kind) + " \"" + entry.name + "\"";
    if (entry.type == TRITONSERVER_TYPE_BYTES)
    {
        throw BackendError(TRITONSERVER_ERROR_UNSUPPORTED,
            what
                + " is TYPE_STRING (BYTES), which Kiln's backend does not take: Kiln's tensors have fixed-size "
                  "elements");
    }
    if (entry.type != tensor.type)
    {
        throw mismatch(what + " is " + entry.typeName + " in the configuration but " + configTypeName(tensor.type)
            + " in the engine");
    }
    std::vector<int64_t> const expected = configDimsOf(tensor, maxBatchSize);
    bool fits = entry.dims.size() == expected.size();
    size_t const batchOffset = maxBatchSize > 0 ? 1 : 0;
    for (size_t j = 0; fits && j < expected.size(); ++j)
    {
        int64_t const c = entry.dims[j];
        bool const withinProfile = tensor.minDims.empty()
            || (c >= tensor.minDims[j + batchOffset] && c <= tensor.maxDims[j + batchOffset]);
        fits = c == -1 || c == expected[j] || (expected[j] == -1 && withinProfile);
    }
    if (!fits)
    {
        throw mismatch(what + " has dims " + dimsText(entry.dims) + " in the configuration, but the engine's are "
            + dimsText(expected)
            + (maxBatchSize > 0 ? " without the batch dimension (max_batch_size > 0)" : " (max_batch_size 0)"));
    }
}

int64_t completeMaxBatchSize(ModelConfig& config, EngineIo const& io, bool autoComplete, bool& changed)
{
    int64_t maxBatchSize = config.maxBatchSize();
    bool const ioLeftOut = config.inputs().empty() && config.outputs().empty();
    if (autoComplete && ioLeftOut && maxBatchSize == 0 && io.batches)
    {
        maxBatchSize = io.maxBatch;
        config.setMaxBatchSize(maxBatchSize);
        changed = true;
    }
    EngineTensor const* dataDependent = io.firstDataDependentOutput();
    if (maxBatchSize > 0 && dataDependent != nullptr)
    {
        throw mismatch("max_batch_size is " + std::to_string(maxBatchSize) + ", but the shape of output \""
            + dataDependent->name
            + "\" depends on the input values, so requests cannot share a run and be split apart again; set "
              "max_batch_size: 0 and give the whole shapes");
    }
    if (maxBatchSize > 0 && !io.batches)
    {
        throw mismatch("max_batch_size is " + std::to_string(maxBatchSize)
            + ", but the engine's inputs and outputs do not all have a dynamic first dimension starting at 1; set "
              "max_batch_size: 0 and give the whole shapes");
    }
    if (maxBatchSize > io.maxBatch && io.batches)
    {
        throw mismatch("max_batch_size is " + std::to_string(maxBatchSize) + ", but the engine's profile takes at "
            + "most " + std::to_string(io.maxBatch) + " (build it with a larger max_shapes, or lower max_batch_size)");
    }
    return maxBatchSize;
}

} // namespace

ServedModel completeAndCheck(ModelConfig& config, EngineIo const& io, bool autoComplete, bool& changed)
{
    changed = false;
    ServedModel served;
    served.maxBatchSize = completeMaxBatchSize(config, io, autoComplete, changed);
    for (bool const isInput : {true, false})
    {
        std::vector<EngineTensor> const& engineTensors = isInput ? io.inputs : io.outputs;
        char const* kind = isInput ? "input" : "output";
        if ((isInput ? config.inputs() : config.outputs()).empty())
        {
            if (!autoComplete)
            {
                throw mismatch(std::string("the configuration lists no ") + kind + " and auto-completion is off; the "
                    + "engine's are " + namesOf(engineTensors));
            }
            for (EngineTensor const& t : engineTensors)
            {
                config.addTensor(isInput, t.name, t.type, configDimsOf(t, served.maxBatchSize));
            }
            changed = true;
        }
        for (ConfigTensor const& entry : isInput ? config.inputs() : config.outputs())
        {
            EngineTensor const* tensor = findTensor(engineTensors, entry.name);
            if (tensor == nullptr)
            {
                throw mismatch(std::string(kind) + " \"" + entry.name + "\" of the configuration is not one of the "
                    + "engine's; its " + kind + "s are " + namesOf(engineTensors));
            }
            checkTensor(entry, *tensor, kind, served.maxBatchSize);
            if (!isInput)
            {
                served.outputs.push_back(*tensor);
            }
        }
    }
    for (EngineTensor const& input : io.inputs)
    {
        std::vector<ConfigTensor> const listed = config.inputs();
        if (std::none_of(listed.begin(), listed.end(), [&](ConfigTensor const& c) { return c.name == input.name; }))
        {
            throw mismatch("the engine's input \"" + input.name + "\" is missing from the configuration");
        }
        served.inputs.push_back(input);
    }
    return served;
}

} // namespace kiln::triton
