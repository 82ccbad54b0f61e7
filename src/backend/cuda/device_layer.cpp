#include "backend/cuda/device_layer.h"

#include "backend/cuda/convolution_layer.h"
#include "backend/cuda/deconvolution_layer.h"
#include "backend/cuda/matrix_multiply_layer.h"
#include "backend/cuda/topk.h"

namespace kiln::cuda
{

std::unique_ptr<DeviceLayer> makeDeviceLayer(network::LayerParams const& params, nvinfer1::DataType dataType,
    TensorFormat format, LibraryHandles& handles)
{
    switch (params.type())
    {
    case nvinfer1::LayerType::kCONVOLUTION:
        return std::make_unique<ConvolutionLayer>(
            static_cast<network::ConvolutionParams const&>(params), dataType, format, handles);
    case nvinfer1::LayerType::kDECONVOLUTION:
        return std::make_unique<DeconvolutionLayer>(
            static_cast<network::DeconvolutionParams const&>(params), dataType, handles);
    case nvinfer1::LayerType::kMATRIX_MULTIPLY:
        return std::make_unique<MatrixMultiplyLayer>(
            static_cast<network::MatrixMultiplyParams const&>(params), dataType, handles);
    case nvinfer1::LayerType::kTOPK: return std::make_unique<TopKLayer>(static_cast<network::TopKParams const&>(params));
    default: return nullptr;
    }
}

} // namespace kiln::cuda
