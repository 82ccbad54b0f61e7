// The inputs an inference runs on: their shapes (--shapes, else the plan's own or its profile's
// opt shape) and their values (--loadInputs files; a shape-tensor input's from --shapes, as trtexec reads them, or
// its profile's opt values; else deterministic random values).
#pragma once

#include "host_tensor.h"
#include "options.h"

#include <NvInferRuntime.h>

#include <string>
#include <vector>

namespace kiln::cli
{

//! One HostTensor per input of engine, in I/O order. False with error naming the flag, tensor or file.
bool makeInputs(
    nvinfer1::ICudaEngine const& engine, Options const& options, std::vector<HostTensor>& inputs, std::string& error);

//! Reads a raw binary file holding exactly tensor's bytes (trtexec's --loadInputs format).
bool readRawTensor(std::string const& path, HostTensor& tensor, std::string& error);

} // namespace kiln::cli
