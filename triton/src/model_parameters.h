// The parameters a model's configuration gives Kiln's backend (config.pbtxt's `parameters`), checked and resolved.
#pragma once

#include "model_config.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kiln::triton
{

//! The shape of each named input, as a parameter such as max_shapes writes them: "image:8x3x64x64,mask:8x64".
using ShapeMap = std::map<std::string, std::vector<int64_t>>;

struct ModelParameters
{
    //! Plugin libraries to load before the model, as absolute paths: the backend's own (--backend-config), then the
    //! model's `plugins` parameter (';'-separated, relative paths resolved against the model's folder).
    std::vector<std::string> pluginLibraries;
    //! The precision ONNX models are built in: "FP32" (the default), "FP16" or "BF16" (kFP16, kBF16: layers may
    //! run in the lower precision where Kiln's builder chooses it).
    std::string precision{"FP32"};
    //! The optimization profile of ONNX models, per dynamic input (all three for an input, or none).
    ShapeMap minShapes;
    ShapeMap optShapes;
    ShapeMap maxShapes;
    //! Threads per KIND_CPU instance; 0 for the cores the server may use.
    int32_t cpuThreads{0};
    //! KIND_GPU instances replay CUDA graphs (the configuration's optimization { cuda { graphs: true } }).
    bool cudaGraphs{false};
    //! The most sets of input shapes an instance captures a graph for (`max_cuda_graphs`); others run directly.
    size_t maxCudaGraphs{16};
};

//! The parameters of config, with relative plugin paths resolved against modelDirectory; a BackendError naming the
//! parameter for an unknown key or a value that does not parse.
ModelParameters readModelParameters(
    ModelConfig const& config, std::string const& modelDirectory, BackendSettings const& backend);

//! "image:8x3x64x64" for messages and cache keys.
std::string shapeText(std::string const& name, std::vector<int64_t> const& dims);

} // namespace kiln::triton
