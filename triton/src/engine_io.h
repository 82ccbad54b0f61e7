// What an engine takes and gives, in the terms the server's requests and configuration use.
#pragma once

#include "kiln_triton/triton_api.h"

#include <NvInferRuntime.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::triton
{

struct EngineTensor
{
    std::string name;
    TRITONSERVER_DataType type{TRITONSERVER_TYPE_INVALID};
    std::vector<int64_t> dims;    //!< the engine's, batch dimension included; -1 where dynamic
    std::vector<int64_t> minDims; //!< inputs: the smallest shape of profile 0 (dims where nothing is dynamic)
    std::vector<int64_t> maxDims; //!< inputs: the largest shape of profile 0
    //! outputs: the shape is known only once the run made it (NonZero's, NonMaxSuppression's count); its memory
    //! comes from an IOutputAllocator and each request runs alone.
    bool dataDependent{false};
};

struct EngineIo
{
    std::vector<EngineTensor> inputs;
    std::vector<EngineTensor> outputs;
    //! Every input and output has a dynamic first dimension that profile 0 lets start at 1, and no output's shape
    //! depends on the data: requests may be concatenated along the first dimension.
    bool batches{false};
    //! The largest first dimension profile 0 allows every input (0 when the engine does not batch).
    int64_t maxBatch{0};
    //! The first output whose shape depends on the data, for messages (null when there is none).
    EngineTensor const* firstDataDependentOutput() const;
};

//! The engine's inputs and outputs; a BackendError (UNSUPPORTED) names a tensor whose type Triton cannot carry or a
//! shape-tensor input. Which outputs are data-dependent is asked of an execution context (without memory of its
//! own) at profile 0's smallest shapes: their dimensions stay -1 there.
EngineIo describeEngine(nvinfer1::ICudaEngine& engine);

nvinfer1::Dims toDims(std::vector<int64_t> const& values);

//! "[-1,3,64,64]" for messages.
std::string dimsText(std::vector<int64_t> const& dims);

} // namespace kiln::triton
