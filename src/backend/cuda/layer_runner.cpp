#include "backend/cuda/layer_runner.h"

#include "backend/cuda/kernels.h"
#include "backend/cuda/concatenation.h"
#include "backend/cuda/cumulative.h"
#include "backend/cuda/fill.h"
#include "backend/cuda/gather.h"
#include "backend/cuda/layer_adapters.h"
#include "backend/cuda/normalization.h"
#include "backend/cuda/one_hot.h"
#include "backend/cuda/reduce.h"
#include "backend/cuda/resize.h"
#include "backend/cuda/scale_layer.h"
#include "backend/cuda/select.h"
#include "backend/cuda/slice.h"
#include "backend/cuda/softmax.h"
#include "backend/cuda/unary.h"
#include "network/layers/layer_utils.h"
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
    case LayerType::kCONSTANT:
    case LayerType::kUNARY:
    case LayerType::kSOFTMAX:
    case LayerType::kSHUFFLE:
    case LayerType::kCONCATENATION:
    case LayerType::kPOOLING:
    case LayerType::kREDUCE:
    case LayerType::kSCALE:
    case LayerType::kSLICE:
    case LayerType::kPADDING:
    case LayerType::kSELECT:
    case LayerType::kFILL:
    case LayerType::kONE_HOT:
    case LayerType::kNORMALIZATION:
    case LayerType::kGATHER:
    case LayerType::kCONVOLUTION:     // device_layer.h
    case LayerType::kDECONVOLUTION:   // device_layer.h
    case LayerType::kMATRIX_MULTIPLY: // device_layer.h
    case LayerType::kRESIZE:
    case LayerType::kCUMULATIVE:
    case LayerType::kTOPK: // device_layer.h
        return {};
    default:
        // Every layer type the network API makes has a kernel; this guards plans from a future Kiln.
        return std::string("the CUDA backend has no kernel for ") + network::layerTypeName(params.type()) + " layers";
    }
}

bool runLayer(network::LayerParams const& params, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out, void const* constantData, cudaStream_t stream, std::string& error)
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
            castOnDevice(ConstTensorView(p.weights.type(), out[0].shape, constantData), out[0], stream);
            return true;
        }
        case LayerType::kUNARY:
            unaryOnDevice(static_cast<network::UnaryParams const&>(params).operation, in[0], out[0], stream);
            return true;
        case LayerType::kSOFTMAX:
            softmaxOnDevice(static_cast<network::SoftMaxParams const&>(params).axes, in[0], out[0], stream);
            return true;
        case LayerType::kSHUFFLE:
            runShuffleLayerOnDevice(static_cast<network::ShuffleParams const&>(params), in, out, stream);
            return true;
        case LayerType::kCONCATENATION:
            concatenationOnDevice(static_cast<network::ConcatenationParams const&>(params).axis, in, out[0], stream);
            return true;
        case LayerType::kPOOLING:
            runPoolingLayerOnDevice(static_cast<network::PoolingParams const&>(params), in, out, stream);
            return true;
        case LayerType::kREDUCE:
        {
            auto const& p = static_cast<network::ReduceParams const&>(params);
            reduceOnDevice(p.operation, p.reduceAxes, p.keepDimensions, in[0], out[0], stream);
            return true;
        }
        case LayerType::kSCALE:
            // constantData: the weights the executor uploaded (packScaleWeights).
            runScaleLayerOnDevice(static_cast<network::ScaleParams const&>(params), constantData, in[0], out[0], stream);
            return true;
        case LayerType::kSLICE:
            runSliceLayerOnDevice(static_cast<network::SliceParams const&>(params), in, out, stream);
            return true;
        case LayerType::kGATHER:
        {
            auto const& p = static_cast<network::GatherParams const&>(params);
            gatherOnDevice(p.mode, p.gatherAxis, p.numElementWiseDims, in[0], in[1], out[0], stream);
            return true;
        }
        case LayerType::kPADDING:
        {
            auto const& p = static_cast<network::PaddingParams const&>(params);
            paddingOnDevice(network::dimsToVector(p.prePadding), network::dimsToVector(p.postPadding), in[0], out[0],
                stream);
            return true;
        }
        case LayerType::kSELECT: selectOnDevice(in[0], in[1], in[2], out[0], stream); return true;
        case LayerType::kFILL:
        {
            // Alpha (input 1) and beta (input 2) come from their inputs when given; the shape (input 0) already
            // decided the output's shape.
            auto const& p = static_cast<network::FillParams const&>(params);
            auto operand = [&](size_t index, double value) {
                return FillOperand{value, index < in.size() ? in[index] : ConstTensorView{}};
            };
            fillOnDevice(p.operation, operand(1, p.alpha), operand(2, p.beta), out[0], stream);
            return true;
        }
        case LayerType::kONE_HOT:
            oneHotOnDevice(static_cast<network::OneHotParams const&>(params).axis, in[0], in[1], out[0], stream);
            return true;
        case LayerType::kNORMALIZATION:
        {
            auto const& p = static_cast<network::NormalizationParams const&>(params);
            normalizationOnDevice(p.axes, p.epsilon, p.nbGroups, in[0], in[1], in[2], out[0], stream);
            return true;
        }
        case LayerType::kRESIZE:
            runResizeLayerOnDevice(static_cast<network::ResizeParams const&>(params), in, out, stream);
            return true;
        case LayerType::kCUMULATIVE:
        {
            auto const& p = static_cast<network::CumulativeParams const&>(params);
            cumulativeOnDevice(p.operation, p.exclusive, p.reverse, in[0], in[1], out[0], stream);
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
