// What each backend of this build can do: the builder asks before it writes a plan,
// the runtime before it loads one.
#pragma once

#include "core/tensor_view.h"
#include "network/layer.h"
#include "network/layers/convolution.h"

#include <kiln/Backend.h>

#include <memory>
#include <string>

namespace kiln
{

//! Whether this build of Kiln includes the CUDA backend (it was built with KILN_WITH_CUDA).
bool cudaBackendBuilt();

//! Whether a CUDA GPU can be used now; else false with `why`.
bool cudaDeviceUsable(std::string& why);

//! Empty when `backend` can run the built-in layer; else why it cannot.
std::string unsupportedOnBackend(network::LayerParams const& params, Backend backend);

//! The builder's stopwatch for CUDA convolutions (cuda::ConvolutionTimer).
class CudaConvolutionTimer
{
public:
    struct Result
    {
        int32_t algorithm{-1}; //!< a cudnnConvolutionFwdAlgo_t, or a cudnnConvolutionBwdDataAlgo_t
        float milliseconds{0};
    };
    virtual ~CudaConvolutionTimer() = default;
    //! The fastest cuDNN algorithm for `params` on an input of `inputShape` in `type`, stored in `format`, whose
    //! workspace fits in `workspaceLimit` bytes. Throws std::runtime_error (or std::invalid_argument) saying why none
    //! can be timed.
    virtual Result fastest(network::ConvolutionParams const& params, Shape const& inputShape,
        nvinfer1::DataType type, TensorFormat format, size_t workspaceLimit)
        = 0;
    //! The same for deconvolution `params` (kLINEAR): the fastest of cuDNN's backward-data algorithms.
    virtual Result fastestDeconvolution(network::DeconvolutionParams const& params, Shape const& inputShape,
        nvinfer1::DataType type, size_t workspaceLimit)
        = 0;
};

//! A timer on the current GPU whose buffers come from `allocator` (nullptr: Kiln's default); nullptr with `why`
//! where there is no GPU, or no CUDA backend.
std::unique_ptr<CudaConvolutionTimer> makeCudaConvolutionTimer(nvinfer1::IGpuAllocator* allocator, std::string& why);

//! What makes timings on this machine's GPU comparable: its name, compute capability and the cuDNN version; empty
//! where no GPU is usable. Timing caches record it.
std::string cudaDeviceIdentity();

} // namespace kiln
