#include "network/layers/layer_factory.h"

#include "network/layers/layer_kinds.h"

namespace kiln::network
{

std::unique_ptr<LayerParams> makeLayerParams(nvinfer1::LayerType type)
{
    using nvinfer1::LayerType;
    switch (type)
    {
    case LayerType::kACTIVATION: return std::make_unique<ActivationParams>();
    case LayerType::kELEMENTWISE: return std::make_unique<ElementWiseParams>();
    case LayerType::kCONVOLUTION: return std::make_unique<ConvolutionParams>();
    case LayerType::kDECONVOLUTION: return std::make_unique<DeconvolutionParams>();
    case LayerType::kPOOLING: return std::make_unique<PoolingParams>();
    case LayerType::kSCALE: return std::make_unique<ScaleParams>();
    case LayerType::kSHUFFLE: return std::make_unique<ShuffleParams>();
    case LayerType::kCONCATENATION: return std::make_unique<ConcatenationParams>();
    case LayerType::kMATRIX_MULTIPLY: return std::make_unique<MatrixMultiplyParams>();
    case LayerType::kCONSTANT: return std::make_unique<ConstantParams>();
    case LayerType::kSOFTMAX: return std::make_unique<SoftMaxParams>();
    case LayerType::kUNARY: return std::make_unique<UnaryParams>();
    case LayerType::kIDENTITY: return std::make_unique<IdentityParams>();
    case LayerType::kCAST: return std::make_unique<CastParams>();
    case LayerType::kSHAPE: return std::make_unique<ShapeParams>();
    case LayerType::kREDUCE: return std::make_unique<ReduceParams>();
    case LayerType::kSLICE: return std::make_unique<SliceParams>();
    case LayerType::kGATHER: return std::make_unique<GatherParams>();
    case LayerType::kTOPK: return std::make_unique<TopKParams>();
    case LayerType::kPADDING: return std::make_unique<PaddingParams>();
    case LayerType::kSELECT: return std::make_unique<SelectParams>();
    case LayerType::kNORMALIZATION: return std::make_unique<NormalizationParams>();
    case LayerType::kRESIZE: return std::make_unique<ResizeParams>();
    case LayerType::kFILL: return std::make_unique<FillParams>();
    case LayerType::kONE_HOT: return std::make_unique<OneHotParams>();
    case LayerType::kCUMULATIVE: return std::make_unique<CumulativeParams>();
    default: return nullptr;
    }
}

} // namespace kiln::network
