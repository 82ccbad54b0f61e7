// Kiln extension: choosing the backend an engine is built for.
#pragma once

#include <NvInfer.h>

namespace kiln
{

enum class Backend : int32_t
{
    kDEFAULT = 0, //!< the environment variable KILN_BACKEND's choice (cpu or cuda) where it is set; else CUDA when
                  //!< Kiln was built with CUDA and a GPU is present, else CPU
    kCPU = 1,     //!< runs anywhere; the numerical reference. Tensor addresses are host memory.
    kCUDA = 2,    //!< NVIDIA GPUs. Tensor addresses are device memory, as in TensorRT.
};

//! Sets the backend that buildSerializedNetwork builds for. False if config is not Kiln's.
bool setBackend(nvinfer1::IBuilderConfig& config, Backend backend) noexcept;
Backend getBackend(nvinfer1::IBuilderConfig const& config) noexcept;
//! What kDEFAULT resolves to on this machine: what KILN_BACKEND names (cpu or cuda), so that an application written
//! for TensorRT runs on the backend its user chooses; where it is unset or empty, kCUDA where backendAvailable(kCUDA),
//! as in TensorRT, else kCPU. A KILN_BACKEND that names no backend fails the builds it would decide.
Backend defaultBackend() noexcept;
//! Whether plans for `backend` can be built and run here: kCPU always; kCUDA when Kiln was built with CUDA and a
//! GPU is usable.
bool backendAvailable(Backend backend) noexcept;
//! The backend's name: "cpu" or "cuda".
char const* backendName(Backend backend) noexcept;
//! How many build passes `backend` applies to a plan made for it, after those every backend shares (`kiln inspect`
//! lists them); 0 for a backend this build of Kiln lacks. kDEFAULT counts those of defaultBackend().
int32_t getNbBackendPasses(Backend backend) noexcept;
//! The name of build pass `index` of `backend`, in the order the backend applies them; nullptr where `index` is out of
//! range. Which passes change a plan depends on the builder's configuration (the CPU backend's apply to plans for
//! its fast path only, CpuKernels::kFAST).
char const* getBackendPassName(Backend backend, int32_t index) noexcept;

} // namespace kiln
