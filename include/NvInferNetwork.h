// Kiln: the network definition: tensors, layers and INetworkDefinition.
// Kiln implements these interfaces; applications only call them.
#ifndef NV_INFER_NETWORK_H
#define NV_INFER_NETWORK_H

#include "NvInferLayerEnums.h"
#include "NvInferRuntime.h"

namespace nvinfer1
{

class IBuilder;
class ILayer;

enum class LayerType : int32_t
{
    kCONVOLUTION = 0,
    kCAST = 1,
    kACTIVATION = 2,
    kPOOLING = 3,
    kLRN = 4,
    kSCALE = 5,
    kSOFTMAX = 6,
    kDECONVOLUTION = 7,
    kCONCATENATION = 8,
    kELEMENTWISE = 9,
    kPLUGIN = 10,
    kUNARY = 11,
    kPADDING = 12,
    kSHUFFLE = 13,
    kREDUCE = 14,
    kTOPK = 15,
    kGATHER = 16,
    kMATRIX_MULTIPLY = 17,
    kRAGGED_SOFTMAX = 18,
    kCONSTANT = 19,
    kIDENTITY = 20,
    kPLUGIN_V2 = 21,
    kSLICE = 22,
    kSHAPE = 23,
    kPARAMETRIC_RELU = 24,
    kRESIZE = 25,
    kTRIP_LIMIT = 26,
    kRECURRENCE = 27,
    kITERATOR = 28,
    kLOOP_OUTPUT = 29,
    kSELECT = 30,
    kFILL = 31,
    kQUANTIZE = 32,
    kDEQUANTIZE = 33,
    kCONDITION = 34,
    kCONDITIONAL_INPUT = 35,
    kCONDITIONAL_OUTPUT = 36,
    kSCATTER = 37,
    kEINSUM = 38,
    kASSERTION = 39,
    kONE_HOT = 40,
    kNON_ZERO = 41,
    kGRID_SAMPLE = 42,
    kNMS = 43,
    kREVERSE_SEQUENCE = 44,
    kNORMALIZATION = 45,
    kPLUGIN_V3 = 46,
    kSQUEEZE = 47,
    kUNSQUEEZE = 48,
    kCUMULATIVE = 49,
    kDYNAMIC_QUANTIZE = 50,
    kATTENTION_INPUT = 51,
    kATTENTION_OUTPUT = 52,
    kROTARY_EMBEDDING = 53,
    kKVCACHE_UPDATE = 54,
    kMOE = 55,
    kDIST_COLLECTIVE = 56,
};

namespace impl
{
template <>
struct EnumMaxImpl<LayerType>
{
    static constexpr int32_t kVALUE = 57;
};
} // namespace impl

using TensorFormats = uint32_t;

//! A tensor of the network: a network input, a layer output, or both a layer output and a network output.
class ITensor : public INoCopy
{
public:
    virtual void setName(char const* name) noexcept = 0;
    virtual char const* getName() const noexcept = 0;
    //! Network inputs only; -1 marks a dimension given at run time.
    virtual void setDimensions(Dims const& dimensions) noexcept = 0;
    //! For a layer output, -1 marks a dimension known only at run time.
    virtual Dims getDimensions() const noexcept = 0;
    virtual void setType(DataType type) noexcept = 0;
    virtual DataType getType() const noexcept = 0;
    //! Deprecated in TensorRT 10.1. With kINT8 the range quantizes implicitly (scale = max(|min|, |max|) / 127), and
    //! it gives a plugin's INT8 tensor its scale.
    //! False, leaving the range unset, unless min and max are finite and min <= max.
    virtual bool setDynamicRange(float min, float max) noexcept = 0;
    virtual bool isNetworkInput() const noexcept = 0;
    virtual bool isNetworkOutput() const noexcept = 0;
    //! Implicit batch is gone since TensorRT 10: a warning, and getBroadcastAcrossBatch() stays false.
    virtual void setBroadcastAcrossBatch(bool broadcastAcrossBatch) noexcept = 0;
    virtual bool getBroadcastAcrossBatch() const noexcept = 0;
    //! Always kDEVICE; setLocation(kHOST) is refused (TensorRT 10 deprecates it: only RNNv2 used it).
    virtual TensorLocation getLocation() const noexcept = 0;
    virtual void setLocation(TensorLocation location) noexcept = 0;
    virtual bool dynamicRangeIsSet() const noexcept = 0;
    virtual void resetDynamicRange() noexcept = 0;
    //! Quiet NaN while no range is set.
    virtual float getDynamicRangeMin() const noexcept = 0;
    virtual float getDynamicRangeMax() const noexcept = 0;
    //! A bit per TensorFormat that an I/O tensor may use (default: kLINEAR).
    virtual void setAllowedFormats(TensorFormats formats) noexcept = 0;
    virtual TensorFormats getAllowedFormats() const noexcept = 0;
    //! True if the tensor holds shape values computed while shapes are inferred (e.g. IShapeLayer's output).
    virtual bool isShapeTensor() const noexcept = 0;
    virtual bool isExecutionTensor() const noexcept = 0;
    virtual void setDimensionName(int32_t index, char const* name) noexcept = 0;
    virtual char const* getDimensionName(int32_t index) const noexcept = 0;

protected:
    ~ITensor() noexcept override = default;
};

class ILayer : public INoCopy
{
public:
    virtual LayerType getType() const noexcept = 0;
    virtual void setName(char const* name) noexcept = 0;
    virtual char const* getName() const noexcept = 0;
    virtual int32_t getNbInputs() const noexcept = 0;
    virtual ITensor* getInput(int32_t index) const noexcept = 0;
    virtual int32_t getNbOutputs() const noexcept = 0;
    virtual ITensor* getOutput(int32_t index) const noexcept = 0;
    //! Replaces an input; index == getNbInputs() appends an optional input where the layer has one.
    virtual void setInput(int32_t index, ITensor& tensor) noexcept = 0;
    //! The precision the layer computes in (a constraint under kOBEY/kPREFER_PRECISION_CONSTRAINTS).
    virtual void setPrecision(DataType dataType) noexcept = 0;
    virtual DataType getPrecision() const noexcept = 0;
    virtual bool precisionIsSet() const noexcept = 0;
    virtual void resetPrecision() noexcept = 0;
    virtual void setOutputType(int32_t index, DataType dataType) noexcept = 0;
    virtual DataType getOutputType(int32_t index) const noexcept = 0;
    virtual bool outputTypeIsSet(int32_t index) const noexcept = 0;
    virtual void resetOutputType(int32_t index) noexcept = 0;
    virtual void setMetadata(char const* metadata) noexcept = 0;
    virtual char const* getMetadata() const noexcept = 0;
    //! The number of devices the layer runs across (TensorRT 10.16). Kiln runs every layer on one device: 1 is
    //! accepted, any other count refused (false); getNbRanks is 1.
    virtual bool setNbRanks(int32_t nbRanks) noexcept = 0;
    virtual int32_t getNbRanks() const noexcept = 0;

protected:
    ~ILayer() noexcept override = default;
};

class IConvolutionLayer : public ILayer
{
public:
    virtual void setNbOutputMaps(int64_t nbOutputMaps) noexcept = 0;
    virtual int64_t getNbOutputMaps() const noexcept = 0;
    virtual void setNbGroups(int64_t nbGroups) noexcept = 0;
    virtual int64_t getNbGroups() const noexcept = 0;
    virtual void setKernelWeights(Weights weights) noexcept = 0;
    virtual Weights getKernelWeights() const noexcept = 0;
    virtual void setBiasWeights(Weights weights) noexcept = 0;
    virtual Weights getBiasWeights() const noexcept = 0;
    virtual void setPrePadding(Dims const& padding) noexcept = 0;
    virtual Dims getPrePadding() const noexcept = 0;
    virtual void setPostPadding(Dims const& padding) noexcept = 0;
    virtual Dims getPostPadding() const noexcept = 0;
    virtual void setPaddingMode(PaddingMode paddingMode) noexcept = 0;
    virtual PaddingMode getPaddingMode() const noexcept = 0;
    virtual void setKernelSizeNd(Dims const& kernelSize) noexcept = 0;
    virtual Dims getKernelSizeNd() const noexcept = 0;
    virtual void setStrideNd(Dims const& stride) noexcept = 0;
    virtual Dims getStrideNd() const noexcept = 0;
    //! Sets pre- and post-padding.
    virtual void setPaddingNd(Dims const& padding) noexcept = 0;
    virtual Dims getPaddingNd() const noexcept = 0;
    virtual void setDilationNd(Dims const& dilation) noexcept = 0;
    virtual Dims getDilationNd() const noexcept = 0;
    using ILayer::setInput;

protected:
    ~IConvolutionLayer() noexcept override = default;
};

class IDeconvolutionLayer : public ILayer
{
public:
    virtual void setNbOutputMaps(int64_t nbOutputMaps) noexcept = 0;
    virtual int64_t getNbOutputMaps() const noexcept = 0;
    virtual void setNbGroups(int64_t nbGroups) noexcept = 0;
    virtual int64_t getNbGroups() const noexcept = 0;
    virtual void setKernelWeights(Weights weights) noexcept = 0;
    virtual Weights getKernelWeights() const noexcept = 0;
    virtual void setBiasWeights(Weights weights) noexcept = 0;
    virtual Weights getBiasWeights() const noexcept = 0;
    virtual void setPrePadding(Dims const& padding) noexcept = 0;
    virtual Dims getPrePadding() const noexcept = 0;
    virtual void setPostPadding(Dims const& padding) noexcept = 0;
    virtual Dims getPostPadding() const noexcept = 0;
    virtual void setPaddingMode(PaddingMode paddingMode) noexcept = 0;
    virtual PaddingMode getPaddingMode() const noexcept = 0;
    virtual void setKernelSizeNd(Dims const& kernelSize) noexcept = 0;
    virtual Dims getKernelSizeNd() const noexcept = 0;
    virtual void setStrideNd(Dims const& stride) noexcept = 0;
    virtual Dims getStrideNd() const noexcept = 0;
    virtual void setPaddingNd(Dims const& padding) noexcept = 0;
    virtual Dims getPaddingNd() const noexcept = 0;
    using ILayer::setInput;
    virtual void setDilationNd(Dims const& dilation) noexcept = 0;
    virtual Dims getDilationNd() const noexcept = 0;

protected:
    ~IDeconvolutionLayer() noexcept override = default;
};

class IPoolingLayer : public ILayer
{
public:
    virtual void setPoolingType(PoolingType type) noexcept = 0;
    virtual PoolingType getPoolingType() const noexcept = 0;
    virtual void setBlendFactor(float blendFactor) noexcept = 0;
    virtual float getBlendFactor() const noexcept = 0;
    //! Default true: padding is not counted in an average.
    virtual void setAverageCountExcludesPadding(bool exclusive) noexcept = 0;
    virtual bool getAverageCountExcludesPadding() const noexcept = 0;
    virtual void setPrePadding(Dims const& padding) noexcept = 0;
    virtual Dims getPrePadding() const noexcept = 0;
    virtual void setPostPadding(Dims const& padding) noexcept = 0;
    virtual Dims getPostPadding() const noexcept = 0;
    virtual void setPaddingMode(PaddingMode paddingMode) noexcept = 0;
    virtual PaddingMode getPaddingMode() const noexcept = 0;
    virtual void setWindowSizeNd(Dims const& windowSize) noexcept = 0;
    virtual Dims getWindowSizeNd() const noexcept = 0;
    virtual void setStrideNd(Dims const& stride) noexcept = 0;
    virtual Dims getStrideNd() const noexcept = 0;
    virtual void setPaddingNd(Dims const& padding) noexcept = 0;
    virtual Dims getPaddingNd() const noexcept = 0;

protected:
    ~IPoolingLayer() noexcept override = default;
};

class IActivationLayer : public ILayer
{
public:
    virtual void setActivationType(ActivationType type) noexcept = 0;
    virtual ActivationType getActivationType() const noexcept = 0;
    virtual void setAlpha(float alpha) noexcept = 0;
    virtual void setBeta(float beta) noexcept = 0;
    virtual float getAlpha() const noexcept = 0;
    virtual float getBeta() const noexcept = 0;

protected:
    ~IActivationLayer() noexcept override = default;
};

class IElementWiseLayer : public ILayer
{
public:
    virtual void setOperation(ElementWiseOperation op) noexcept = 0;
    virtual ElementWiseOperation getOperation() const noexcept = 0;

protected:
    ~IElementWiseLayer() noexcept override = default;
};

class IScaleLayer : public ILayer
{
public:
    virtual void setMode(ScaleMode mode) noexcept = 0;
    virtual ScaleMode getMode() const noexcept = 0;
    virtual void setShift(Weights shift) noexcept = 0;
    virtual Weights getShift() const noexcept = 0;
    virtual void setScale(Weights scale) noexcept = 0;
    virtual Weights getScale() const noexcept = 0;
    virtual void setPower(Weights power) noexcept = 0;
    virtual Weights getPower() const noexcept = 0;
    virtual int32_t getChannelAxis() const noexcept = 0;
    virtual void setChannelAxis(int32_t channelAxis) noexcept = 0;

protected:
    ~IScaleLayer() noexcept override = default;
};

class ISoftMaxLayer : public ILayer
{
public:
    //! A bitmask with exactly one bit: the axis the softmax runs over.
    virtual void setAxes(uint32_t axes) noexcept = 0;
    virtual uint32_t getAxes() const noexcept = 0;

protected:
    ~ISoftMaxLayer() noexcept override = default;
};

class IConcatenationLayer : public ILayer
{
public:
    virtual void setAxis(int32_t axis) noexcept = 0;
    virtual int32_t getAxis() const noexcept = 0;

protected:
    ~IConcatenationLayer() noexcept override = default;
};

struct Permutation
{
    int32_t order[Dims::MAX_DIMS];
};

class IShuffleLayer : public ILayer
{
public:
    virtual void setFirstTranspose(Permutation permutation) noexcept = 0;
    virtual Permutation getFirstTranspose() const noexcept = 0;
    //! 0 copies the input's extent (when zeroIsPlaceholder), -1 is inferred.
    virtual void setReshapeDimensions(Dims const& dimensions) noexcept = 0;
    virtual Dims getReshapeDimensions() const noexcept = 0;
    // setInput(1, shapeTensor) gives the reshape dimensions at run time.
    using ILayer::setInput;
    virtual void setSecondTranspose(Permutation permutation) noexcept = 0;
    virtual Permutation getSecondTranspose() const noexcept = 0;
    virtual void setZeroIsPlaceholder(bool zeroIsPlaceholder) noexcept = 0;
    virtual bool getZeroIsPlaceholder() const noexcept = 0;

protected:
    ~IShuffleLayer() noexcept override = default;
};

class IMatrixMultiplyLayer : public ILayer
{
public:
    virtual void setOperation(int32_t index, MatrixOperation op) noexcept = 0;
    virtual MatrixOperation getOperation(int32_t index) const noexcept = 0;

protected:
    ~IMatrixMultiplyLayer() noexcept override = default;
};

class IConstantLayer : public ILayer
{
public:
    virtual void setWeights(Weights weights) noexcept = 0;
    virtual Weights getWeights() const noexcept = 0;
    virtual void setDimensions(Dims const& dimensions) noexcept = 0;
    virtual Dims getDimensions() const noexcept = 0;

protected:
    ~IConstantLayer() noexcept override = default;
};

class IUnaryLayer : public ILayer
{
public:
    virtual void setOperation(UnaryOperation op) noexcept = 0;
    virtual UnaryOperation getOperation() const noexcept = 0;

protected:
    ~IUnaryLayer() noexcept override = default;
};

class IReduceLayer : public ILayer
{
public:
    virtual void setOperation(ReduceOperation op) noexcept = 0;
    virtual ReduceOperation getOperation() const noexcept = 0;
    virtual void setReduceAxes(uint32_t reduceAxes) noexcept = 0;
    virtual uint32_t getReduceAxes() const noexcept = 0;
    virtual void setKeepDimensions(bool keepDimensions) noexcept = 0;
    virtual bool getKeepDimensions() const noexcept = 0;

protected:
    ~IReduceLayer() noexcept override = default;
};

class ISliceLayer : public ILayer
{
public:
    virtual void setStart(Dims const& start) noexcept = 0;
    virtual Dims getStart() const noexcept = 0;
    virtual void setSize(Dims const& size) noexcept = 0;
    virtual Dims getSize() const noexcept = 0;
    virtual void setStride(Dims const& stride) noexcept = 0;
    virtual Dims getStride() const noexcept = 0;
    virtual void setMode(SampleMode mode) noexcept = 0;
    virtual SampleMode getMode() const noexcept = 0;
    // setInput(1..3, shapeTensor) give start, size and stride at run time; setInput(4, t) the fill value.
    using ILayer::setInput;
    //! Kiln slices along every axis in order: setAxes is refused unless it lists 0, 1, ..., rank - 1, and getAxes
    //! gives that list.
    virtual void setAxes(Dims const& axes) noexcept = 0;
    virtual Dims getAxes() const noexcept = 0;

protected:
    ~ISliceLayer() noexcept override = default;
};

class ITopKLayer : public ILayer
{
public:
    virtual void setOperation(TopKOperation op) noexcept = 0;
    virtual TopKOperation getOperation() const noexcept = 0;
    //! Any k: Kiln has no 3840 cap.
    virtual void setK(int32_t k) noexcept = 0;
    virtual int32_t getK() const noexcept = 0;
    virtual void setReduceAxes(uint32_t reduceAxes) noexcept = 0;
    virtual uint32_t getReduceAxes() const noexcept = 0;
    using ILayer::setInput;
    virtual bool setIndicesType(DataType type) noexcept = 0;
    virtual DataType getIndicesType() const noexcept = 0;

protected:
    ~ITopKLayer() noexcept override = default;
};

class IIdentityLayer : public ILayer
{
protected:
    ~IIdentityLayer() noexcept override = default;
};

class ICastLayer : public ILayer
{
public:
    virtual void setToType(DataType toType) noexcept = 0;
    virtual DataType getToType() const noexcept = 0;

protected:
    ~ICastLayer() noexcept override = default;
};

class IResizeLayer : public ILayer
{
public:
    virtual void setOutputDimensions(Dims const& dimensions) noexcept = 0;
    virtual Dims getOutputDimensions() const noexcept = 0;
    virtual void setScales(float const* scales, int32_t nbScales) noexcept = 0;
    //! Copies up to size scales into scales; returns how many there are (-1 if none were set).
    virtual int32_t getScales(int32_t size, float* scales) const noexcept = 0;
    virtual void setResizeMode(InterpolationMode interpolationMode) noexcept = 0;
    virtual InterpolationMode getResizeMode() const noexcept = 0;
    using ILayer::setInput;
    virtual void setCoordinateTransformation(ResizeCoordinateTransformation coordTransform) noexcept = 0;
    virtual ResizeCoordinateTransformation getCoordinateTransformation() const noexcept = 0;
    virtual void setSelectorForSinglePixel(ResizeSelector selector) noexcept = 0;
    virtual ResizeSelector getSelectorForSinglePixel() const noexcept = 0;
    virtual void setNearestRounding(ResizeRoundMode value) noexcept = 0;
    virtual ResizeRoundMode getNearestRounding() const noexcept = 0;
    virtual void setCubicCoeff(float A) noexcept = 0;
    virtual float getCubicCoeff() const noexcept = 0;
    virtual void setExcludeOutside(bool excludeFlag) noexcept = 0;
    virtual bool getExcludeOutside() const noexcept = 0;

protected:
    ~IResizeLayer() noexcept override = default;
};

class IGatherLayer : public ILayer
{
public:
    virtual void setGatherAxis(int32_t axis) noexcept = 0;
    virtual int32_t getGatherAxis() const noexcept = 0;
    virtual void setNbElementWiseDims(int32_t elementWiseDims) noexcept = 0;
    virtual int32_t getNbElementWiseDims() const noexcept = 0;
    virtual void setMode(GatherMode mode) noexcept = 0;
    virtual GatherMode getMode() const noexcept = 0;

protected:
    ~IGatherLayer() noexcept override = default;
};

class INormalizationLayer : public ILayer
{
public:
    virtual void setEpsilon(float eps) noexcept = 0;
    virtual float getEpsilon() const noexcept = 0;
    virtual void setAxes(uint32_t axesMask) noexcept = 0;
    virtual uint32_t getAxes() const noexcept = 0;
    virtual void setNbGroups(int64_t nbGroups) noexcept = 0;
    virtual int64_t getNbGroups() const noexcept = 0;
    virtual void setComputePrecision(DataType type) noexcept = 0;
    virtual DataType getComputePrecision() const noexcept = 0;
    //! Whether INetworkDefinition::addNormalizationV2 made the layer (in TensorRT 10.15).
    virtual bool isV2() const noexcept = 0;

protected:
    ~INormalizationLayer() noexcept override = default;
};

class IPaddingLayer : public ILayer
{
public:
    virtual void setPrePaddingNd(Dims const& padding) noexcept = 0;
    virtual Dims getPrePaddingNd() const noexcept = 0;
    virtual void setPostPaddingNd(Dims const& padding) noexcept = 0;
    virtual Dims getPostPaddingNd() const noexcept = 0;

protected:
    ~IPaddingLayer() noexcept override = default;
};

class ISelectLayer : public ILayer
{
protected:
    ~ISelectLayer() noexcept override = default;
};

class IShapeLayer : public ILayer
{
protected:
    ~IShapeLayer() noexcept override = default;
};

class IFillLayer : public ILayer
{
public:
    virtual void setDimensions(Dims const& dimensions) noexcept = 0;
    virtual Dims getDimensions() const noexcept = 0;
    virtual void setOperation(FillOperation op) noexcept = 0;
    virtual FillOperation getOperation() const noexcept = 0;
    virtual void setAlpha(double alpha) noexcept = 0;
    virtual double getAlpha() const noexcept = 0;
    virtual void setBeta(double beta) noexcept = 0;
    virtual double getBeta() const noexcept = 0;
    using ILayer::setInput;
    //! Integer alpha and beta, for INT64 outputs. Kiln holds them as doubles, so it refuses a value beyond 2^53
    //! in magnitude (it would not be exact); getAlphaInt64/getBetaInt64 give -1 where an input replaces the value.
    virtual void setAlphaInt64(int64_t alpha) noexcept = 0;
    virtual int64_t getAlphaInt64() const noexcept = 0;
    virtual void setBetaInt64(int64_t beta) noexcept = 0;
    virtual int64_t getBetaInt64() const noexcept = 0;
    //! True once alpha or beta was last set through the Int64 setters.
    virtual bool isAlphaBetaInt64() const noexcept = 0;
    virtual void setToType(DataType toType) noexcept = 0;
    virtual DataType getToType() const noexcept = 0;

protected:
    ~IFillLayer() noexcept override = default;
};

class IOneHotLayer : public ILayer
{
public:
    virtual void setAxis(int32_t axis) noexcept = 0;
    virtual int32_t getAxis() const noexcept = 0;

protected:
    ~IOneHotLayer() noexcept override = default;
};

class ICumulativeLayer : public ILayer
{
public:
    virtual bool setOperation(CumulativeOperation op) noexcept = 0;
    virtual CumulativeOperation getOperation() const noexcept = 0;
    virtual void setExclusive(bool exclusive) noexcept = 0;
    virtual bool getExclusive() const noexcept = 0;
    virtual void setReverse(bool reverse) noexcept = 0;
    virtual bool getReverse() const noexcept = 0;

protected:
    ~ICumulativeLayer() noexcept override = default;
};

//! The normalization between an attention's two products (in TensorRT 10.15).
enum class AttentionNormalizationOp : int32_t
{
    kNONE = 0,    //!< the scores as they are
    kSOFTMAX = 1, //!< SoftMax over the key axis
};

namespace impl
{
template <>
struct EnumMaxImpl<AttentionNormalizationOp>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

class IAttention;

//! The layers TensorRT puts at an attention's edges. Kiln builds an attention from ordinary layers and makes none of
//! these; the classes are declared for code that names them.
class IAttentionBoundaryLayer : public ILayer
{
public:
    virtual IAttention* getAttention() const noexcept = 0;

protected:
    ~IAttentionBoundaryLayer() noexcept override = default;
};

//! Inputs 0-2 query, key and value; 3 the mask and 4 the normalization's quantization scale, both optional.
class IAttentionInputLayer : public IAttentionBoundaryLayer
{
public:
    using ILayer::setInput;

protected:
    ~IAttentionInputLayer() noexcept override = default;
};

class IAttentionOutputLayer : public IAttentionBoundaryLayer
{
protected:
    ~IAttentionOutputLayer() noexcept override = default;
};

//! Attention over query [B, Hq, Sq, D], key [B, Hkv, Skv, D] and value [B, Hkv, Skv, Dv], all FLOAT, HALF or BF16 of
//! one type: normalize(query x key^T + mask) x value, [B, Hq, Sq, Dv]. Nothing scales the scores (scale the query
//! first). Hq must be a multiple of Hkv (grouped-query attention: each key and value head serves Hq / Hkv query
//! heads; Kiln repeats them, which needs Hq, Hkv and D known when the network is built).
//! Not a layer: it owns the layers Kiln builds for it (named after it), rebuilds them when a setter changes what they
//! compute, and its output stays the same tensor. The setters return false, changing nothing, where the result
//! would not build.
class IAttention : public INoCopy
{
public:
    virtual bool setNormalizationOperation(AttentionNormalizationOp op) noexcept = 0;
    virtual AttentionNormalizationOp getNormalizationOperation() const noexcept = 0;
    //! BOOL (true where the query may attend to the key) or of the scores' type (added to them), broadcastable to
    //! [B, Hq, Sq, Skv]. Not together with a causal attention.
    virtual bool setMask(ITensor& mask) noexcept = 0;
    virtual ITensor* getMask() noexcept = 0;
    //! Query i attends to keys 0..i (the mask's upper right triangle is cut off, its top left corner kept). Not
    //! together with a mask.
    virtual bool setCausal(bool isCausal) noexcept = 0;
    virtual bool getCausal() const noexcept = 0;
    //! Kept and given back: Kiln always computes an attention with several layers (an FP16 plan on the CUDA backend
    //! fuses them back into one kernel).
    virtual bool setDecomposable(bool decomposable) noexcept = 0;
    virtual bool getDecomposable() const noexcept = 0;
    //! 0 query, 1 key, 2 value.
    virtual bool setInput(int32_t index, ITensor& input) noexcept = 0;
    virtual int32_t getNbInputs() const noexcept = 0;
    virtual ITensor* getInput(int32_t index) const noexcept = 0;
    virtual int32_t getNbOutputs() const noexcept = 0;
    virtual ITensor* getOutput(int32_t index) const noexcept = 0;
    virtual bool setName(char const* name) noexcept = 0;
    virtual char const* getName() const noexcept = 0;
    //! Refused (false): Kiln has no FP8 or INT8 yet. getNormalizationQuantizeScale gives nullptr and
    //! getNormalizationQuantizeToType kFLOAT.
    virtual bool setNormalizationQuantizeScale(ITensor& tensor) noexcept = 0;
    virtual ITensor* getNormalizationQuantizeScale() const noexcept = 0;
    virtual bool setNormalizationQuantizeToType(DataType type) noexcept = 0;
    virtual DataType getNormalizationQuantizeToType() const noexcept = 0;
    //! Given to each of the attention's layers.
    virtual bool setMetadata(char const* metadata) noexcept = 0;
    virtual char const* getMetadata() const noexcept = 0;
    //! Multi-device attention (TensorRT 10.16): 1 is accepted, more ranks refused (false); getNbRanks is 1.
    virtual bool setNbRanks(int32_t nbRanks) noexcept = 0;
    virtual int32_t getNbRanks() const noexcept = 0;

protected:
    ~IAttention() noexcept override = default;
};

//! Rotary position embedding (in TensorRT 10.15). Declared for code that names it: addRotaryEmbedding is refused.
class IRotaryEmbeddingLayer : public ILayer
{
public:
    virtual void setInterleaved(bool interleaved) noexcept = 0;
    virtual bool getInterleaved() const noexcept = 0;
    virtual bool setRotaryEmbeddingDim(int32_t rotaryEmbeddingDim) noexcept = 0;
    virtual int32_t getRotaryEmbeddingDim() const noexcept = 0;
    //! 0 the input, 1 the cosines, 2 the sines, 3 (optional) the position of each token.
    using ILayer::setInput;

protected:
    ~IRotaryEmbeddingLayer() noexcept override = default;
};

//! How an IKVCacheUpdateLayer writes its update into the cache (in TensorRT 10.15).
enum class KVCacheMode : int32_t
{
    kLINEAR = 0, //!< each batch item's update at its write index, one position after another
};

namespace impl
{
template <>
struct EnumMaxImpl<KVCacheMode>
{
    static constexpr int32_t kVALUE = 1;
};
} // namespace impl

//! Writes new keys or values into a cache tensor in place (in TensorRT 10.15). Declared for code that names it:
//! addKVCacheUpdate is refused.
class IKVCacheUpdateLayer : public ILayer
{
public:
    //! 0 the cache, 1 the update, 2 the write indices.
    using ILayer::setInput;
    virtual bool setCacheMode(KVCacheMode cacheMode) noexcept = 0;
    virtual KVCacheMode getCacheMode() const noexcept = 0;

protected:
    ~IKVCacheUpdateLayer() noexcept override = default;
};

//! The activation of each expert's gate projection in an IMoELayer (TensorRT 10.16).
enum class MoEActType : int32_t
{
    kNONE = 0,
    kSILU = 1,
};

namespace impl
{
template <>
struct EnumMaxImpl<MoEActType>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

//! Mixture of experts (TensorRT 10.16): each token's hidden state goes through the experts chosen for it, each a gated
//! linear unit (down(up(x) * act(gate(x)))), and the results are summed with the experts' scores. Inputs: 0 the hidden
//! states [B, S, H], 1 the chosen experts [B, S, K], 2 their scores [B, S, K]. Declared for code that names it:
//! addMoE is refused.
class IMoELayer : public ILayer
{
public:
    //! Gate and up projections [E, H, I], down projection [E, I, H].
    virtual void setGatedWeights(
        ITensor& fcGateWeights, ITensor& fcUpWeights, ITensor& fcDownWeights, MoEActType activationType) noexcept = 0;
    //! Gate and up biases [E, I], down bias [E, H].
    virtual void setGatedBiases(ITensor& fcGateBiases, ITensor& fcUpBiases, ITensor& fcDownBiases) noexcept = 0;
    virtual void setActivationType(MoEActType activationType) noexcept = 0;
    virtual MoEActType getActivationType() const noexcept = 0;
    //! Quantization of the product before the down projection: static with a scale, or dynamic with a second-level
    //! scale, a block shape and the type of the scales.
    virtual void setQuantizationStatic(ITensor& fcDownActivationScale, DataType dataType) noexcept = 0;
    virtual void setQuantizationDynamicDblQ(ITensor& fcDownActivationDblQScale, DataType dataType,
        Dims const& blockShape, DataType dynQOutputScaleType) noexcept = 0;
    virtual void setQuantizationToType(DataType type) noexcept = 0;
    virtual DataType getQuantizationToType() const noexcept = 0;
    virtual void setQuantizationBlockShape(Dims const& blockShape) noexcept = 0;
    virtual Dims getQuantizationBlockShape() const noexcept = 0;
    virtual void setDynQOutputScaleType(DataType type) noexcept = 0;
    virtual DataType getDynQOutputScaleType() const noexcept = 0;
    //! The clamped SwiGLU's limit, alpha and beta.
    virtual void setSwigluParams(float limit, float alpha, float beta) noexcept = 0;
    virtual void setSwigluParamLimit(float limit) noexcept = 0;
    virtual float getSwigluParamLimit() const noexcept = 0;
    virtual void setSwigluParamAlpha(float alpha) noexcept = 0;
    virtual float getSwigluParamAlpha() const noexcept = 0;
    virtual void setSwigluParamBeta(float beta) noexcept = 0;
    virtual float getSwigluParamBeta() const noexcept = 0;
    //! 0 the hidden states, 1 the chosen experts, 2 their scores.
    using ILayer::setInput;

protected:
    ~IMoELayer() noexcept override = default;
};

//! A collective operation across the devices of a multi-device engine (TensorRT 10.16). Declared for code that names
//! it: addDistCollective is refused.
class IDistCollectiveLayer : public ILayer
{
protected:
    ~IDistCollectiveLayer() noexcept override = default;
};

class IGridSampleLayer : public ILayer
{
public:
    virtual void setInterpolationMode(InterpolationMode mode) noexcept = 0;
    virtual InterpolationMode getInterpolationMode() const noexcept = 0;
    virtual void setAlignCorners(bool alignCorners) noexcept = 0;
    virtual bool getAlignCorners() const noexcept = 0;
    //! kFILL (zeros outside the input, the default), kCLAMP (border) or kREFLECT; false for any other mode.
    virtual bool setSampleMode(SampleMode sampleMode) noexcept = 0;
    virtual SampleMode getSampleMode() const noexcept = 0;

protected:
    ~IGridSampleLayer() noexcept override = default;
};

//! Non-maximum suppression per batch item and class, as ONNX's NonMaxSuppression. Inputs: 0 boxes, [batch, boxes, 4]
//! or per class [batch, boxes, classes, 4]; 1 scores, [batch, boxes, classes], of the boxes' type (FLOAT, HALF or
//! BF16); 2 maxOutputBoxesPerClass, 0-D INT32 (a value of 0 or less selects nothing); 3 and 4, optional (setInput),
//! the IoU threshold and the score threshold, 0-D FLOAT (0 when not given). A box is a candidate when its score
//! exceeds the score threshold, and is selected unless its IoU with a box of its class selected before exceeds the
//! IoU threshold. Outputs: 0 the selected (batch, class, box) indices, [count, 3]; 1 count, 0-D INT32, known once the
//! layer has run (a size tensor). Kiln's order of output 0 is ONNX's: by batch item, then class, then decreasing
//! score, equal scores lower box index first (TensorRT documents decreasing score across the classes of a batch
//! item). Any number of boxes: Kiln has no hardware limit on candidates.
class INMSLayer : public ILayer
{
public:
    //! A value outside BoundingBoxFormat is logged as an error and changes nothing.
    virtual void setBoundingBoxFormat(BoundingBoxFormat fmt) noexcept = 0;
    virtual BoundingBoxFormat getBoundingBoxFormat() const noexcept = 0;
    //! The most candidates considered per batch item: the highest-scoring ones, of any class (equal scores: lower
    //! class, then lower box index first). Kiln's default is no limit (INT32_MAX), where TensorRT's default and
    //! maximum are 5000 (2000 on SM 5.3 and 6.2 devices). A negative limit is logged as an error and changes nothing.
    virtual void setTopKBoxLimit(int32_t limit) noexcept = 0;
    virtual int32_t getTopKBoxLimit() const noexcept = 0;
    using ILayer::setInput;
    //! The type of output 0: kINT32 (the default) or kINT64; false (with an error) for any other type, keeping the
    //! type set before.
    virtual bool setIndicesType(DataType type) noexcept = 0;
    virtual DataType getIndicesType() const noexcept = 0;

protected:
    ~INMSLayer() noexcept override = default;
};

class IReverseSequenceLayer : public ILayer
{
public:
    //! Any value is kept; one outside [0, rank) or equal to the sequence axis fails shape inference, naming it.
    virtual void setBatchAxis(int32_t batchAxis) noexcept = 0;
    virtual int32_t getBatchAxis() const noexcept = 0;
    //! Any value is kept; one outside [0, rank) or equal to the batch axis fails shape inference, naming it.
    virtual void setSequenceAxis(int32_t sequenceAxis) noexcept = 0;
    virtual int32_t getSequenceAxis() const noexcept = 0;

protected:
    ~IReverseSequenceLayer() noexcept override = default;
};

//! The positions of the input's non-zero elements (true for BOOL), as the columns of an [input rank, count] matrix
//! in row-major order of the elements. count is data-dependent: -1 in the tensor's dimensions, known once the layer
//! has run (IExecutionContext::getTensorShape, IOutputAllocator::notifyShape).
class INonZeroLayer : public ILayer
{
public:
    //! kINT32 or kINT64 (the default); false (with an error) for any other type, keeping the type set before.
    virtual bool setIndicesType(DataType type) noexcept = 0;
    virtual DataType getIndicesType() const noexcept = 0;

protected:
    ~INonZeroLayer() noexcept override = default;
};

class IScatterLayer : public ILayer
{
public:
    //! A value outside ScatterMode is logged as an error and changes nothing.
    virtual void setMode(ScatterMode mode) noexcept = 0;
    virtual ScatterMode getMode() const noexcept = 0;
    //! The axis kELEMENT scatters along, in [-rank, rank) (negative counts from the end). Any value is kept; one out of
    //! range fails the build, naming it.
    virtual void setAxis(int32_t axis) noexcept = 0;
    virtual int32_t getAxis() const noexcept = 0;

protected:
    ~IScatterLayer() noexcept override = default;
};

class IPluginV2Layer : public ILayer
{
public:
    virtual IPluginV2& getPlugin() noexcept = 0;

protected:
    ~IPluginV2Layer() noexcept override = default;
};

class IPluginV3Layer : public ILayer
{
public:
    virtual IPluginV3& getPlugin() noexcept = 0;

protected:
    ~IPluginV3Layer() noexcept override = default;
};

//! Local response normalization across channels (the third axis from the end). Kiln refuses parameters outside
//! TensorRT's ranges: setters log an error and change nothing.
class ILRNLayer : public ILayer
{
public:
    virtual void setWindowSize(int64_t windowSize) noexcept = 0;
    virtual int64_t getWindowSize() const noexcept = 0;
    virtual void setAlpha(float alpha) noexcept = 0;
    virtual float getAlpha() const noexcept = 0;
    virtual void setBeta(float beta) noexcept = 0;
    virtual float getBeta() const noexcept = 0;
    virtual void setK(float k) noexcept = 0;
    virtual float getK() const noexcept = 0;

protected:
    ~ILRNLayer() noexcept override = default;
};

//! Softmax over the first bounds[z] entries of each sequence z. Kiln has no implementation: addRaggedSoftMax is
//! refused.
class IRaggedSoftMaxLayer : public ILayer
{
protected:
    ~IRaggedSoftMaxLayer() noexcept override = default;
};

//! x >= 0 ? x : slope * x, the slope (input 1) broadcast to x.
class IParametricReLULayer : public ILayer
{
protected:
    ~IParametricReLULayer() noexcept override = default;
};

//! Checks a BOOL shape tensor at build and run time. Kiln has no implementation: addAssertion is refused.
class IAssertionLayer : public ILayer
{
public:
    virtual void setMessage(char const* message) noexcept = 0;
    virtual char const* getMessage() const noexcept = 0;

protected:
    ~IAssertionLayer() noexcept override = default;
};

//! clamp(round(x / scale) + zeroPoint) into INT8 or FP8 (E4M3FN), per tensor or per channel; input 1 is the scale,
//! input 2 (setInput) the zero point. Kiln refuses INT4 and block quantization.
class IQuantizeLayer : public ILayer
{
public:
    //! -1: one scale for the whole tensor.
    virtual int32_t getAxis() const noexcept = 0;
    virtual void setAxis(int32_t axis) noexcept = 0;
    //! Block quantization: extents of the block sharing a scale, -1 for a whole axis; positive
    //! extents or -1, else false. Empty (nbDims 0) by default.
    virtual bool setBlockShape(Dims const& blockShape) noexcept = 0;
    virtual Dims getBlockShape() const noexcept = 0;
    virtual void setToType(DataType toType) noexcept = 0;
    virtual DataType getToType() const noexcept = 0;

protected:
    ~IQuantizeLayer() noexcept override = default;
};

//! (q - zeroPoint) * scale back to a floating-point type, from INT8 or FP8, as IQuantizeLayer.
class IDequantizeLayer : public ILayer
{
public:
    virtual int32_t getAxis() const noexcept = 0;
    virtual void setAxis(int32_t axis) noexcept = 0;
    //! As IQuantizeLayer's.
    virtual bool setBlockShape(Dims const& blockShape) noexcept = 0;
    virtual Dims getBlockShape() const noexcept = 0;
    virtual void setToType(DataType toType) noexcept = 0;
    virtual DataType getToType() const noexcept = 0;

protected:
    ~IDequantizeLayer() noexcept override = default;
};

//! Quantization with block scales computed at run time (TensorRT 10.9). Refused like IQuantizeLayer.
class IDynamicQuantizeLayer : public ILayer
{
public:
    //! Input 1, optional: the scalar that quantizes the computed scales (double quantization).
    using ILayer::setInput;
    virtual void setToType(DataType toType) noexcept = 0;
    virtual DataType getToType() const noexcept = 0;
    virtual void setScaleType(DataType scaleType) noexcept = 0;
    virtual DataType getScaleType() const noexcept = 0;
    virtual void setAxis(int32_t axis) noexcept = 0;
    virtual int32_t getAxis() const noexcept = 0;
    virtual void setBlockSize(int32_t size) noexcept = 0;
    virtual int32_t getBlockSize() const noexcept = 0;
    //! The block's extent on every axis (in TensorRT 10.15), which supersedes axis and block size.
    virtual void setBlockShape(Dims const& blockShape) noexcept = 0;
    virtual Dims getBlockShape() const noexcept = 0;

protected:
    ~IDynamicQuantizeLayer() noexcept override = default;
};

//! Einstein summation. Kiln has no implementation: addEinsum is refused.
class IEinsumLayer : public ILayer
{
public:
    virtual bool setEquation(char const* equation) noexcept = 0;
    virtual char const* getEquation() const noexcept = 0;

protected:
    ~IEinsumLayer() noexcept override = default;
};

//! Removes axes of extent 1. Input 1 lists them (INT32 or INT64, the output of an IConstantLayer in Kiln, read when
//! the layer is added or the input replaced); negative axes count from the end.
class ISqueezeLayer : public ILayer
{
public:
    using ILayer::setInput;

protected:
    ~ISqueezeLayer() noexcept override = default;
};

//! Inserts axes of extent 1 at the output positions input 1 lists (read as for ISqueezeLayer).
class IUnsqueezeLayer : public ILayer
{
public:
    using ILayer::setInput;

protected:
    ~IUnsqueezeLayer() noexcept override = default;
};

class IIfConditional;

//! The layers that mark the bounds of an if-conditional (IIfConditional) share this base.
class IIfConditionalBoundaryLayer : public ILayer
{
public:
    virtual IIfConditional* getConditional() const noexcept = 0;

protected:
    ~IIfConditionalBoundaryLayer() noexcept override = default;
};

//! The conditional's predicate: its one input is the 0-D BOOL condition; it has no output.
class IConditionLayer : public IIfConditionalBoundaryLayer
{
protected:
    ~IConditionLayer() noexcept override = default;
};

//! One output of the conditional: the true branch's tensor (input 0) when the condition holds, else the false
//! branch's (input 1). Kiln extension: the branches' tensors may differ in shape (TensorRT requires equal shapes
//! unless the condition is a build-time constant); the output's differing extents are then data-dependent, known once
//! the conditional has run, as a non-zero layer's count is.
class IIfConditionalOutputLayer : public IIfConditionalBoundaryLayer
{
protected:
    ~IIfConditionalOutputLayer() noexcept override = default;
};

//! An input of the conditional's branches: its output is its input. Branch layers may also read tensors computed
//! outside the conditional directly.
class IIfConditionalInputLayer : public IIfConditionalBoundaryLayer
{
protected:
    ~IIfConditionalInputLayer() noexcept override = default;
};

//! An if-then-else: each output is the true branch's tensor if the 0-D BOOL condition holds, else the false
//! branch's. Only the branch taken runs: a layer runs when an output needs it, and a layer only the true (false)
//! side of the conditional's outputs needs runs only when the condition holds (does not).
class IIfConditional : public INoCopy
{
public:
    //! The 0-D BOOL condition; a conditional has one (a second call fails, returning nullptr).
    virtual IConditionLayer* setCondition(ITensor& condition) noexcept = 0;
    //! The branches' tensors must have the same type and rank.
    virtual IIfConditionalOutputLayer* addOutput(
        ITensor& trueSubgraphOutput, ITensor& falseSubgraphOutput) noexcept = 0;
    virtual IIfConditionalInputLayer* addInput(ITensor& input) noexcept = 0;
    virtual void setName(char const* name) noexcept = 0;
    virtual char const* getName() const noexcept = 0;

protected:
    ~IIfConditional() noexcept override = default;
};

class ILoop;

//! The layers that mark the bounds of a loop (ILoop) share this base; getLoop gives the loop they bound.
class ILoopBoundaryLayer : public ILayer
{
public:
    virtual ILoop* getLoop() const noexcept = 0;

protected:
    ~ILoopBoundaryLayer() noexcept override = default;
};

//! A value carried from one iteration to the next: input 0 the first iteration's, input 1 the next one's.
class IRecurrenceLayer : public ILoopBoundaryLayer
{
public:
    using ILayer::setInput;

protected:
    ~IRecurrenceLayer() noexcept override = default;
};

//! How a loop's result leaves it; input 1 gives the stacked length for kCONCATENATE and kREVERSE.
class ILoopOutputLayer : public ILoopBoundaryLayer
{
public:
    virtual LoopOutput getLoopOutput() const noexcept = 0;
    virtual void setAxis(int32_t axis) noexcept = 0;
    virtual int32_t getAxis() const noexcept = 0;
    using ILayer::setInput;

protected:
    ~ILoopOutputLayer() noexcept override = default;
};

class ITripLimitLayer : public ILoopBoundaryLayer
{
public:
    virtual TripLimit getTripLimit() const noexcept = 0;

protected:
    ~ITripLimitLayer() noexcept override = default;
};

//! The slice of its input along an axis for the current iteration.
class IIteratorLayer : public ILoopBoundaryLayer
{
public:
    virtual void setAxis(int32_t axis) noexcept = 0;
    virtual int32_t getAxis() const noexcept = 0;
    virtual void setReverse(bool reverse) noexcept = 0;
    virtual bool getReverse() const noexcept = 0;

protected:
    ~IIteratorLayer() noexcept override = default;
};

//! A recurrent subgraph: the layers that depend on its recurrences and iterators run once per iteration. Kiln
//! zero-fills the rows of a kCONCATENATE or kREVERSE output that no iteration wrote, and the kLAST_VALUE outputs of a
//! loop that ran no iteration.
class ILoop : public INoCopy
{
public:
    virtual IRecurrenceLayer* addRecurrence(ITensor& initialValue) noexcept = 0;
    virtual ITripLimitLayer* addTripLimit(ITensor& tensor, TripLimit limit) noexcept = 0;
    virtual IIteratorLayer* addIterator(ITensor& tensor, int32_t axis = 0, bool reverse = false) noexcept = 0;
    virtual ILoopOutputLayer* addLoopOutput(ITensor& tensor, LoopOutput outputKind, int32_t axis = 0) noexcept = 0;
    virtual void setName(char const* name) noexcept = 0;
    virtual char const* getName() const noexcept = 0;

protected:
    ~ILoop() noexcept override = default;
};

enum class NetworkDefinitionCreationFlag : int32_t
{
    kEXPLICIT_BATCH = 0, //!< Ignored: every network has an explicit batch dimension.
    kSTRONGLY_TYPED = 1,
    kPREFER_JIT_PYTHON_PLUGINS = 2,
    kPREFER_AOT_PYTHON_PLUGINS = 3,
};

namespace impl
{
template <>
struct EnumMaxImpl<NetworkDefinitionCreationFlag>
{
    static constexpr int32_t kVALUE = 4;
};
} // namespace impl

using NetworkDefinitionCreationFlags = uint32_t;

//! The graph an application builds layer by layer. Owns its layers and tensors.
//! Methods that add a layer return nullptr (and log why) when their arguments are invalid. The methods are declared
//! in TensorRT 10.15's order. What Kiln cannot do returns TensorRT's failure value (nullptr, false) and logs one
//! error naming the call and why (docs/api-coverage.md lists them).
class INetworkDefinition : public INoCopy
{
public:
    virtual ITensor* addInput(char const* name, DataType type, Dims const& dimensions) noexcept = 0;
    virtual void markOutput(ITensor& tensor) noexcept = 0;
    //! A debug tensor is kept as itself by the build (no fusion removes it; row-major), and an execution context whose
    //! debug state is on for it gives its values to its IDebugListener.
    virtual bool markDebug(ITensor& tensor) noexcept = 0;
    virtual bool unmarkDebug(ITensor& tensor) noexcept = 0;
    virtual bool isDebugTensor(ITensor const& tensor) const noexcept = 0;
    //! Every tensor the build leaves in memory, row-major, becomes a debug tensor; fusions are not held back.
    virtual bool markUnfusedTensorsAsDebugTensors() noexcept = 0;
    virtual bool unmarkUnfusedTensorsAsDebugTensors() noexcept = 0;
    virtual IActivationLayer* addActivation(ITensor& input, ActivationType type) noexcept = 0;
    //! nullptr, with an error, for parameters outside TensorRT's ranges (ILRNLayer's setters say them).
    virtual ILRNLayer* addLRN(ITensor& input, int64_t window, float alpha, float beta, float k) noexcept = 0;
    virtual IScaleLayer* addScale(
        ITensor& input, ScaleMode mode, Weights shift, Weights scale, Weights power) noexcept = 0;
    virtual ISoftMaxLayer* addSoftMax(ITensor& input) noexcept = 0;
    virtual IConcatenationLayer* addConcatenation(ITensor* const* inputs, int32_t nbInputs) noexcept = 0;
    virtual IElementWiseLayer* addElementWise(ITensor& input1, ITensor& input2, ElementWiseOperation op) noexcept = 0;
    virtual IUnaryLayer* addUnary(ITensor& input, UnaryOperation operation) noexcept = 0;
    virtual IShuffleLayer* addShuffle(ITensor& input) noexcept = 0;
    virtual IOneHotLayer* addOneHot(ITensor& indices, ITensor& values, ITensor& depth, int32_t axis) noexcept = 0;
    virtual int32_t getNbLayers() const noexcept = 0;
    virtual ILayer* getLayer(int32_t index) const noexcept = 0;
    virtual int32_t getNbInputs() const noexcept = 0;
    virtual ITensor* getInput(int32_t index) const noexcept = 0;
    virtual int32_t getNbOutputs() const noexcept = 0;
    virtual ITensor* getOutput(int32_t index) const noexcept = 0;
    virtual IReduceLayer* addReduce(
        ITensor& input, ReduceOperation operation, uint32_t reduceAxes, bool keepDimensions) noexcept = 0;
    //! Deprecated in TensorRT 10.14 for the five-argument form; the indices are kINT32.
    virtual ITopKLayer* addTopK(ITensor& input, TopKOperation op, int32_t k, uint32_t reduceAxes) noexcept = 0;
    virtual ITopKLayer* addTopK(
        ITensor& input, TopKOperation op, int32_t k, uint32_t reduceAxes, DataType indicesType) noexcept = 0;
    virtual IGatherLayer* addGather(ITensor& data, ITensor& indices, int32_t axis) noexcept = 0;
    virtual IGatherLayer* addGatherV2(ITensor& data, ITensor& indices, GatherMode mode) noexcept = 0;
    //! Refused (nullptr).
    virtual IRaggedSoftMaxLayer* addRaggedSoftMax(ITensor& input, ITensor& bounds) noexcept = 0;
    virtual IMatrixMultiplyLayer* addMatrixMultiply(
        ITensor& input0, MatrixOperation op0, ITensor& input1, MatrixOperation op1) noexcept = 0;
    //! Deprecated in TensorRT 10.14 for the two-argument form. Kiln's indices here are kINT64 (ONNX's type), where
    //! TensorRT 10.15 documents kINT32: pass the type to get either.
    virtual INonZeroLayer* addNonZero(ITensor& input) noexcept = 0;
    //! indicesType is kINT32 or kINT64; nullptr (with an error) for any other type.
    virtual INonZeroLayer* addNonZero(ITensor& input, DataType indicesType) noexcept = 0;
    virtual IConstantLayer* addConstant(Dims const& dimensions, Weights weights) noexcept = 0;
    virtual IIdentityLayer* addIdentity(ITensor& input) noexcept = 0;
    virtual ICastLayer* addCast(ITensor& input, DataType toType) noexcept = 0;
    virtual void removeTensor(ITensor& tensor) noexcept = 0;
    virtual void unmarkOutput(ITensor& tensor) noexcept = 0;
    //! Kiln keeps the network's own clone of plugin; the caller still owns (and destroys) plugin.
    virtual IPluginV2Layer* addPluginV2(ITensor* const* inputs, int32_t nbInputs, IPluginV2& plugin) noexcept = 0;
    virtual IPluginV3Layer* addPluginV3(ITensor* const* inputs, int32_t nbInputs, ITensor* const* shapeInputs,
        int32_t nbShapeInputs, IPluginV3& plugin) noexcept = 0;
    virtual ISliceLayer* addSlice(ITensor& input, Dims const& start, Dims const& size, Dims const& stride) noexcept = 0;
    virtual void setName(char const* name) noexcept = 0;
    virtual char const* getName() const noexcept = 0;
    virtual IShapeLayer* addShape(ITensor& input) noexcept = 0;
    //! Always false (deprecated in TensorRT 10.0): every network has an explicit batch dimension.
    bool hasImplicitBatchDimension() const noexcept
    {
        return false;
    }
    virtual NetworkDefinitionCreationFlags getFlags() const noexcept = 0;
    virtual bool getFlag(NetworkDefinitionCreationFlag networkDefinitionCreationFlag) const noexcept = 0;
    //! Refused (false): Kiln computes a shape tensor's values while shapes are inferred, but gives no network output
    //! in host memory for them.
    virtual bool markOutputForShapes(ITensor& tensor) noexcept = 0;
    virtual bool unmarkOutputForShapes(ITensor& tensor) noexcept = 0;
    //! Floating-point input and slope of the input's rank; the slope broadcasts (its extents are 1 or the input's).
    virtual IParametricReLULayer* addParametricReLU(ITensor& input, ITensor& slope) noexcept = 0;
    virtual IConvolutionLayer* addConvolutionNd(ITensor& input, int64_t nbOutputMaps, Dims const& kernelSize,
        Weights kernelWeights, Weights biasWeights) noexcept = 0;
    virtual IPoolingLayer* addPoolingNd(ITensor& input, PoolingType type, Dims const& windowSize) noexcept = 0;
    //! kernelSize by value, as TensorRT declares it (addConvolutionNd takes a reference).
    virtual IDeconvolutionLayer* addDeconvolutionNd(
        ITensor& input, int64_t nbOutputMaps, Dims kernelSize, Weights kernelWeights, Weights biasWeights) noexcept = 0;
    virtual IScaleLayer* addScaleNd(
        ITensor& input, ScaleMode mode, Weights shift, Weights scale, Weights power, int32_t channelAxis) noexcept = 0;
    virtual IResizeLayer* addResize(ITensor& input) noexcept = 0;
    //! The loop, its boundary layers and its body's layers belong to the network.
    virtual ILoop* addLoop() noexcept = 0;
    //! The conditional, its boundary layers and its branches' layers belong to the network.
    virtual IIfConditional* addIfConditional() noexcept = 0;
    virtual ISelectLayer* addSelect(ITensor& condition, ITensor& thenInput, ITensor& elseInput) noexcept = 0;
    //! Refused (nullptr).
    virtual IAssertionLayer* addAssertion(ITensor& condition, char const* message) noexcept = 0;
    //! TensorRT's two-argument form (deprecated in TensorRT 9.0): the output is kFLOAT.
    IFillLayer* addFill(Dims const& dimensions, FillOperation op) noexcept
    {
        return addFill(dimensions, op, DataType::kFLOAT);
    }
    virtual IFillLayer* addFill(Dims const& dimensions, FillOperation op, DataType outputType) noexcept = 0;
    virtual IPaddingLayer* addPaddingNd(ITensor& input, Dims const& prePadding, Dims const& postPadding) noexcept = 0;
    //! Names the weights whose values are at weights.values (every use of them), for IRefitter::setNamedWeights.
    virtual bool setWeightsName(Weights weights, char const* name) noexcept = 0;
    //! Kept and given back (Kiln reports a network's errors through the logger, as the builder's).
    virtual void setErrorRecorder(IErrorRecorder* recorder) noexcept = 0;
    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;
    //! TensorRT's two-argument form (deprecated in TensorRT 9.0): the output is kFLOAT.
    IDequantizeLayer* addDequantize(ITensor& input, ITensor& scale) noexcept
    {
        return addDequantize(input, scale, DataType::kFLOAT);
    }
    //! outputType is kFLOAT, kHALF or kBF16, else nullptr with an error.
    virtual IDequantizeLayer* addDequantize(ITensor& input, ITensor& scale, DataType outputType) noexcept = 0;
    //! Negative indices count from the end; an index still out of range fails the run, naming the layer (the CUDA
    //! backend, which reads indices on the device, skips that update instead). With duplicate indices the CPU keeps the
    //! last update in order, the CUDA backend any one of them. Kiln extension: kiln::setScatterReduction
    //! (kiln/ScatterReduction.h) combines updates with the data (add, mul, max, min) where TensorRT only replaces.
    virtual IScatterLayer* addScatter(ITensor& data, ITensor& indices, ITensor& updates, ScatterMode mode) noexcept = 0;
    //! TensorRT's two-argument form (deprecated in TensorRT 9.0): the output is kINT8.
    IQuantizeLayer* addQuantize(ITensor& input, ITensor& scale) noexcept
    {
        return addQuantize(input, scale, DataType::kINT8);
    }
    //! outputType is kINT8 or kFP8, else nullptr with an error.
    virtual IQuantizeLayer* addQuantize(ITensor& input, ITensor& scale, DataType outputType) noexcept = 0;
    //! Refused (nullptr). Deprecated in TensorRT 10.15 for addDynamicQuantizeV2.
    virtual IDynamicQuantizeLayer* addDynamicQuantize(
        ITensor& input, int32_t axis, int32_t blockSize, DataType outputType, DataType scaleType) noexcept = 0;
    //! Refused (nullptr), as addDynamicQuantize.
    virtual IDynamicQuantizeLayer* addDynamicQuantizeV2(
        ITensor& input, Dims const& blockShape, DataType outputType, DataType scaleType) noexcept = 0;
    //! Refused (nullptr).
    virtual IEinsumLayer* addEinsum(ITensor* const* inputs, int32_t nbInputs, char const* equation) noexcept = 0;
    virtual IGridSampleLayer* addGridSample(ITensor& input, ITensor& grid) noexcept = 0;
    //! Memory is planned for batch * classes * min(boxes, maxOutputBoxesPerClass) selected boxes where
    //! maxOutputBoxesPerClass is a build-time constant, for batch * classes * boxes otherwise. Deprecated in TensorRT
    //! 10.14 for the four-argument form; the indices are kINT32.
    virtual INMSLayer* addNMS(ITensor& boxes, ITensor& scores, ITensor& maxOutputBoxesPerClass) noexcept = 0;
    //! indicesType is kINT32 or kINT64; nullptr (with an error) for any other type.
    virtual INMSLayer* addNMS(
        ITensor& boxes, ITensor& scores, ITensor& maxOutputBoxesPerClass, DataType indicesType) noexcept = 0;
    //! That sequenceLens holds one length per index of the batch axis is checked when the layer runs: the axes may
    //! still be set after this call.
    virtual IReverseSequenceLayer* addReverseSequence(ITensor& input, ITensor& sequenceLens) noexcept = 0;
    //! Deprecated in TensorRT 10.15 for addNormalizationV2 (which Kiln computes the same way).
    virtual INormalizationLayer* addNormalization(
        ITensor& input, ITensor& scale, ITensor& bias, uint32_t axesMask) noexcept = 0;
    virtual ICumulativeLayer* addCumulative(
        ITensor& input, ITensor& axis, CumulativeOperation operation, bool exclusive, bool reverse) noexcept = 0;
    //! Attention (in TensorRT 10.15) built from the layers Kiln has: a matrix multiply of query and transposed key, the
    //! mask or the causal mask added to the scores, the normalization (SoftMax over the key axis, or none) and a matrix
    //! multiply by value; see IAttention for the rules. The layers are ordinary ones (getLayer shows them); in FP16
    //! plans the CUDA backend fuses them back into one attention kernel.
    virtual IAttention* addAttention(
        ITensor& query, ITensor& key, ITensor& value, AttentionNormalizationOp normOp, bool causal) noexcept = 0;
    //! Refused (nullptr): Kiln has no rotary embedding layer yet.
    virtual IRotaryEmbeddingLayer* addRotaryEmbedding(ITensor& input, ITensor& cosCache, ITensor& sinCache,
        bool interleaved, int32_t rotaryEmbeddingDim) noexcept = 0;
    //! Refused (nullptr): Kiln has no in-place updates of an input (ICudaEngine::getAliasedInputTensor).
    virtual IKVCacheUpdateLayer* addKVCacheUpdate(
        ITensor& cache, ITensor& update, ITensor& writeIndices, KVCacheMode cacheMode) noexcept = 0;
    //! Refused (nullptr): Kiln has no mixture-of-experts layer yet (TensorRT 10.16).
    virtual IMoELayer* addMoE(
        ITensor& hiddenStates, ITensor& selectedExpertsForTokens, ITensor& scoresForSelectedExperts) noexcept = 0;
    //! Refused (nullptr): Kiln's engines run on one device (TensorRT 10.16; groups lists groupSize ranks).
    virtual IDistCollectiveLayer* addDistCollective(ITensor& input, CollectiveOperation distCollectiveOp,
        ReduceOperation reduceOp, int64_t root, int64_t* groups, int64_t groupSize) noexcept = 0;
    virtual IBuilder& getBuilder() const noexcept = 0;
    //! With BuilderFlag::kREFIT_INDIVIDUAL, the weights named `name` (setWeightsName) are refittable; false for a name
    //! no weights have.
    virtual bool markWeightsRefittable(char const* name) noexcept = 0;
    virtual bool unmarkWeightsRefittable(char const* name) noexcept = 0;
    virtual bool areWeightsMarkedRefittable(char const* name) const noexcept = 0;
    //! Runs as a shuffle (a transpose of the unit axes to the end, then a reshape); getType() is kSQUEEZE.
    virtual ISqueezeLayer* addSqueeze(ITensor& input, ITensor& axes) noexcept = 0;
    //! Runs as a shuffle (a reshape adding unit axes at the end, then a transpose); getType() is kUNSQUEEZE.
    virtual IUnsqueezeLayer* addUnsqueeze(ITensor& input, ITensor& axes) noexcept = 0;
    //! A normalization layer whose isV2() is true. Kiln's normalization already reads scale and bias broadcast to
    //! the input (GroupNormalization's [1, C, 1, 1] included), so both forms compute the same.
    virtual INormalizationLayer* addNormalizationV2(
        ITensor& input, ITensor& scale, ITensor& bias, uint32_t axesMask) noexcept = 0;

    ~INetworkDefinition() noexcept override = default;
};

} // namespace nvinfer1

#endif // NV_INFER_NETWORK_H
