#include "backend/cuda/device_layer.h"

#include "backend/cuda/convolution_layer.h"
#include "backend/cuda/deconvolution_layer.h"
#include "backend/cuda/matrix_multiply_layer.h"
#include "backend/cuda/topk.h"

namespace kiln::cuda
{

std::unique_ptr<DeviceLayer> makeDeviceLayer(plan::LayerRecord const& record, nvinfer1::DataType dataType,
    TensorFormat format, LibraryHandles& handles)
{
    network::LayerParams const& params = *record.params;
    switch (params.type())
    {
    case nvinfer1::LayerType::kCONVOLUTION:
        return std::make_unique<ConvolutionLayer>(static_cast<network::ConvolutionParams const&>(params),
            record.epilogue, AlgorithmChoice::decode(record.backendChoice), dataType, format, handles);
    case nvinfer1::LayerType::kDECONVOLUTION:
        return std::make_unique<DeconvolutionLayer>(static_cast<network::DeconvolutionParams const&>(params),
            AlgorithmChoice::decode(record.backendChoice), dataType, handles);
    case nvinfer1::LayerType::kMATRIX_MULTIPLY:
        return std::make_unique<MatrixMultiplyLayer>(
            static_cast<network::MatrixMultiplyParams const&>(params), record.epilogue, dataType, handles);
    case nvinfer1::LayerType::kTOPK: return std::make_unique<TopKLayer>(static_cast<network::TopKParams const&>(params));
    default: return nullptr;
    }
}

} // namespace kiln::cuda
