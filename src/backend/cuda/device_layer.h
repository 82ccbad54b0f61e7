// Built-in layers that keep state on the device for one execution context (uploaded
// weights, library descriptors, algorithm choices): made once per context, run for
// every inference. Stateless layers go through layer_runner.h instead.
#pragma once

#include "core/tensor_view.h"
#include "backend/cuda/library_handles.h"
#include "network/layer.h"
#include "plan/plan_model.h"

#include <memory>
#include <vector>

namespace kiln::cuda
{

class DeviceLayer
{
public:
    virtual ~DeviceLayer() = default;
    //! Queues the layer's work on `stream`. Throws std::invalid_argument or std::runtime_error saying what is wrong.
    virtual void run(std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs,
        cudaStream_t stream)
        = 0;
};

//! The stateful implementation of plan layer `record` for data of type `dataType` stored in `format` (as the layer
//! reads its first input), or nullptr when the layer is stateless. Throws std::runtime_error when it cannot be made.
std::unique_ptr<DeviceLayer> makeDeviceLayer(plan::LayerRecord const& record, nvinfer1::DataType dataType,
    TensorFormat format, LibraryHandles& handles);

} // namespace kiln::cuda
