#include "backend/cuda/layer_runner.h"

#include "backend/cuda/kernels.h"
#include "network/layers/layer_kinds.h"
#include "network/layer_type_name.h"

#include <exception>

namespace kiln::cuda
{

std::string unsupportedReason(network::LayerParams const& params)
{
    using nvinfer1::LayerType;
    switch (params.type())
    {
    case LayerType::kACTIVATION:
    case LayerType::kELEMENTWISE:
    case LayerType::kIDENTITY:
    case LayerType::kCAST:
    case LayerType::kCONSTANT: return {};
    default:
        return std::string("the CUDA backend has no kernel for ") + network::layerTypeName(params.type())
            + " layers yet (it runs Activation, ElementWise, Identity, Cast, Constant and plugin layers); build for "
              "the CPU backend";
    }
}

bool runLayer(network::LayerParams const& params, std::vector<cpu::ConstTensorView> const& in,
    std::vector<cpu::TensorView> const& out, void const* constantData, cudaStream_t stream, std::string& error)
{
    using nvinfer1::LayerType;
    try
    {
        switch (params.type())
        {
        case LayerType::kACTIVATION:
        {
            auto const& p = static_cast<network::ActivationParams const&>(params);
            activationOnDevice(p.activation, p.alpha, p.beta, in[0], out[0], stream);
            return true;
        }
        case LayerType::kELEMENTWISE:
            elementWiseOnDevice(static_cast<network::ElementWiseParams const&>(params).operation, in[0], in[1], out[0],
                stream);
            return true;
        case LayerType::kIDENTITY:
        case LayerType::kCAST: castOnDevice(in[0], out[0], stream); return true;
        case LayerType::kCONSTANT:
        {
            auto const& p = static_cast<network::ConstantParams const&>(params);
            castOnDevice(cpu::ConstTensorView(p.weights.type(), out[0].shape, constantData), out[0], stream);
            return true;
        }
        default: error = unsupportedReason(params); return false;
        }
    }
    catch (std::exception const& e)
    {
        error = e.what();
        return false;
    }
}

} // namespace kiln::cuda
