// The builder's tactic choice for CUDA convolutions and deconvolutions: each one's cuDNN
// algorithm is timed on the GPU at its input's shape in the first profile's kOPT (or found in
// the timing cache) and stored in the plan, so that contexts run the fastest algorithm
// without searching.
#pragma once

#include "backend/cuda/tuning/algorithm_choice.h"
#include "backend/timing_cache.h"
#include "core/tensor_view.h"
#include "network/layers/convolution.h"
#include "plan/plan_model.h"

#include <functional>
#include <string>

namespace kiln::cuda
{

//! The builder's stopwatch for cuDNN's convolution algorithms (ConvolutionTimer on the GPU; tests stand in for it).
class AlgorithmTimer
{
public:
    struct Result
    {
        AlgorithmChoice choice;
        float milliseconds{0};
    };
    virtual ~AlgorithmTimer() = default;
    //! The fastest cuDNN algorithm for `params` with the fused `epilogue` on an input of `inputShape` in `type`,
    //! stored in `format`, whose workspace fits in `workspaceLimit` bytes. Throws std::runtime_error (or
    //! std::invalid_argument) saying why none can be timed.
    virtual Result fastest(network::ConvolutionParams const& params, plan::Epilogue const& epilogue,
        Shape const& inputShape, nvinfer1::DataType type, TensorFormat format, size_t workspaceLimit)
        = 0;
    //! The same for deconvolution `params` (kLINEAR): the fastest of cuDNN's backward-data algorithms.
    virtual Result fastestDeconvolution(network::DeconvolutionParams const& params, Shape const& inputShape,
        nvinfer1::DataType type, size_t workspaceLimit)
        = 0;
};

struct ConvolutionTuning
{
    backend::TimingCache& cache;
    AlgorithmTimer* timer{nullptr}; //!< nullptr where no GPU is usable: only cached choices are taken
    std::string device;             //!< the CUDA backend's deviceIdentity(): the timer's GPU
    size_t workspaceLimit{0};
    bool errorOnCacheMiss{false}; //!< BuilderFlag::kERROR_ON_TIMING_CACHE_MISS
};

//! Sets the cuDNN algorithm of every convolution and deconvolution in `model` (its backend choice); `optShape(t)` is
//! tensor t's shape at the first profile's kOPT. Returns false with `error` naming the layer when timing fails or, with
//! errorOnCacheMiss, when the cache lacks a configuration.
bool tuneConvolutions(plan::PlanModel& model, std::function<Shape(int32_t)> const& optShape,
    ConvolutionTuning const& tuning, std::string& error);

//! Whether the convolutions chooseChannelsLast stored channels-last in `model` run faster so, in sum, than linear,
//! by their timings at the first profile's kOPT (timed now, or found in the cache; both kept in the cache). So
//! TensorRT chooses formats by timing: channels-last wins for FP16 at large batches, but cuDNN's linear kernels
//! can win at batch 1. `faster` is true where nothing can answer (no GPU and no cache entry, or a layout cuDNN cannot
//! time). False with `error` when the cache misses under kERROR_ON_TIMING_CACHE_MISS.
bool channelsLastIsFaster(plan::PlanModel const& model, std::function<Shape(int32_t)> const& optShape,
    ConvolutionTuning const& tuning, bool& faster, std::string& error);

} // namespace kiln::cuda
