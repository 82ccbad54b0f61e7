#include "network/layer_type_name.h"

#include "network/fused/attention.h"
#include "network/fused/fused_normalization.h"
#include "network/fused/pointwise.h"
#include "network/fused/quantized_convolution.h"
#include "network/fused/quantized_matrix_multiply.h"
#include "network/fused/recurrent_sequence.h"

namespace kiln::network
{

char const* layerTypeName(nvinfer1::LayerType type)
{
    using nvinfer1::LayerType;
    if (type == kPointwiseLayerType)
    {
        return "PointWise";
    }
    if (type == kAttentionLayerType)
    {
        return "Attention";
    }
    if (type == kFusedNormalizationLayerType)
    {
        return "FusedNormalization";
    }
    if (type == kQuantizedConvolutionLayerType)
    {
        return "QuantizedConvolution";
    }
    if (type == kQuantizedMatrixMultiplyLayerType)
    {
        return "QuantizedMatrixMultiply";
    }
    if (type == kRecurrentSequenceLayerType)
    {
        return "RecurrentSequence";
    }
    if (type == kRecurrentSequencePairLayerType)
    {
        return "RecurrentSequencePair";
    }
    switch (type)
    {
    case LayerType::kCONVOLUTION: return "Convolution";
    case LayerType::kCAST: return "Cast";
    case LayerType::kACTIVATION: return "Activation";
    case LayerType::kPOOLING: return "Pooling";
    case LayerType::kLRN: return "LRN";
    case LayerType::kSCALE: return "Scale";
    case LayerType::kSOFTMAX: return "SoftMax";
    case LayerType::kDECONVOLUTION: return "Deconvolution";
    case LayerType::kCONCATENATION: return "Concatenation";
    case LayerType::kELEMENTWISE: return "ElementWise";
    case LayerType::kPLUGIN: return "Plugin";
    case LayerType::kUNARY: return "Unary";
    case LayerType::kPADDING: return "Padding";
    case LayerType::kSHUFFLE: return "Shuffle";
    case LayerType::kREDUCE: return "Reduce";
    case LayerType::kTOPK: return "TopK";
    case LayerType::kGATHER: return "Gather";
    case LayerType::kMATRIX_MULTIPLY: return "MatrixMultiply";
    case LayerType::kRAGGED_SOFTMAX: return "RaggedSoftMax";
    case LayerType::kCONSTANT: return "Constant";
    case LayerType::kIDENTITY: return "Identity";
    case LayerType::kPLUGIN_V2: return "PluginV2";
    case LayerType::kSLICE: return "Slice";
    case LayerType::kSHAPE: return "Shape";
    case LayerType::kPARAMETRIC_RELU: return "ParametricReLU";
    case LayerType::kRESIZE: return "Resize";
    case LayerType::kTRIP_LIMIT: return "TripLimit";
    case LayerType::kRECURRENCE: return "Recurrence";
    case LayerType::kITERATOR: return "Iterator";
    case LayerType::kLOOP_OUTPUT: return "LoopOutput";
    case LayerType::kSELECT: return "Select";
    case LayerType::kFILL: return "Fill";
    case LayerType::kQUANTIZE: return "Quantize";
    case LayerType::kDEQUANTIZE: return "Dequantize";
    case LayerType::kCONDITION: return "Condition";
    case LayerType::kCONDITIONAL_INPUT: return "ConditionalInput";
    case LayerType::kCONDITIONAL_OUTPUT: return "ConditionalOutput";
    case LayerType::kSCATTER: return "Scatter";
    case LayerType::kEINSUM: return "Einsum";
    case LayerType::kASSERTION: return "Assertion";
    case LayerType::kONE_HOT: return "OneHot";
    case LayerType::kNON_ZERO: return "NonZero";
    case LayerType::kGRID_SAMPLE: return "GridSample";
    case LayerType::kNMS: return "NMS";
    case LayerType::kREVERSE_SEQUENCE: return "ReverseSequence";
    case LayerType::kNORMALIZATION: return "Normalization";
    case LayerType::kPLUGIN_V3: return "PluginV3";
    case LayerType::kSQUEEZE: return "Squeeze";
    case LayerType::kUNSQUEEZE: return "Unsqueeze";
    case LayerType::kCUMULATIVE: return "Cumulative";
    case LayerType::kDYNAMIC_QUANTIZE: return "DynamicQuantize";
    case LayerType::kATTENTION_INPUT: return "AttentionInput";
    case LayerType::kATTENTION_OUTPUT: return "AttentionOutput";
    case LayerType::kROTARY_EMBEDDING: return "RotaryEmbedding";
    case LayerType::kKVCACHE_UPDATE: return "KVCacheUpdate";
    case LayerType::kMOE: return "MoE";
    case LayerType::kDIST_COLLECTIVE: return "DistCollective";
    default: return "Unknown";
    }
}

} // namespace kiln::network
