// Building a Kiln plan from a model version's ONNX file, and keeping it beside the file: the plan is built once and
// read back on later loads, until the ONNX file or anything else the build depends on changes.
#pragma once

#include "model_parameters.h"

#include <kiln/Backend.h>

#include <cstdint>
#include <string>

namespace kiln::triton
{

struct OnnxBuildRequest
{
    std::string onnxPath;
    Backend backend{Backend::kCPU};
    ModelParameters parameters;
    //! > 0 when the model batches: an input's dynamic first dimension ranges over [1, batchMax] (kOPT at batchMax,
    //! the size dynamic batching aims for) unless min_shapes etc. give its range.
    int64_t batchMax{0};
    //! The configuration's dims of each input, the batch dimension included (as -1) when the model batches: a
    //! dynamic dimension of the ONNX input that the configuration fixes is built at that size.
    ShapeMap configDims;
};

struct BuiltPlan
{
    std::string bytes;
    bool fromCache{false};
};

//! The plan for request: the cached one when its key (the ONNX file's hash and every build setting) matches,
//! else built and, where the folder can be written, cached as "<onnx file>.<backend>.plan" with its key beside it in
//! "<...>.plan.key". rebuild ignores the cache (for a cached plan the runtime refused).
BuiltPlan planForOnnx(OnnxBuildRequest const& request, bool rebuild);

} // namespace kiln::triton
