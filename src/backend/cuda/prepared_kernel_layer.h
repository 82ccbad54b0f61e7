// A device layer whose host work is done once per shape and addresses, not at every run: the checks of the tensors,
// the launch grid and the kernel's arguments are computed by prepare() when the views the layer is given differ
// from those of its last run (the first run, new input shapes, tensors at new addresses), and a run in steady state
// only compares the views and launches (issue 16's host path: eager enqueue close to a CUDA graph's replay).
#pragma once

#include "backend/cuda/device_layer.h"

#include <cuda_runtime_api.h>

#include <vector>

namespace kiln::cuda
{

//! The views a layer was last prepared for, kept to tell whether the next run's are the same. Keeping them again
//! at the same ranks reuses the memory already held: re-preparing allocates nothing once every rank has been seen.
class ViewSnapshot
{
public:
    //! Whether `inputs` and `outputs` are the views taken last (same types, formats, shapes and addresses).
    bool matches(std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs) const;
    void take(std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs);
    //! Matches nothing until the next take.
    void forget()
    {
        mValid = false;
    }

private:
    std::vector<ConstTensorView> mInputs;
    std::vector<TensorView> mOutputs;
    bool mValid{false};
};

class PreparedKernelLayer : public DeviceLayer
{
public:
    //! Prepares for these views where they differ from the last run's, then launches.
    void run(
        std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs, cudaStream_t stream) final;

protected:
    //! Checks the tensors and computes what launch() needs. Throws std::invalid_argument (as run does) for types or
    //! shapes the layer does not take; it is then called again at the next run. It must not allocate where it can
    //! help it: views at new addresses at every run (double buffering) prepare at every run.
    virtual void prepare(std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs) = 0;
    //! Queues the prepared work on `stream`. Throws std::runtime_error if CUDA refuses it.
    virtual void launch(cudaStream_t stream) = 0;

private:
    ViewSnapshot mViews;
};

} // namespace kiln::cuda
