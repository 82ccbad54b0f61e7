// A request read and checked against the model before it runs: its inputs' shapes and buffers, and the outputs it
// asks for. A request that fails the checks is answered with the error alone; the others still run.
#pragma once

#include "config_completion.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::triton
{

struct InputChunk
{
    void const* data{nullptr};
    uint64_t bytes{0};
    TRITONSERVER_MemoryType memory{TRITONSERVER_MEMORY_CPU};
};

struct RequestInput
{
    std::vector<int64_t> shape; //!< as sent: with the batch dimension when the model batches
    uint64_t bytes{0};
    std::vector<InputChunk> chunks; //!< the buffers the server holds it in, in order
};

struct PendingRequest
{
    TRITONBACKEND_Request* request{nullptr};
    int64_t batch{1};                 //!< rows of the batch dimension (1 when the model does not batch)
    std::vector<RequestInput> inputs; //!< in the order of ServedModel::inputs
    std::vector<size_t> outputs;      //!< indexes into ServedModel::outputs
};

//! Reads request and checks it against model: every input present once, of the model's type, with a shape the
//! engine's profile takes and as many bytes as that shape holds; every requested output served. A BackendError
//! (INVALID_ARG, or UNSUPPORTED for BYTES) says what is wrong with which tensor.
PendingRequest readRequest(TRITONBACKEND_Request* request, ServedModel const& model);

//! Whether a and b can run as one batch: the same shape for every input but for the batch dimension.
bool sameShapesButBatch(PendingRequest const& a, PendingRequest const& b);

} // namespace kiln::triton
