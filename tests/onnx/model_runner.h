// Runs an ONNX model through Kiln as an application would: the parser, the builder (with the inputs' shapes as the
// only optimization profile), the runtime, one enqueueV3 on the CPU or the CUDA backend. The ONNX model runner
// (onnx_run_model, for the Python tests) and the model zoo's test use it.
#pragma once

#include "host_tensor.h"
#include "plan/plan_model.h"

#include <NvInfer.h>
#include <kiln/Backend.h>

#include <functional>
#include <string>
#include <vector>

namespace kiln::test
{

struct ModelRun
{
    std::vector<HostTensor> outputs; //!< the network's outputs in its order, after a successful run
    //! Empty after a successful run; else what failed: the parser's errors, the builder's and runtime's logged
    //! errors, the run's. With `skipped`, why the backend cannot run here.
    std::string error;
    bool skipped{false}; //!< the backend cannot run on this machine (no CUDA backend or no usable GPU)
};

//! A change made to the built plan before it runs (a build pass tried on a backend that does not run it itself). A
//! CPU plan so changed is built for the reference kernels, every layer as written.
using PlanRewrite = std::function<void(plan::PlanModel&)>;

//! Parses `modelPath` and runs it on `inputs` (the network inputs in the graph's order), its plan changed by
//! `rewrite` where one is given, built with `flags` set in the builder's configuration (kFP16...). CUDA errors,
//! unreadable files and the like are reported in ModelRun::error, never thrown.
ModelRun runOnnxModel(std::string const& modelPath, std::vector<HostTensor> const& inputs, kiln::Backend backend,
    PlanRewrite const& rewrite = {}, std::vector<nvinfer1::BuilderFlag> const& flags = {});

} // namespace kiln::test
