// The builder's stopwatch for cuBLASLt: a matrix multiply's first heuristic choices run on the GPU at the layer's
// shapes, with its fused bias and ReLU, each whole and with its K split into parts, and the rank and parts of the
// fastest are kept (passes/product_tuning.h).
//
// Every timed run starts with a cold L2 cache: a buffer twice its size is written first, as Triton's benchmarks do
// for torch.compile's max-autotune. In a model a product's weights come from memory, its earlier layers having pushed
// them out of the L2; timed back to back, they sit in it, and that favours other algorithms: a choice timed so made
// BERT slower (docs/performance.md).
#pragma once

#include "backend/cuda/memory/device_buffer.h"
#include "backend/cuda/passes/product_tuning.h"

#include <NvInferRuntime.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <functional>

namespace kiln::cuda
{

class ProductTimer final : public ProductAlgorithmTimer
{
public:
    //! Buffers come from `allocator` (nullptr: Kiln's default). Throws std::runtime_error when cuBLASLt cannot start.
    explicit ProductTimer(nvinfer1::IGpuAllocator* allocator);
    ~ProductTimer() override;
    ProductTimer(ProductTimer const&) = delete;
    ProductTimer& operator=(ProductTimer const&) = delete;

    Result fastest(network::MatrixMultiplyParams const& params, plan::Epilogue const& epilogue, Shape const& input0,
        Shape const& input1, nvinfer1::DataType type) override;

private:
    //! `buffer`, grown to at least `bytes` (zeros: the values do not change the timing).
    DeviceBuffer& grown(DeviceBuffer& buffer, size_t bytes);
    //! The median time of `run` over a few runs on the default stream, each after the L2 cache was flushed, after one
    //! run that loads its kernels.
    float timeCold(std::function<void()> const& run);

    nvinfer1::IGpuAllocator* mAllocator;
    cublasLtHandle_t mHandle{nullptr};
    cudaEvent_t mStart{nullptr};
    cudaEvent_t mStop{nullptr};
    DeviceBuffer mInput0;
    DeviceBuffer mInput1;
    DeviceBuffer mOutput;
    DeviceBuffer mBias;
    DeviceBuffer mWorkspace;
    DeviceBuffer mFlush; //!< written before each timed run, to push the operands out of the L2 cache
};

} // namespace kiln::cuda
