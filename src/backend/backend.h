// One interface for every backend (CPU, CUDA): whether it can run here, which built-in layers it runs, the build
// passes it applies to a plan made for it, and the executor that runs one execution context's layers. The builder
// and the runtime know backends only through this interface (finding one by kind in backend/choice/backends.h);
// nothing else in src/ includes CUDA.
#pragma once

#include "backend/calibration_buffer.h"
#include "backend/executor.h"
#include "backend/plugin_timer.h"
#include "backend/timing_cache.h"
#include "core/tensor_view.h"
#include "network/layer.h"
#include "plan/plan_model.h"

#include <kiln/Backend.h>
#include <kiln/ConvolutionLayout.h>
#include <kiln/CpuBackend.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln::backend
{

//! What a backend's build passes may use besides the plan: the builder configuration's choices, and the tensors'
//! shapes at the first profile's kOPT (what kernels are timed at).
struct PassOptions
{
    ConvolutionLayout convolutionLayout{ConvolutionLayout::kBY_TIMING};
    CpuKernels cpuKernels{CpuKernels::kFAST};
    TimingCache* timingCache{nullptr};           //!< the application's (IBuilderConfig::setTimingCache); nullptr: none
    bool errorOnTimingCacheMiss{false};          //!< BuilderFlag::kERROR_ON_TIMING_CACHE_MISS
    size_t workspaceLimit{0};                    //!< the workspace pool's limit, for the kernels timed
    nvinfer1::IGpuAllocator* allocator{nullptr}; //!< the builder's (IBuilder::setGpuAllocator); nullptr: Kiln's
    //! Tensor t's shape at the first profile's kOPT, for the network's tensors (not those a pass added).
    std::function<Shape(int32_t)> optShape;
    //! How many of the plan's tensors are the network's: optShape answers for these; a pass adds its tensors after.
    int32_t networkTensors{0};
    //! Every tensor left in memory becomes a debug tensor (markUnfusedTensorsAsDebugTensors, or a plan for INT8
    //! calibration), which a debug listener gets row-major: a pass that would store tensors in another layout for
    //! speed alone keeps them row-major.
    bool unfusedTensorsObserved{false};
};

class Implementation
{
public:
    virtual ~Implementation() = default;

    //! Whether plans for this backend can run (and their kernels be timed) on this machine now; else false with
    //! `why`. Plans build without it: a CUDA plan builds on a machine without a GPU.
    virtual bool usable(std::string& why) const = 0;

    //! Empty when this backend runs the built-in layer `params`; else why not, for the builder's error.
    virtual std::string unsupportedReason(network::LayerParams const& params) const = 0;

    //! Empty when this backend runs layer `layer` of a loaded plan as recorded; else why not, naming the layer. The
    //! runtime asks for every layer when it makes an engine, so that a record the plan's format allows but the kernel
    //! chosen for it cannot take (a layer marked for a kernel of fewer types) gives an error there, not a crash.
    virtual std::string refusedLayer(plan::PlanModel const& /*model*/, plan::LayerRecord const& /*layer*/) const
    {
        return {};
    }

    //! The backend's own passes over a plan recorded for it, in their order (its pass list: backend/pass_list.h):
    //! fusions, storage formats, kernels chosen by timing. False with `error` naming the layer when one fails. A pass
    //! that adds a tensor gives it its largest size (TensorRecord::maxBytes); the builder knows only the network's
    //! tensors.
    virtual bool optimize(plan::PlanModel& model, PassOptions const& options, std::string& error) const = 0;

    //! The names of the passes optimize applies, in their order, from the same list (`kiln inspect` prints them).
    virtual std::vector<char const*> passNames() const = 0;

    //! The executor of one execution context of `plan`, which lowers every layer to the backend's work and attaches
    //! the plan's plugins to the context (filling in `resources` first). Throws std::runtime_error naming the layer
    //! and the reason when it cannot be made.
    virtual std::unique_ptr<Executor> makeExecutor(
        LoadedPlan const& plan, plugin::ContextResources& resources) const = 0;

    //! Whether the output of a constant layer is the layer's weights themselves, where it is stored in their type
    //! and is not a network output: the builder gives it no activation memory, and contexts never run the layer
    //! (Executor::constantAddress gives its address). Saves a copy of every weight tensor (a BERT embedding table
    //! is 94 MB) at every run.
    virtual bool bindsConstants() const
    {
        return false;
    }

    //! Whether a context copies shape-tensor inputs (which the application gives in host memory, as TensorRT's) into
    //! its activation memory, for layers that read them in device memory.
    virtual bool copiesShapeInputs() const
    {
        return false;
    }

    //! Whether a context evaluates the layers that only compute shape tensors on the host (plan::computesShapesOnly,
    //! through Executor::writeShapeValues) rather than running them.
    virtual bool evaluatesShapesOnHost() const
    {
        return false;
    }

    //! Whether this backend's layer `l` of `model` reads the data of its input `input` in memory. Where no layer reads
    //! a shape tensor's data (its values are known on the host as expressions, and its readers take them from there)
    //! and the backend evaluates shape tensors on the host, the tensor gets no memory and is never written.
    virtual bool readsInputData(plan::PlanModel const& /*model*/, size_t /*l*/, size_t /*input*/) const
    {
        return true;
    }

    //! Whether layer `l` of `model`, which adds a residual (plan::Epilogue::addsResidual: its last input), may write
    //! its output over that input: where no later layer reads the residual, the builder then gives the output the
    //! residual's bytes, and the kernel adds the residual where it already lies instead of copying it first.
    virtual bool writesOverResidual(plan::PlanModel const& /*model*/, size_t /*l*/) const
    {
        return false;
    }

    //! Whether plans built with `options` make views of the layers that only re-describe memory (reshapes, slices of
    //! a contiguous block: builder/view_layers.h), which then run nothing.
    virtual bool makesViews(PassOptions const& /*options*/) const
    {
        return true;
    }

    //! What runs built-in layer `layer` of a plan for this backend, for the engine inspector ("TacticName"); empty
    //! where the backend does not say.
    virtual std::string tacticName(plan::LayerRecord const& /*layer*/) const
    {
        return {};
    }

    //! `bytes` of memory for one calibration input, where this backend's engines read their inputs (host memory
    //! unless the backend says otherwise); nullptr with `error` set where it cannot be allocated.
    virtual std::unique_ptr<CalibrationBuffer> makeCalibrationBuffer(size_t bytes, std::string& /*error*/) const
    {
        return std::make_unique<HostCalibrationBuffer>(bytes);
    }

    //! Whether the host can read and write the memory at `address`, which an application gave a plan that runs on the
    //! host but reports its I/O as device memory (the CPU backend with KILN_CPU_TENSOR_LOCATION=device): true for
    //! host and managed memory, and where this backend cannot tell (no usable device); false with `why` for memory
    //! only this backend's device reaches.
    virtual bool hostCanAccess(void const* /*address*/, std::string& /*why*/) const
    {
        return true;
    }

    //! Waits until the work queued on `stream` so far is done, so that such a plan reads what it wrote; false with
    //! `error` where it cannot.
    virtual bool waitForStream(cudaStream_t /*stream*/, std::string& /*error*/) const
    {
        return true;
    }

    //! What times a plugin's tactics in this backend's memory, for the builder to choose the fastest; nullptr with
    //! `why` where nothing can be timed on this machine now (a CUDA build without a GPU).
    virtual std::unique_ptr<PluginTimer> makePluginTimer(std::string& why) const
    {
        why = "this backend does not time plugins";
        return nullptr;
    }

    //! What makes timings taken for this backend comparable (timing caches record it): the device and the libraries'
    //! versions; empty where nothing is timed or no device is usable.
    virtual std::string deviceIdentity() const
    {
        return {};
    }
};

} // namespace kiln::backend
