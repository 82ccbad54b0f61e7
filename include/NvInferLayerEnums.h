// Kiln: enumerations of the built-in layers (values as in TensorRT 10).
#ifndef NV_INFER_LAYER_ENUMS_H
#define NV_INFER_LAYER_ENUMS_H

#include "NvInferRuntimeBase.h"

namespace nvinfer1
{

//! Activation functions of IActivationLayer (alpha and beta as in TensorRT).
enum class ActivationType : int32_t
{
    kRELU = 0,
    kSIGMOID = 1,
    kTANH = 2,
    kLEAKY_RELU = 3,
    kELU = 4,
    kSELU = 5,
    kSOFTSIGN = 6,
    kSOFTPLUS = 7,
    kCLIP = 8,
    kHARD_SIGMOID = 9,
    kSCALED_TANH = 10,
    kTHRESHOLDED_RELU = 11,
    kGELU_ERF = 12,
    kGELU_TANH = 13,
};

namespace impl
{
template <>
struct EnumMaxImpl<ActivationType>
{
    static constexpr int32_t kVALUE = 14;
};
} // namespace impl

//! How convolution and pooling output sizes and padding are computed.
enum class PaddingMode : int32_t
{
    kEXPLICIT_ROUND_DOWN = 0,
    kEXPLICIT_ROUND_UP = 1,
    kSAME_UPPER = 2,
    kSAME_LOWER = 3,
};

namespace impl
{
template <>
struct EnumMaxImpl<PaddingMode>
{
    static constexpr int32_t kVALUE = 4;
};
} // namespace impl

enum class PoolingType : int32_t
{
    kMAX = 0,
    kAVERAGE = 1,
    kMAX_AVERAGE_BLEND = 2,
};

namespace impl
{
template <>
struct EnumMaxImpl<PoolingType>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

//! Which elements of the scale layer's shift, scale and power apply to.
enum class ScaleMode : int32_t
{
    kUNIFORM = 0,
    kCHANNEL = 1,
    kELEMENTWISE = 2,
};

namespace impl
{
template <>
struct EnumMaxImpl<ScaleMode>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

//! Binary operations; kAND/kOR/kXOR take BOOL, the comparisons produce BOOL.
enum class ElementWiseOperation : int32_t
{
    kSUM = 0,
    kPROD = 1,
    kMAX = 2,
    kMIN = 3,
    kSUB = 4,
    kDIV = 5,
    kPOW = 6,
    kFLOOR_DIV = 7,
    kAND = 8,
    kOR = 9,
    kXOR = 10,
    kEQUAL = 11,
    kGREATER = 12,
    kLESS = 13,
};

namespace impl
{
template <>
struct EnumMaxImpl<ElementWiseOperation>
{
    static constexpr int32_t kVALUE = 14;
};
} // namespace impl

enum class UnaryOperation : int32_t
{
    kEXP = 0,
    kLOG = 1,
    kSQRT = 2,
    kRECIP = 3,
    kABS = 4,
    kNEG = 5,
    kSIN = 6,
    kCOS = 7,
    kTAN = 8,
    kSINH = 9,
    kCOSH = 10,
    kASIN = 11,
    kACOS = 12,
    kATAN = 13,
    kASINH = 14,
    kACOSH = 15,
    kATANH = 16,
    kCEIL = 17,
    kFLOOR = 18,
    kERF = 19,
    kNOT = 20,
    kSIGN = 21,
    kROUND = 22,
    kISINF = 23,
    kISNAN = 24,
};

namespace impl
{
template <>
struct EnumMaxImpl<UnaryOperation>
{
    static constexpr int32_t kVALUE = 25;
};
} // namespace impl

enum class ReduceOperation : int32_t
{
    kSUM = 0,
    kPROD = 1,
    kMAX = 2,
    kMIN = 3,
    kAVG = 4,
    kNONE = 5, //!< no reduction: for collective operations that need none (TensorRT 10.16); no reduce layer takes it
};

namespace impl
{
template <>
struct EnumMaxImpl<ReduceOperation>
{
    static constexpr int32_t kVALUE = 6;
};
} // namespace impl

//! What an IDistCollectiveLayer does across devices (TensorRT 10.16).
enum class CollectiveOperation : int32_t
{
    kALL_REDUCE = 0,
    kALL_GATHER = 1,
    kBROADCAST = 2,
    kREDUCE = 3,
    kREDUCE_SCATTER = 4,
};

namespace impl
{
template <>
struct EnumMaxImpl<CollectiveOperation>
{
    static constexpr int32_t kVALUE = 5;
};
} // namespace impl

//! How a matrix-multiply operand is used.
enum class MatrixOperation : int32_t
{
    kNONE = 0,
    kTRANSPOSE = 1,
    kVECTOR = 2,
};

namespace impl
{
template <>
struct EnumMaxImpl<MatrixOperation>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

enum class TopKOperation : int32_t
{
    kMAX = 0,
    kMIN = 1,
};

namespace impl
{
template <>
struct EnumMaxImpl<TopKOperation>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

//! How ISliceLayer treats coordinates outside the input.
enum class SampleMode : int32_t
{
    kSTRICT_BOUNDS = 0,
    kWRAP = 1,
    kCLAMP = 2,
    kFILL = 3,
    kREFLECT = 4,
};

namespace impl
{
template <>
struct EnumMaxImpl<SampleMode>
{
    static constexpr int32_t kVALUE = 5;
};
} // namespace impl

enum class InterpolationMode : int32_t
{
    kNEAREST = 0,
    kLINEAR = 1,
    kCUBIC = 2,
};

namespace impl
{
template <>
struct EnumMaxImpl<InterpolationMode>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

enum class ResizeCoordinateTransformation : int32_t
{
    kALIGN_CORNERS = 0,
    kASYMMETRIC = 1,
    kHALF_PIXEL = 2,
};

namespace impl
{
template <>
struct EnumMaxImpl<ResizeCoordinateTransformation>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

enum class ResizeSelector : int32_t
{
    kFORMULA = 0,
    kUPPER = 1,
};

namespace impl
{
template <>
struct EnumMaxImpl<ResizeSelector>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

enum class ResizeRoundMode : int32_t
{
    kHALF_UP = 0,
    kHALF_DOWN = 1,
    kFLOOR = 2,
    kCEIL = 3,
};

namespace impl
{
template <>
struct EnumMaxImpl<ResizeRoundMode>
{
    static constexpr int32_t kVALUE = 4;
};
} // namespace impl

enum class GatherMode : int32_t
{
    kDEFAULT = 0,
    kELEMENT = 1,
    kND = 2,
};

namespace impl
{
template <>
struct EnumMaxImpl<GatherMode>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

enum class ScatterMode : int32_t
{
    kELEMENT = 0,
    kND = 1,
};

namespace impl
{
template <>
struct EnumMaxImpl<ScatterMode>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

enum class FillOperation : int32_t
{
    kLINSPACE = 0,
    kRANDOM_UNIFORM = 1,
    kRANDOM_NORMAL = 2,
};

namespace impl
{
template <>
struct EnumMaxImpl<FillOperation>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

enum class CumulativeOperation : int32_t
{
    kSUM = 0,
};

namespace impl
{
template <>
struct EnumMaxImpl<CumulativeOperation>
{
    static constexpr int32_t kVALUE = 1;
};
} // namespace impl

//! How INMSLayer reads a box's four coordinates.
enum class BoundingBoxFormat : int32_t
{
    //! (x1, y1, x2, y2), where (x1, y1) and (x2, y2) are any pair of diagonal corners.
    kCORNER_PAIRS = 0,
    //! (x_center, y_center, width, height).
    kCENTER_SIZES = 1,
};

namespace impl
{
template <>
struct EnumMaxImpl<BoundingBoxFormat>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

//! What an ILoopOutputLayer gives: the last iteration's value, or every iteration's stacked along a new axis.
enum class LoopOutput : int32_t
{
    kLAST_VALUE = 0,
    kCONCATENATE = 1, //!< first iteration first
    kREVERSE = 2,     //!< last iteration first
};

namespace impl
{
template <>
struct EnumMaxImpl<LoopOutput>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

//! What ends a loop: a trip count (a 0-D INT32/INT64 tensor) or a condition (0-D BOOL) that stops it when false.
enum class TripLimit : int32_t
{
    kCOUNT = 0,
    kWHILE = 1,
};

namespace impl
{
template <>
struct EnumMaxImpl<TripLimit>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

using ResizeMode = InterpolationMode;

} // namespace nvinfer1

#endif // NV_INFER_LAYER_ENUMS_H
