// Building a plan from an ONNX model through Kiln's ONNX parser, with the build flags.
#pragma once

#include "options.h"

#include <NvInfer.h>

#include <memory>
#include <string>
#include <vector>

namespace kiln::cli
{

//! A layer of the parsed network and the tensors it writes, in network (topological) order.
struct LayerOutputs
{
    std::string layer;
    std::vector<std::string> tensors;
};

struct BuildRequest
{
    Backend backend{Backend::kCPU};
    bool fp16{false};
    //! Mark every layer's outputs as network outputs (--compareLayers), listing them in `layers`.
    bool markLayerOutputs{false};
    bool showProgress{false};
    CpuKernels cpuKernels{CpuKernels::kFAST}; //!< for CPU plans
};

//! Parses options.onnx and builds a plan per request. nullptr after logging why.
std::unique_ptr<nvinfer1::IHostMemory> buildFromOnnx(
    Options const& options, BuildRequest const& request, std::vector<LayerOutputs>* layers = nullptr);

} // namespace kiln::cli
