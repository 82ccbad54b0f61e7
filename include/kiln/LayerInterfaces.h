// Kiln extension: the interface class of every layer kind a Kiln network can hold, by the LayerType its layers'
// ILayer::getType returns, and the network's objects that are not layers. A binding that hands layers to another
// language needs this to give each layer its own class (Kiln's Python package casts INetworkDefinition::getLayer's
// result through it), and C++ cannot ask an ILayer for its class. Kiln checks its own layer kinds against this list
// when it compiles: a kind whose interface differs from the one listed for its LayerType, or that is missing here,
// does not build.
#pragma once

#include <NvInfer.h>

//! X(LayerType enumerator, interface class in nvinfer1) for each layer kind a Kiln network can hold, in the order of
//! the LayerType enumerators. Kinds Kiln refuses (dynamic quantization, ...) are not listed.
#define KILN_FOR_EACH_LAYER_INTERFACE(X)                                                                               \
    X(kCONVOLUTION, IConvolutionLayer)                                                                                 \
    X(kCAST, ICastLayer)                                                                                               \
    X(kACTIVATION, IActivationLayer)                                                                                   \
    X(kPOOLING, IPoolingLayer)                                                                                         \
    X(kLRN, ILRNLayer)                                                                                                 \
    X(kSCALE, IScaleLayer)                                                                                             \
    X(kSOFTMAX, ISoftMaxLayer)                                                                                         \
    X(kDECONVOLUTION, IDeconvolutionLayer)                                                                             \
    X(kCONCATENATION, IConcatenationLayer)                                                                             \
    X(kELEMENTWISE, IElementWiseLayer)                                                                                 \
    X(kUNARY, IUnaryLayer)                                                                                             \
    X(kPADDING, IPaddingLayer)                                                                                         \
    X(kSHUFFLE, IShuffleLayer)                                                                                         \
    X(kREDUCE, IReduceLayer)                                                                                           \
    X(kTOPK, ITopKLayer)                                                                                               \
    X(kGATHER, IGatherLayer)                                                                                           \
    X(kMATRIX_MULTIPLY, IMatrixMultiplyLayer)                                                                          \
    X(kCONSTANT, IConstantLayer)                                                                                       \
    X(kIDENTITY, IIdentityLayer)                                                                                       \
    X(kPLUGIN_V2, IPluginV2Layer)                                                                                      \
    X(kSLICE, ISliceLayer)                                                                                             \
    X(kSHAPE, IShapeLayer)                                                                                             \
    X(kPARAMETRIC_RELU, IParametricReLULayer)                                                                          \
    X(kRESIZE, IResizeLayer)                                                                                           \
    X(kTRIP_LIMIT, ITripLimitLayer)                                                                                    \
    X(kRECURRENCE, IRecurrenceLayer)                                                                                   \
    X(kITERATOR, IIteratorLayer)                                                                                       \
    X(kLOOP_OUTPUT, ILoopOutputLayer)                                                                                  \
    X(kSELECT, ISelectLayer)                                                                                           \
    X(kFILL, IFillLayer)                                                                                               \
    X(kQUANTIZE, IQuantizeLayer)                                                                                       \
    X(kDEQUANTIZE, IDequantizeLayer)                                                                                   \
    X(kCONDITION, IConditionLayer)                                                                                     \
    X(kCONDITIONAL_INPUT, IIfConditionalInputLayer)                                                                    \
    X(kCONDITIONAL_OUTPUT, IIfConditionalOutputLayer)                                                                  \
    X(kSCATTER, IScatterLayer)                                                                                         \
    X(kONE_HOT, IOneHotLayer)                                                                                          \
    X(kNON_ZERO, INonZeroLayer)                                                                                        \
    X(kGRID_SAMPLE, IGridSampleLayer)                                                                                  \
    X(kNMS, INMSLayer)                                                                                                 \
    X(kREVERSE_SEQUENCE, IReverseSequenceLayer)                                                                        \
    X(kNORMALIZATION, INormalizationLayer)                                                                             \
    X(kPLUGIN_V3, IPluginV3Layer)                                                                                      \
    X(kSQUEEZE, ISqueezeLayer)                                                                                         \
    X(kUNSQUEEZE, IUnsqueezeLayer)                                                                                     \
    X(kCUMULATIVE, ICumulativeLayer)

//! X(class in nvinfer1) for each object other than a layer that a Kiln network can hold: what addIfConditional,
//! addLoop and addAttention return (the first two own the boundary layers listed above, the third ordinary layers).
#define KILN_FOR_EACH_NETWORK_OBJECT(X) X(IIfConditional) X(ILoop) X(IAttention)
