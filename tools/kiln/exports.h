// trtexec's JSON exports and dumps: --exportTimes, --exportOutput, --dumpOutput, --exportLayerInfo, --dumpLayerInfo.
#pragma once

#include "host_tensor.h"
#include "timing_loop.h"

#include <NvInferRuntime.h>

#include <string>
#include <vector>

namespace kiln::cli
{

//! [{"startEnqMs", "endEnqMs", "startH2dMs", "endH2dMs", "startComputeMs", "endComputeMs",
//!   "startD2hMs", "endD2hMs", "h2dMs", "computeMs", "d2hMs", "latencyMs"}, ...]
bool exportTimes(std::string const& path, std::vector<InferenceTrace> const& traces, std::string& error);

//! [{"name": ..., "dimensions": "1x10", "values": [...]}, ...]
bool exportOutputs(std::string const& path, std::vector<HostTensor> const& outputs, std::string& error);

//! "Output Tensors:", then per output its name, shape and values.
void dumpOutputs(std::vector<HostTensor> const& outputs);

//! IEngineInspector's JSON of the engine ({"Layers": [...], "Bindings": [...]}), with shapes of context.
bool exportLayerInfo(std::string const& path, nvinfer1::ICudaEngine const& engine,
    nvinfer1::IExecutionContext const* context, std::string& error);
//! The same JSON, printed after a "Layer Information:" line.
bool dumpLayerInfo(nvinfer1::ICudaEngine const& engine, nvinfer1::IExecutionContext const* context, std::string& error);

} // namespace kiln::cli
