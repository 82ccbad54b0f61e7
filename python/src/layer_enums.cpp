// LayerType and the operations and modes of the layers the extension binds (names as TensorRT's Python API: the C++
// enumerators without their k).
#include "bindings.h"

#include <NvInfer.h>

namespace kiln::python
{

namespace
{

void bindLayerType(py::module_& m)
{
    using nvinfer1::LayerType;
    py::enum_<LayerType>(m, "LayerType", "The kind of a layer.")
        .value("CONVOLUTION", LayerType::kCONVOLUTION)
        .value("CAST", LayerType::kCAST)
        .value("ACTIVATION", LayerType::kACTIVATION)
        .value("POOLING", LayerType::kPOOLING)
        .value("LRN", LayerType::kLRN)
        .value("SCALE", LayerType::kSCALE)
        .value("SOFTMAX", LayerType::kSOFTMAX)
        .value("DECONVOLUTION", LayerType::kDECONVOLUTION)
        .value("CONCATENATION", LayerType::kCONCATENATION)
        .value("ELEMENTWISE", LayerType::kELEMENTWISE)
        .value("PLUGIN", LayerType::kPLUGIN)
        .value("UNARY", LayerType::kUNARY)
        .value("PADDING", LayerType::kPADDING)
        .value("SHUFFLE", LayerType::kSHUFFLE)
        .value("REDUCE", LayerType::kREDUCE)
        .value("TOPK", LayerType::kTOPK)
        .value("GATHER", LayerType::kGATHER)
        .value("MATRIX_MULTIPLY", LayerType::kMATRIX_MULTIPLY)
        .value("RAGGED_SOFTMAX", LayerType::kRAGGED_SOFTMAX)
        .value("CONSTANT", LayerType::kCONSTANT)
        .value("IDENTITY", LayerType::kIDENTITY)
        .value("PLUGIN_V2", LayerType::kPLUGIN_V2)
        .value("SLICE", LayerType::kSLICE)
        .value("SHAPE", LayerType::kSHAPE)
        .value("PARAMETRIC_RELU", LayerType::kPARAMETRIC_RELU)
        .value("RESIZE", LayerType::kRESIZE)
        .value("TRIP_LIMIT", LayerType::kTRIP_LIMIT)
        .value("RECURRENCE", LayerType::kRECURRENCE)
        .value("ITERATOR", LayerType::kITERATOR)
        .value("LOOP_OUTPUT", LayerType::kLOOP_OUTPUT)
        .value("SELECT", LayerType::kSELECT)
        .value("FILL", LayerType::kFILL)
        .value("QUANTIZE", LayerType::kQUANTIZE)
        .value("DEQUANTIZE", LayerType::kDEQUANTIZE)
        .value("CONDITION", LayerType::kCONDITION)
        .value("CONDITIONAL_INPUT", LayerType::kCONDITIONAL_INPUT)
        .value("CONDITIONAL_OUTPUT", LayerType::kCONDITIONAL_OUTPUT)
        .value("SCATTER", LayerType::kSCATTER)
        .value("EINSUM", LayerType::kEINSUM)
        .value("ASSERTION", LayerType::kASSERTION)
        .value("ONE_HOT", LayerType::kONE_HOT)
        .value("NON_ZERO", LayerType::kNON_ZERO)
        .value("GRID_SAMPLE", LayerType::kGRID_SAMPLE)
        .value("NMS", LayerType::kNMS)
        .value("REVERSE_SEQUENCE", LayerType::kREVERSE_SEQUENCE)
        .value("NORMALIZATION", LayerType::kNORMALIZATION)
        .value("PLUGIN_V3", LayerType::kPLUGIN_V3)
        .value("SQUEEZE", LayerType::kSQUEEZE)
        .value("UNSQUEEZE", LayerType::kUNSQUEEZE)
        .value("CUMULATIVE", LayerType::kCUMULATIVE)
        .value("DYNAMIC_QUANTIZE", LayerType::kDYNAMIC_QUANTIZE)
        .value("ATTENTION_INPUT", LayerType::kATTENTION_INPUT)
        .value("ATTENTION_OUTPUT", LayerType::kATTENTION_OUTPUT)
        .value("ROTARY_EMBEDDING", LayerType::kROTARY_EMBEDDING)
        .value("KVCACHE_UPDATE", LayerType::kKVCACHE_UPDATE)
        .value("MOE", LayerType::kMOE)
        .value("DIST_COLLECTIVE", LayerType::kDIST_COLLECTIVE);
}

void bindOperations(py::module_& m)
{
    using nvinfer1::ActivationType;
    py::enum_<ActivationType>(m, "ActivationType", "The function of an activation layer.")
        .value("RELU", ActivationType::kRELU)
        .value("SIGMOID", ActivationType::kSIGMOID)
        .value("TANH", ActivationType::kTANH)
        .value("LEAKY_RELU", ActivationType::kLEAKY_RELU)
        .value("ELU", ActivationType::kELU)
        .value("SELU", ActivationType::kSELU)
        .value("SOFTSIGN", ActivationType::kSOFTSIGN)
        .value("SOFTPLUS", ActivationType::kSOFTPLUS)
        .value("CLIP", ActivationType::kCLIP)
        .value("HARD_SIGMOID", ActivationType::kHARD_SIGMOID)
        .value("SCALED_TANH", ActivationType::kSCALED_TANH)
        .value("THRESHOLDED_RELU", ActivationType::kTHRESHOLDED_RELU)
        .value("GELU_ERF", ActivationType::kGELU_ERF)
        .value("GELU_TANH", ActivationType::kGELU_TANH);

    using nvinfer1::ElementWiseOperation;
    py::enum_<ElementWiseOperation>(m, "ElementWiseOperation", "The operation of an element-wise layer.")
        .value("SUM", ElementWiseOperation::kSUM)
        .value("PROD", ElementWiseOperation::kPROD)
        .value("MAX", ElementWiseOperation::kMAX)
        .value("MIN", ElementWiseOperation::kMIN)
        .value("SUB", ElementWiseOperation::kSUB)
        .value("DIV", ElementWiseOperation::kDIV)
        .value("POW", ElementWiseOperation::kPOW)
        .value("FLOOR_DIV", ElementWiseOperation::kFLOOR_DIV)
        .value("AND", ElementWiseOperation::kAND)
        .value("OR", ElementWiseOperation::kOR)
        .value("XOR", ElementWiseOperation::kXOR)
        .value("EQUAL", ElementWiseOperation::kEQUAL)
        .value("GREATER", ElementWiseOperation::kGREATER)
        .value("LESS", ElementWiseOperation::kLESS);

    using nvinfer1::UnaryOperation;
    py::enum_<UnaryOperation>(m, "UnaryOperation", "The operation of a unary layer.")
        .value("EXP", UnaryOperation::kEXP)
        .value("LOG", UnaryOperation::kLOG)
        .value("SQRT", UnaryOperation::kSQRT)
        .value("RECIP", UnaryOperation::kRECIP)
        .value("ABS", UnaryOperation::kABS)
        .value("NEG", UnaryOperation::kNEG)
        .value("SIN", UnaryOperation::kSIN)
        .value("COS", UnaryOperation::kCOS)
        .value("TAN", UnaryOperation::kTAN)
        .value("SINH", UnaryOperation::kSINH)
        .value("COSH", UnaryOperation::kCOSH)
        .value("ASIN", UnaryOperation::kASIN)
        .value("ACOS", UnaryOperation::kACOS)
        .value("ATAN", UnaryOperation::kATAN)
        .value("ASINH", UnaryOperation::kASINH)
        .value("ACOSH", UnaryOperation::kACOSH)
        .value("ATANH", UnaryOperation::kATANH)
        .value("CEIL", UnaryOperation::kCEIL)
        .value("FLOOR", UnaryOperation::kFLOOR)
        .value("ERF", UnaryOperation::kERF)
        .value("NOT", UnaryOperation::kNOT)
        .value("SIGN", UnaryOperation::kSIGN)
        .value("ROUND", UnaryOperation::kROUND)
        .value("ISINF", UnaryOperation::kISINF)
        .value("ISNAN", UnaryOperation::kISNAN);

    using nvinfer1::ReduceOperation;
    py::enum_<ReduceOperation>(m, "ReduceOperation", "The operation of a reduce layer.")
        .value("SUM", ReduceOperation::kSUM)
        .value("PROD", ReduceOperation::kPROD)
        .value("MAX", ReduceOperation::kMAX)
        .value("MIN", ReduceOperation::kMIN)
        .value("AVG", ReduceOperation::kAVG)
        .value("NONE", ReduceOperation::kNONE);

    using nvinfer1::MatrixOperation;
    py::enum_<MatrixOperation>(m, "MatrixOperation", "How a matrix-multiply operand is used.")
        .value("NONE", MatrixOperation::kNONE)
        .value("TRANSPOSE", MatrixOperation::kTRANSPOSE)
        .value("VECTOR", MatrixOperation::kVECTOR);

    using nvinfer1::TopKOperation;
    py::enum_<TopKOperation>(m, "TopKOperation", "Whether a TopK layer keeps the largest or the smallest.")
        .value("MAX", TopKOperation::kMAX)
        .value("MIN", TopKOperation::kMIN);
}

void bindModes(py::module_& m)
{
    using nvinfer1::PoolingType;
    py::enum_<PoolingType>(m, "PoolingType", "The kind of a pooling layer.")
        .value("MAX", PoolingType::kMAX)
        .value("AVERAGE", PoolingType::kAVERAGE)
        .value("MAX_AVERAGE_BLEND", PoolingType::kMAX_AVERAGE_BLEND);

    using nvinfer1::PaddingMode;
    py::enum_<PaddingMode>(m, "PaddingMode", "How convolution and pooling pad and round output sizes.")
        .value("EXPLICIT_ROUND_DOWN", PaddingMode::kEXPLICIT_ROUND_DOWN)
        .value("EXPLICIT_ROUND_UP", PaddingMode::kEXPLICIT_ROUND_UP)
        .value("SAME_UPPER", PaddingMode::kSAME_UPPER)
        .value("SAME_LOWER", PaddingMode::kSAME_LOWER);

    using nvinfer1::SampleMode;
    py::enum_<SampleMode>(m, "SampleMode", "How a slice layer treats coordinates outside its input.")
        .value("STRICT_BOUNDS", SampleMode::kSTRICT_BOUNDS)
        .value("WRAP", SampleMode::kWRAP)
        .value("CLAMP", SampleMode::kCLAMP)
        .value("FILL", SampleMode::kFILL)
        .value("REFLECT", SampleMode::kREFLECT);

    using nvinfer1::GatherMode;
    py::enum_<GatherMode>(m, "GatherMode", "How a gather layer reads its indices.")
        .value("DEFAULT", GatherMode::kDEFAULT)
        .value("ELEMENT", GatherMode::kELEMENT)
        .value("ND", GatherMode::kND);
}

} // namespace

void bindLayerEnums(py::module_& m)
{
    bindLayerType(m);
    bindOperations(m);
    bindModes(m);
}

} // namespace kiln::python
