// The CUDA backend's kernel for every layer kind it runs. A kind is run on the GPU when this header declares, for its
// parameter struct (network/layers/layer_kinds.h), either
//   - a stateless kernel: `void run(Params const&, LayerInputs const&, LayerOutputs const&, cudaStream_t)`, or
//   - a layer with state kept per execution context (uploaded weights, library descriptors, scratch, or the checks,
//     launch grid and kernel arguments of a PreparedKernelLayer, computed once per shape and addresses rather than
//     at every run): `std::unique_ptr<DeviceLayer> lower(Params const&, LayerContext const&)`;
// each defined beside its kernel. The dispatch (layer_lowering.h) finds them from these declarations alone.
// Kernels queue their work on the stream and return at once; the views describe device memory. They throw
// std::invalid_argument for types or shapes they do not take, before anything is queued.
#pragma once

#include "backend/cuda/device_layer.h"
#include "backend/cuda/libraries/library_handles.h"
#include "backend/cuda/memory/device_buffer.h"
#include "network/layers/layer_kinds.h"
#include "plan/plan_model.h"

#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

namespace kiln::cuda
{

using LayerInputs = std::vector<ConstTensorView>;
using LayerOutputs = std::vector<TensorView>;

//! What a layer with state is made from, once per execution context.
struct LayerContext
{
    plan::LayerRecord const& record; //!< the plan's layer: its epilogue and the builder's algorithm choice
    nvinfer1::DataType dataType;     //!< the type the layer reads its first input in
    TensorFormat format;             //!< and the format
    LibraryHandles& handles;         //!< the context's cuDNN and cuBLASLt handles
    //! Scratch memory the context's layers share, each only while its own work runs on the context's stream (one
    //! stream runs a context's layers in order): the quantized convolutions' rows of taps and INT32 sums, which are
    //! as large as activations and are needed by one layer at a time.
    DeviceBuffer& sharedScratch;
};

//! The longest point-wise chain the CUDA kernel runs, in steps and in inputs: its program is the kernel's argument.
constexpr int32_t kMaxPointwiseSteps = 32;
constexpr int32_t kMaxPointwiseInputs = 16;

//! The largest depth (of query and keys, and of values) the attention kernel takes.
constexpr int64_t kMaxAttentionDepth = 128;

//! Kiln's attention kernels (kernels/attention/), which the attention layer runs where cuDNN does not
//! (libraries/cudnn/attention_layer.h).
void runAttentionKernel(network::AttentionParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream);

// Stateless kernels.
void run(network::CumulativeParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream);
void run(
    network::FillParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream);
void run(network::FusedNormalizationParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream);
void run(
    network::GatherParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream);
void run(network::GridSampleParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream);
void run(
    network::OneHotParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream);
void run(
    network::ResizeParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream);
void run(
    network::QuantizeParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream);
void run(network::DequantizeParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream);
void run(network::ReverseSequenceParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream);
void run(
    network::ScatterParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream);
void run(
    network::SelectParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream);

// Layers with state per execution context, and kernels whose checks, grid and arguments are prepared once per shape
// and addresses (prepared_kernel_layer.h).
std::unique_ptr<DeviceLayer> lower(network::ActivationParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::AttentionParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::CastParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::ConcatenationParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::ElementWiseParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::IdentityParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::LRNParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::NormalizationParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::PaddingParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::ParametricReLUParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::PointwiseParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::PoolingParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::ShuffleParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::SliceParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::SoftMaxParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::UnaryParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::ConstantParams const& params, LayerContext const& context);
//! A constant layer's weights in device memory (from the allocator in scope), as they are stored in the plan.
DeviceBuffer uploadWeights(network::ConstantParams const& params);
std::unique_ptr<DeviceLayer> lower(network::ConvolutionParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::DeconvolutionParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::MatrixMultiplyParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::NMSParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::NonZeroParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::QuantizedConvolutionParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::QuantizedMatrixMultiplyParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::RecurrentSequenceParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::RecurrentSequencePairParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::ReduceParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::ScaleParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::TopKParams const& params, LayerContext const& context);

} // namespace kiln::cuda
