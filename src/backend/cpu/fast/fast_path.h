// The CPU backend's fast path: layers that oneDNN runs, beside the reference kernels. The builder marks the layers
// of a plan built for it (CpuKernels::kFAST) with runsLayer; an execution context makes one Kernel per marked layer
// and runs the reference kernel for the others. In a Kiln built without oneDNN nothing is marked, and layers a
// plan marks run on the reference kernels.
#pragma once

#include "backend/cpu/layer_kernels.h"
#include "network/fused/recurrent_sequence.h"
#include "network/layers/activation.h"
#include "plan/plan_model.h"

#include <cstdint>
#include <memory>

namespace kiln::cpu::fast
{

//! Whether the fast path runs `layer` of `model` (built-in, FP32 throughout or, for a quantized convolution, INT8 where
//! its description says, parameters it supports, kLINEAR or kHWC where channelsLastUse says it takes it).
bool runsLayer(plan::PlanModel const& model, plan::LayerRecord const& layer);

//! How the fast path's kernel of a layer takes channels-last (kHWC) tensors of [N, C, H, W], which the CPU backend's
//! storage-format pass reads (backend/cpu/passes/channels_last.h). Every kernel that takes them takes kLINEAR too.
enum class ChannelsLastUse : uint8_t
{
    kNO, //!< reads and writes kLINEAR tensors only
    //! a 2-D convolution (oneDNN's fastest kernels here are channels-last, so a region starts at it), a permute that
    //! moves the channels back from a row-major [N, H, W, C] (its channels-last output's bytes are the input's)
    kSTARTS,
    //! reads each input as it is stored and writes its output either way (pooling, arithmetic, point-wise chains)
    kCONTINUES,
    //! computes the same in either format (activations element by element, a normalization of whole samples sample
    //! by sample): reads its data (its first input) in its output's format, its other inputs (one value) as stored
    kKEEPS,
    //! reads kHWC, writes kLINEAR: a reduction of both spatial axes (a global pooling), a permute that moves the
    //! channels last (its output's bytes are the input's as stored)
    kREADS,
};

//! How the fast path's kernel of `layer`, which runsLayer marks, takes channels-last tensors.
ChannelsLastUse channelsLastUse(plan::PlanModel const& model, plan::LayerRecord const& layer);

//! Marks `layer` for the fast path (the builder, where runsLayer), and says whether a layer is marked.
void mark(plan::LayerRecord& layer);
bool isMarked(plan::LayerRecord const& layer);

//! Whether the fast path runs element-wise, activation or unary `layer` of `model` inside a fused point-wise chain
//! (plan/passes/pointwise_fusion.h): built-in and FP32 throughout, as every layer it runs.
bool joinsPointwiseChain(plan::PlanModel const& model, plan::LayerRecord const& layer);

//! Whether the fast path's convolutions and matrix multiplies apply `activation` as their fused epilogue.
bool fusesActivation(network::ActivationParams const& activation);

//! Whether the fast path's convolutions apply `activation` as their fused epilogue: fusesActivation's, and hard
//! sigmoid, which needs two of oneDNN's post-ops.
bool convolutionFusesActivation(network::ActivationParams const& activation);
//! Whether the fast path's convolutions apply `activation` self-gated, x * f(x), as their fused epilogue (SiLU from
//! sigmoid, hard-swish from ONNX's hard sigmoid).
bool convolutionFusesSelfGated(network::ActivationParams const& activation);

//! Whether the fast path's recurrent sequence kernel computes `cell`'s activations (those vector_functions.h
//! vectorises): where it does, the CPU backend fuses the loops of such cells into one layer.
bool runsRecurrentCell(network::RecurrentSequenceParams const& cell);

//! One layer's oneDNN work. Its primitives and laid-out weights are made on the first run at a shape and thread
//! count, and kept for the next runs at them.
class Kernel
{
public:
    virtual ~Kernel() = default;
    //! Runs the layer on tensors shaped by inference (FP32, INT8 where a quantized layer reads or writes it), its
    //! epilogue included: kLINEAR, or kHWC where its kind takes it (channelsLastUse) and the plan says so. Throws
    //! std::exception saying what failed.
    virtual void run(LayerInputs const& inputs, LayerOutputs const& outputs) = 0;
    //! Offered when the context is made: the values input `input` holds at every run (FP32, kept by the plan). A
    //! kernel that takes them (returns true) reads them from here, never from that input at a run.
    virtual bool takeConstantInput(size_t /*input*/, ConstTensorView const& /*values*/)
    {
        return false;
    }
};

//! What one execution context's fast kernels share: oneDNN's engine and stream, and the thread count.
class Session
{
public:
    Session();
    ~Session();
    Session(Session const&) = delete;
    Session& operator=(Session const&) = delete;

    //! Whether this build of Kiln has the fast path.
    static bool available();

    //! The kernel of `layer`, which runsLayer marked; nullptr where this build has no fast path or where it leaves
    //! the layer to the reference kernels on this CPU (leavesToReference).
    std::unique_ptr<Kernel> makeKernel(plan::LayerRecord const& layer);

    //! The most threads the layers run on; 0: the cores this process may use.
    void setThreads(int32_t threads);
    int32_t threads() const;
    //! The threads of the runs from now on, at most threads() (cpu/thread_choice.h chooses); 0: threads().
    void setRunThreads(int32_t threads);

    //! Runs `kernel` on the runs' threads. Throws std::exception saying what failed (oneDNN's errors named so).
    void run(Kernel& kernel, LayerInputs const& inputs, LayerOutputs const& outputs) const;

    struct State;

private:
    std::unique_ptr<State> mState;
};

//! Whether a layer runsLayer marks runs on the reference kernels all the same on this CPU: INT8 products where
//! oneDNN's would saturate (onednn.h's int8ProductsExact). Plans stay the same on every CPU.
bool leavesToReference(plan::LayerRecord const& layer);

//! The cores this process may run on (its CPU affinity), at least 1.
int32_t availableCores();

} // namespace kiln::cpu::fast
