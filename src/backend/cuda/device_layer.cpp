#include "backend/cuda/device_layer.h"

#include "backend/cuda/convolution_layer.h"
#include "backend/cuda/matrix_multiply_layer.h"

namespace kiln::cuda
{

std::unique_ptr<DeviceLayer> makeDeviceLayer(
    network::LayerParams const& params, nvinfer1::DataType dataType, LibraryHandles& handles)
{
    switch (params.type())
    {
    case nvinfer1::LayerType::kCONVOLUTION:
        return std::make_unique<ConvolutionLayer>(
            static_cast<network::ConvolutionParams const&>(params), dataType, handles);
    case nvinfer1::LayerType::kMATRIX_MULTIPLY:
        return std::make_unique<MatrixMultiplyLayer>(static_cast<network::MatrixMultiplyParams const&>(params), handles);
    default: return nullptr;
    }
}

} // namespace kiln::cuda
