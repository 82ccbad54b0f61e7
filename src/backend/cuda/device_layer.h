// Built-in layers that keep state on the device for one execution context (uploaded
// weights, library descriptors, algorithm choices): made once per context, run for
// every inference. Stateless layers go through layer_runner.h instead.
#pragma once

#include "backend/cpu/tensor_view.h"
#include "network/layer.h"

#include <cublas_v2.h>
#include <cudnn.h>

#include <memory>
#include <vector>

namespace kiln::cuda
{

//! cuDNN and cuBLAS handles of one execution context, made when a layer first needs them.
class LibraryHandles
{
public:
    LibraryHandles() = default;
    ~LibraryHandles();
    LibraryHandles(LibraryHandles const&) = delete;
    LibraryHandles& operator=(LibraryHandles const&) = delete;

    //! The handle, bound to `stream`. Throws std::runtime_error if the library cannot start.
    cudnnHandle_t cudnn(cudaStream_t stream);
    cublasHandle_t cublas(cudaStream_t stream);

private:
    cudnnHandle_t mCudnn{nullptr};
    cublasHandle_t mCublas{nullptr};
};

class DeviceLayer
{
public:
    virtual ~DeviceLayer() = default;
    //! Queues the layer's work on `stream`. Throws std::invalid_argument or std::runtime_error saying what is wrong.
    virtual void run(std::vector<cpu::ConstTensorView> const& inputs, std::vector<cpu::TensorView> const& outputs,
        cudaStream_t stream)
        = 0;
};

//! The stateful implementation of `params` for data of type `dataType` (the type the layer reads), or nullptr when
//! the layer is stateless. Throws std::runtime_error when it cannot be made.
std::unique_ptr<DeviceLayer> makeDeviceLayer(
    network::LayerParams const& params, nvinfer1::DataType dataType, LibraryHandles& handles);

} // namespace kiln::cuda
