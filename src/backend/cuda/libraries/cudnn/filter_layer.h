// What the CUDA convolution and deconvolution layers share: weights uploaded once in the
// layer's data type, cuDNN descriptors and an algorithm prepared again only when the input
// shape changes, a workspace that grows to the largest shape run, and the bias.
#pragma once

#include "backend/cuda/device_layer.h"
#include "backend/cuda/libraries/cudnn/convolution_descriptors.h"
#include "backend/cuda/libraries/library_handles.h"
#include "backend/cuda/memory/device_buffer.h"
#include "backend/cuda/tuning/algorithm_choice.h"
#include "network/layers/convolution.h"

#include <string>

namespace kiln::cuda
{

class FilterLayer : public DeviceLayer
{
public:
    //! Checks the tensors against what the layer was made for, prepares for a new input shape, then computes.
    void run(
        std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs, cudaStream_t stream) final;

protected:
    //! `kind` names the layer in errors ("convolution"); `choice` is the builder's algorithm; the layer reads its
    //! input in `inputFormat` (kHWC8 pads the channels of a kHWC input). Uploads the bias; the subclass uploads its
    //! kernel.
    FilterLayer(char const* kind, network::WindowedFilterParams const& params, AlgorithmChoice choice,
        nvinfer1::DataType dataType, TensorFormat inputFormat, LibraryHandles& handles);

    //! Describes the layer at `inputShape` into mDescriptors and chooses its algorithm: the builder's where cuDNN
    //! takes it at this shape, else cuDNN's heuristics. Returns the workspace bytes the algorithm needs.
    virtual size_t prepare(Shape const& inputShape, cudnnHandle_t handle) = 0;

    //! Queues the layer's work; the workspace holds what prepare asked for.
    virtual void compute(
        std::vector<ConstTensorView> const& inputs, TensorView const& output, cudnnHandle_t handle, cudaStream_t stream)
        = 0;

    //! Adds the bias (if the layer has one) to `output`, which compute wrote.
    void addBias(cudnnHandle_t handle, TensorView const& output) const;

    //! The builder's per-call algorithm (mChoice) where cuDNN takes it at the described shape, else `heuristic()`'s
    //! (the builder timed at one shape; at another cuDNN may refuse its choice). Sets `algorithm` and returns the
    //! workspace bytes it needs.
    template <typename Algorithm, typename Heuristic>
    size_t storedOrHeuristic(cudnnHandle_t handle, Algorithm& algorithm, Heuristic heuristic) const
    {
        int64_t workspace = -1;
        if (mChoice.source == AlgorithmChoice::Source::kPER_CALL)
        {
            algorithm = static_cast<Algorithm>(mChoice.index);
            workspace = mDescriptors.workspaceBytes(handle, algorithm);
        }
        if (workspace < 0)
        {
            algorithm = heuristic();
            workspace = mDescriptors.workspaceBytes(handle, algorithm);
        }
        if (workspace < 0)
        {
            cannotSizeWorkspace();
        }
        return static_cast<size_t>(workspace);
    }

    //! The first of cuDNN's heuristic `candidates` (ranked by expected speed) that runs with the math type asked for.
    template <typename Performance>
    auto heuristicChoice(Performance const* candidates, int found) const
    {
        Performance const* const chosen = mDescriptors.firstAccepted(candidates, found);
        if (chosen == nullptr)
        {
            noAlgorithm();
        }
        return chosen->algo;
    }

    char const* const mKind;
    AlgorithmChoice const mChoice;
    nvinfer1::DataType const mDataType;
    TensorFormat const mInputFormat;
    TensorFormat const mFormat; //!< how the output (and a residual) are stored: kLINEAR or kHWC

    DeviceBuffer mKernel;
    DeviceBuffer mBias; //!< empty when the layer has no bias (a fused convolution gives zeros)
    DeviceBuffer mWorkspace;
    size_t mWorkspaceBytes{0};
    ConvolutionDescriptors mDescriptors;
    LibraryHandles& mHandles; //!< the context's cuDNN and cuBLASLt handles

private:
    //! Throw std::runtime_error naming the layer kind.
    [[noreturn]] void noAlgorithm() const;
    [[noreturn]] void cannotSizeWorkspace() const;

    Shape mPreparedShape; //!< the input shape the descriptors describe
};

} // namespace kiln::cuda
