// The builder's stopwatch for INT8 convolutions (passes/quantized_convolution_tuning.h): the CUDA layer itself runs at
// the layer's input shape with Kiln's kernels, and the first engines cuDNN ranks for the layer's graph run beside it,
// each timed as a context would run it (a graph engine's kernels compiled when its plan is made, before its timing).
#pragma once

#include "backend/cuda/libraries/library_handles.h"
#include "backend/cuda/memory/device_buffer.h"
#include "backend/cuda/passes/quantized_convolution_tuning.h"
#include "backend/cuda/tuning/event_stopwatch.h"

#include <NvInferRuntime.h>

namespace kiln::cuda
{

class QuantizedConvolutionTimer final : public QuantizedConvolutionAlgorithmTimer
{
public:
    //! Buffers come from `allocator` (nullptr: Kiln's default). Throws std::runtime_error when CUDA cannot time.
    explicit QuantizedConvolutionTimer(nvinfer1::IGpuAllocator* allocator);

    Result fastest(network::QuantizedConvolutionParams const& params, Shape const& inputShape) override;

private:
    nvinfer1::IGpuAllocator* mAllocator;
    EventStopwatch mStopwatch;
    LibraryHandles mHandles;
    DeviceBuffer mScratch; //!< the layers' shared scratch, and the graph engines' workspace
    DeviceBuffer mInput;
    DeviceBuffer mResidual;
    DeviceBuffer mOutput;
};

} // namespace kiln::cuda
