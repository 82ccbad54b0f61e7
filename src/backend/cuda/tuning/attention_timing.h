// The builder's stopwatch for attention (passes/attention_tuning.h): the CUDA attention layer itself runs at the
// layer's shapes, once with the choice of cuDNN's fused attention and once with Kiln's kernel, so that each is timed
// as a context would run it (cuDNN's plan made, and its kernels compiled, in the untimed first run).
#pragma once

#include "backend/cuda/libraries/library_handles.h"
#include "backend/cuda/memory/device_buffer.h"
#include "backend/cuda/passes/attention_tuning.h"
#include "backend/cuda/tuning/event_stopwatch.h"

#include <NvInferRuntime.h>

#include <array>

namespace kiln::cuda
{

class AttentionTimer final : public AttentionAlgorithmTimer
{
public:
    //! Buffers come from `allocator` (nullptr: Kiln's default). Throws std::runtime_error when CUDA cannot time.
    explicit AttentionTimer(nvinfer1::IGpuAllocator* allocator);

    Result fastest(network::AttentionParams const& params, AttentionOperandShapes const& shapes) override;

private:
    //! The layer's time, run as `choice` says (cuDNN's or Kiln's); where it asked for cuDNN's, `onCudnn` says
    //! whether cuDNN took the shapes.
    float timeLayer(network::AttentionParams const& params, AlgorithmChoice const& choice, bool& onCudnn);

    nvinfer1::IGpuAllocator* mAllocator;
    EventStopwatch mStopwatch;
    LibraryHandles mHandles;
    DeviceBuffer mScratch;                 //!< the layers' shared scratch (the attention layer takes none)
    std::array<DeviceBuffer, 4> mOperands; //!< query, keys, values, output
    AttentionOperandShapes mShapes;        //!< the shapes being timed
};

} // namespace kiln::cuda
