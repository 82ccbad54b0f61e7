// The CUDA backend's kernel for every layer kind it runs. A kind is run on the GPU when this header declares, for its
// parameter struct (network/layers/layer_kinds.h), either
//   - a stateless kernel: `void run(Params const&, LayerInputs const&, LayerOutputs const&, cudaStream_t)`, or
//   - a layer with state kept per execution context (uploaded weights, library descriptors, scratch):
//     `std::unique_ptr<DeviceLayer> lower(Params const&, LayerContext const&)`;
// each defined beside its kernel. The dispatch (layer_lowering.h) finds them from these declarations alone.
// Kernels queue their work on the stream and return at once; the views describe device memory. They throw
// std::invalid_argument for types or shapes they do not take, before anything is queued.
#pragma once

#include "backend/cuda/device_buffer.h"
#include "backend/cuda/device_layer.h"
#include "backend/cuda/library_handles.h"
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
};

//! The longest point-wise chain the CUDA kernel runs, in steps and in inputs: its program is the kernel's argument.
constexpr int32_t kMaxPointwiseSteps = 32;
constexpr int32_t kMaxPointwiseInputs = 16;

//! The largest depth (of query and keys, and of values) the attention kernel takes.
constexpr int64_t kMaxAttentionDepth = 128;

// Stateless kernels.
void run(network::ActivationParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream);
void run(network::AttentionParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream);
void run(
    network::CastParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream);
void run(network::ConcatenationParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream);
void run(network::CumulativeParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream);
void run(network::ElementWiseParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
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
    network::IdentityParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream);
void run(network::NormalizationParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream);
void run(
    network::OneHotParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream);
void run(
    network::PaddingParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream);
void run(network::PointwiseParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream);
void run(network::ParametricReLUParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream);
void run(
    network::PoolingParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream);
void run(
    network::ResizeParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream);
void run(network::ReverseSequenceParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream);
void run(
    network::ScatterParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream);
void run(
    network::SelectParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream);
void run(
    network::ShuffleParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream);
void run(
    network::SliceParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream);
void run(
    network::SoftMaxParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream);
void run(
    network::UnaryParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream);

// Layers with state per execution context.
std::unique_ptr<DeviceLayer> lower(network::ConstantParams const& params, LayerContext const& context);
//! A constant layer's weights in device memory (from the allocator in scope), as they are stored in the plan.
DeviceBuffer uploadWeights(network::ConstantParams const& params);
std::unique_ptr<DeviceLayer> lower(network::ConvolutionParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::DeconvolutionParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::MatrixMultiplyParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::NMSParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::NonZeroParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::ReduceParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::ScaleParams const& params, LayerContext const& context);
std::unique_ptr<DeviceLayer> lower(network::TopKParams const& params, LayerContext const& context);

} // namespace kiln::cuda
