// The lifecycle of TensorRT's plans, for every plugin of the collection: a plan built by one process lists the
// plugin among those it needs, and another process (the kiln command, which finds the plugin through the registry
// only) loads it and computes the same outputs.
#pragma once

#include "host_tensor.h"

#include <NvInfer.h>
#include <kiln/Backend.h>

#include <string>
#include <vector>

namespace kiln::test
{

//! Runs `kiln inspect` and `kiln --loadEngine` on `plan` (one plugin layer named by `pluginName` and `version`, on
//! network inputs "input0"..., outputs "output0"...) and expects the manifest to list the plugin and the loaded plan
//! to give `outputs` for `inputs`: the very same values on the CPU backend, within 1e-6 on CUDA. Checks each plugin
//! name, version and backend once per test program, and skips plans with empty tensors (kiln reads no empty files).
void checkPlanInAnotherProcess(kiln::Backend backend, std::string const& pluginName, std::string const& version,
    nvinfer1::IHostMemory const& plan, std::vector<HostTensor> const& inputs, std::vector<HostTensor> const& outputs);

} // namespace kiln::test
