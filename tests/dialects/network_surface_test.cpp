// Every declaration of TensorRT 10's network definition (NvInfer.h: ITensor, ILayer and each layer class, the
// loop and conditional helpers, INetworkDefinition and their enums), named with TensorRT's types: each method's
// address is taken as a pointer of exactly TensorRT's signature (return type, parameters, const, noexcept), each
// class's base and each enumerator's value is checked. A declaration missing from Kiln's headers, or declared with
// another type, fails to compile. Written by a script from a list of TensorRT 10.x's declarations (the list read
// from NVIDIA/TensorRT's include/NvInfer.h); docs/api-coverage.md says which version and what is not listed yet.
// Compiled as application code is (C++17, -Wall -Wextra -Werror) into network_api_test.
#include <NvInfer.h>

#include <type_traits>

namespace
{

using namespace nvinfer1;

template <typename Class, typename Signature>
using MemberOf = Signature Class::*;

//! A method of `Class` named `name` whose type is exactly the signature given last (noexcept included).
#define KILN_NAMES_METHOD(Class, name, ...)                                                                          \
    static_assert(static_cast<MemberOf<Class, __VA_ARGS__>>(&Class::name) != nullptr, #Class "::" #name);

#define KILN_ENUMERATOR(Enum, name, value)                                                                           \
    static_assert(static_cast<int32_t>(Enum::name) == (value), #Enum "::" #name);

// ITensor
KILN_NAMES_METHOD(ITensor, setName, void(char const*) noexcept)
KILN_NAMES_METHOD(ITensor, getName, char const*() const noexcept)
KILN_NAMES_METHOD(ITensor, setDimensions, void(Dims const&) noexcept)
KILN_NAMES_METHOD(ITensor, getDimensions, Dims() const noexcept)
KILN_NAMES_METHOD(ITensor, setType, void(DataType) noexcept)
KILN_NAMES_METHOD(ITensor, getType, DataType() const noexcept)
KILN_NAMES_METHOD(ITensor, setDynamicRange, bool(float, float) noexcept)
KILN_NAMES_METHOD(ITensor, isNetworkInput, bool() const noexcept)
KILN_NAMES_METHOD(ITensor, isNetworkOutput, bool() const noexcept)
KILN_NAMES_METHOD(ITensor, setBroadcastAcrossBatch, void(bool) noexcept)
KILN_NAMES_METHOD(ITensor, getBroadcastAcrossBatch, bool() const noexcept)
KILN_NAMES_METHOD(ITensor, getLocation, TensorLocation() const noexcept)
KILN_NAMES_METHOD(ITensor, setLocation, void(TensorLocation) noexcept)
KILN_NAMES_METHOD(ITensor, dynamicRangeIsSet, bool() const noexcept)
KILN_NAMES_METHOD(ITensor, resetDynamicRange, void() noexcept)
KILN_NAMES_METHOD(ITensor, getDynamicRangeMin, float() const noexcept)
KILN_NAMES_METHOD(ITensor, getDynamicRangeMax, float() const noexcept)
KILN_NAMES_METHOD(ITensor, setAllowedFormats, void(TensorFormats) noexcept)
KILN_NAMES_METHOD(ITensor, getAllowedFormats, TensorFormats() const noexcept)
KILN_NAMES_METHOD(ITensor, isShapeTensor, bool() const noexcept)
KILN_NAMES_METHOD(ITensor, isExecutionTensor, bool() const noexcept)
KILN_NAMES_METHOD(ITensor, setDimensionName, void(int32_t, char const*) noexcept)
KILN_NAMES_METHOD(ITensor, getDimensionName, char const*(int32_t) const noexcept)
// ILayer
KILN_NAMES_METHOD(ILayer, getType, LayerType() const noexcept)
KILN_NAMES_METHOD(ILayer, setName, void(char const*) noexcept)
KILN_NAMES_METHOD(ILayer, getName, char const*() const noexcept)
KILN_NAMES_METHOD(ILayer, getNbInputs, int32_t() const noexcept)
KILN_NAMES_METHOD(ILayer, getInput, ITensor*(int32_t) const noexcept)
KILN_NAMES_METHOD(ILayer, getNbOutputs, int32_t() const noexcept)
KILN_NAMES_METHOD(ILayer, getOutput, ITensor*(int32_t) const noexcept)
KILN_NAMES_METHOD(ILayer, setInput, void(int32_t, ITensor&) noexcept)
KILN_NAMES_METHOD(ILayer, setPrecision, void(DataType) noexcept)
KILN_NAMES_METHOD(ILayer, getPrecision, DataType() const noexcept)
KILN_NAMES_METHOD(ILayer, precisionIsSet, bool() const noexcept)
KILN_NAMES_METHOD(ILayer, resetPrecision, void() noexcept)
KILN_NAMES_METHOD(ILayer, setOutputType, void(int32_t, DataType) noexcept)
KILN_NAMES_METHOD(ILayer, getOutputType, DataType(int32_t) const noexcept)
KILN_NAMES_METHOD(ILayer, outputTypeIsSet, bool(int32_t) const noexcept)
KILN_NAMES_METHOD(ILayer, resetOutputType, void(int32_t) noexcept)
KILN_NAMES_METHOD(ILayer, setMetadata, void(char const*) noexcept)
KILN_NAMES_METHOD(ILayer, getMetadata, char const*() const noexcept)
// IConvolutionLayer
KILN_NAMES_METHOD(IConvolutionLayer, setNbOutputMaps, void(int64_t) noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, getNbOutputMaps, int64_t() const noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, setNbGroups, void(int64_t) noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, getNbGroups, int64_t() const noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, setKernelWeights, void(Weights) noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, getKernelWeights, Weights() const noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, setBiasWeights, void(Weights) noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, getBiasWeights, Weights() const noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, setPrePadding, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, getPrePadding, Dims() const noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, setPostPadding, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, getPostPadding, Dims() const noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, setPaddingMode, void(PaddingMode) noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, getPaddingMode, PaddingMode() const noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, setKernelSizeNd, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, getKernelSizeNd, Dims() const noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, setStrideNd, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, getStrideNd, Dims() const noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, setPaddingNd, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, getPaddingNd, Dims() const noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, setDilationNd, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, getDilationNd, Dims() const noexcept)
KILN_NAMES_METHOD(IConvolutionLayer, setInput, void(int32_t, ITensor&) noexcept)
// IActivationLayer
KILN_NAMES_METHOD(IActivationLayer, setActivationType, void(ActivationType) noexcept)
KILN_NAMES_METHOD(IActivationLayer, getActivationType, ActivationType() const noexcept)
KILN_NAMES_METHOD(IActivationLayer, setAlpha, void(float) noexcept)
KILN_NAMES_METHOD(IActivationLayer, setBeta, void(float) noexcept)
KILN_NAMES_METHOD(IActivationLayer, getAlpha, float() const noexcept)
KILN_NAMES_METHOD(IActivationLayer, getBeta, float() const noexcept)
// IPoolingLayer
KILN_NAMES_METHOD(IPoolingLayer, setPoolingType, void(PoolingType) noexcept)
KILN_NAMES_METHOD(IPoolingLayer, getPoolingType, PoolingType() const noexcept)
KILN_NAMES_METHOD(IPoolingLayer, setBlendFactor, void(float) noexcept)
KILN_NAMES_METHOD(IPoolingLayer, getBlendFactor, float() const noexcept)
KILN_NAMES_METHOD(IPoolingLayer, setAverageCountExcludesPadding, void(bool) noexcept)
KILN_NAMES_METHOD(IPoolingLayer, getAverageCountExcludesPadding, bool() const noexcept)
KILN_NAMES_METHOD(IPoolingLayer, setPrePadding, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IPoolingLayer, getPrePadding, Dims() const noexcept)
KILN_NAMES_METHOD(IPoolingLayer, setPostPadding, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IPoolingLayer, getPostPadding, Dims() const noexcept)
KILN_NAMES_METHOD(IPoolingLayer, setPaddingMode, void(PaddingMode) noexcept)
KILN_NAMES_METHOD(IPoolingLayer, getPaddingMode, PaddingMode() const noexcept)
KILN_NAMES_METHOD(IPoolingLayer, setWindowSizeNd, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IPoolingLayer, getWindowSizeNd, Dims() const noexcept)
KILN_NAMES_METHOD(IPoolingLayer, setStrideNd, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IPoolingLayer, getStrideNd, Dims() const noexcept)
KILN_NAMES_METHOD(IPoolingLayer, setPaddingNd, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IPoolingLayer, getPaddingNd, Dims() const noexcept)
// ILRNLayer
KILN_NAMES_METHOD(ILRNLayer, setWindowSize, void(int64_t) noexcept)
KILN_NAMES_METHOD(ILRNLayer, getWindowSize, int64_t() const noexcept)
KILN_NAMES_METHOD(ILRNLayer, setAlpha, void(float) noexcept)
KILN_NAMES_METHOD(ILRNLayer, getAlpha, float() const noexcept)
KILN_NAMES_METHOD(ILRNLayer, setBeta, void(float) noexcept)
KILN_NAMES_METHOD(ILRNLayer, getBeta, float() const noexcept)
KILN_NAMES_METHOD(ILRNLayer, setK, void(float) noexcept)
KILN_NAMES_METHOD(ILRNLayer, getK, float() const noexcept)
// IScaleLayer
KILN_NAMES_METHOD(IScaleLayer, setMode, void(ScaleMode) noexcept)
KILN_NAMES_METHOD(IScaleLayer, getMode, ScaleMode() const noexcept)
KILN_NAMES_METHOD(IScaleLayer, setShift, void(Weights) noexcept)
KILN_NAMES_METHOD(IScaleLayer, getShift, Weights() const noexcept)
KILN_NAMES_METHOD(IScaleLayer, setScale, void(Weights) noexcept)
KILN_NAMES_METHOD(IScaleLayer, getScale, Weights() const noexcept)
KILN_NAMES_METHOD(IScaleLayer, setPower, void(Weights) noexcept)
KILN_NAMES_METHOD(IScaleLayer, getPower, Weights() const noexcept)
KILN_NAMES_METHOD(IScaleLayer, getChannelAxis, int32_t() const noexcept)
KILN_NAMES_METHOD(IScaleLayer, setChannelAxis, void(int32_t) noexcept)
// ISoftMaxLayer
KILN_NAMES_METHOD(ISoftMaxLayer, setAxes, void(uint32_t) noexcept)
KILN_NAMES_METHOD(ISoftMaxLayer, getAxes, uint32_t() const noexcept)
// IConcatenationLayer
KILN_NAMES_METHOD(IConcatenationLayer, setAxis, void(int32_t) noexcept)
KILN_NAMES_METHOD(IConcatenationLayer, getAxis, int32_t() const noexcept)
// IDeconvolutionLayer
KILN_NAMES_METHOD(IDeconvolutionLayer, setNbOutputMaps, void(int64_t) noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, getNbOutputMaps, int64_t() const noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, setNbGroups, void(int64_t) noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, getNbGroups, int64_t() const noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, setKernelWeights, void(Weights) noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, getKernelWeights, Weights() const noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, setBiasWeights, void(Weights) noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, getBiasWeights, Weights() const noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, setPrePadding, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, getPrePadding, Dims() const noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, setPostPadding, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, getPostPadding, Dims() const noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, setPaddingMode, void(PaddingMode) noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, getPaddingMode, PaddingMode() const noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, setKernelSizeNd, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, getKernelSizeNd, Dims() const noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, setStrideNd, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, getStrideNd, Dims() const noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, setPaddingNd, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, getPaddingNd, Dims() const noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, setInput, void(int32_t, ITensor&) noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, setDilationNd, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IDeconvolutionLayer, getDilationNd, Dims() const noexcept)
// IElementWiseLayer
KILN_NAMES_METHOD(IElementWiseLayer, setOperation, void(ElementWiseOperation) noexcept)
KILN_NAMES_METHOD(IElementWiseLayer, getOperation, ElementWiseOperation() const noexcept)
// IGatherLayer
KILN_NAMES_METHOD(IGatherLayer, setGatherAxis, void(int32_t) noexcept)
KILN_NAMES_METHOD(IGatherLayer, getGatherAxis, int32_t() const noexcept)
KILN_NAMES_METHOD(IGatherLayer, setNbElementWiseDims, void(int32_t) noexcept)
KILN_NAMES_METHOD(IGatherLayer, getNbElementWiseDims, int32_t() const noexcept)
KILN_NAMES_METHOD(IGatherLayer, setMode, void(GatherMode) noexcept)
KILN_NAMES_METHOD(IGatherLayer, getMode, GatherMode() const noexcept)
// IPluginV2Layer
KILN_NAMES_METHOD(IPluginV2Layer, getPlugin, IPluginV2&() noexcept)
// IPluginV3Layer
KILN_NAMES_METHOD(IPluginV3Layer, getPlugin, IPluginV3&() noexcept)
// IUnaryLayer
KILN_NAMES_METHOD(IUnaryLayer, setOperation, void(UnaryOperation) noexcept)
KILN_NAMES_METHOD(IUnaryLayer, getOperation, UnaryOperation() const noexcept)
// IReduceLayer
KILN_NAMES_METHOD(IReduceLayer, setOperation, void(ReduceOperation) noexcept)
KILN_NAMES_METHOD(IReduceLayer, getOperation, ReduceOperation() const noexcept)
KILN_NAMES_METHOD(IReduceLayer, setReduceAxes, void(uint32_t) noexcept)
KILN_NAMES_METHOD(IReduceLayer, getReduceAxes, uint32_t() const noexcept)
KILN_NAMES_METHOD(IReduceLayer, setKeepDimensions, void(bool) noexcept)
KILN_NAMES_METHOD(IReduceLayer, getKeepDimensions, bool() const noexcept)
// IPaddingLayer
KILN_NAMES_METHOD(IPaddingLayer, setPrePaddingNd, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IPaddingLayer, getPrePaddingNd, Dims() const noexcept)
KILN_NAMES_METHOD(IPaddingLayer, setPostPaddingNd, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IPaddingLayer, getPostPaddingNd, Dims() const noexcept)
// IShuffleLayer
KILN_NAMES_METHOD(IShuffleLayer, setFirstTranspose, void(Permutation) noexcept)
KILN_NAMES_METHOD(IShuffleLayer, getFirstTranspose, Permutation() const noexcept)
KILN_NAMES_METHOD(IShuffleLayer, setReshapeDimensions, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IShuffleLayer, getReshapeDimensions, Dims() const noexcept)
KILN_NAMES_METHOD(IShuffleLayer, setInput, void(int32_t, ITensor&) noexcept)
KILN_NAMES_METHOD(IShuffleLayer, setSecondTranspose, void(Permutation) noexcept)
KILN_NAMES_METHOD(IShuffleLayer, getSecondTranspose, Permutation() const noexcept)
KILN_NAMES_METHOD(IShuffleLayer, setZeroIsPlaceholder, void(bool) noexcept)
KILN_NAMES_METHOD(IShuffleLayer, getZeroIsPlaceholder, bool() const noexcept)
// ISliceLayer
KILN_NAMES_METHOD(ISliceLayer, setStart, void(Dims const&) noexcept)
KILN_NAMES_METHOD(ISliceLayer, getStart, Dims() const noexcept)
KILN_NAMES_METHOD(ISliceLayer, setSize, void(Dims const&) noexcept)
KILN_NAMES_METHOD(ISliceLayer, getSize, Dims() const noexcept)
KILN_NAMES_METHOD(ISliceLayer, setStride, void(Dims const&) noexcept)
KILN_NAMES_METHOD(ISliceLayer, getStride, Dims() const noexcept)
KILN_NAMES_METHOD(ISliceLayer, setMode, void(SampleMode) noexcept)
KILN_NAMES_METHOD(ISliceLayer, getMode, SampleMode() const noexcept)
KILN_NAMES_METHOD(ISliceLayer, setInput, void(int32_t, ITensor&) noexcept)
KILN_NAMES_METHOD(ISliceLayer, setAxes, void(Dims const&) noexcept)
KILN_NAMES_METHOD(ISliceLayer, getAxes, Dims() const noexcept)
// ITopKLayer
KILN_NAMES_METHOD(ITopKLayer, setOperation, void(TopKOperation) noexcept)
KILN_NAMES_METHOD(ITopKLayer, getOperation, TopKOperation() const noexcept)
KILN_NAMES_METHOD(ITopKLayer, setK, void(int32_t) noexcept)
KILN_NAMES_METHOD(ITopKLayer, getK, int32_t() const noexcept)
KILN_NAMES_METHOD(ITopKLayer, setReduceAxes, void(uint32_t) noexcept)
KILN_NAMES_METHOD(ITopKLayer, getReduceAxes, uint32_t() const noexcept)
KILN_NAMES_METHOD(ITopKLayer, setInput, void(int32_t, ITensor&) noexcept)
// IMatrixMultiplyLayer
KILN_NAMES_METHOD(IMatrixMultiplyLayer, setOperation, void(int32_t, MatrixOperation) noexcept)
KILN_NAMES_METHOD(IMatrixMultiplyLayer, getOperation, MatrixOperation(int32_t) const noexcept)
// ICastLayer
KILN_NAMES_METHOD(ICastLayer, setToType, void(DataType) noexcept)
KILN_NAMES_METHOD(ICastLayer, getToType, DataType() const noexcept)
// IConstantLayer
KILN_NAMES_METHOD(IConstantLayer, setWeights, void(Weights) noexcept)
KILN_NAMES_METHOD(IConstantLayer, getWeights, Weights() const noexcept)
KILN_NAMES_METHOD(IConstantLayer, setDimensions, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IConstantLayer, getDimensions, Dims() const noexcept)
// IResizeLayer
KILN_NAMES_METHOD(IResizeLayer, setOutputDimensions, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IResizeLayer, getOutputDimensions, Dims() const noexcept)
KILN_NAMES_METHOD(IResizeLayer, setScales, void(float const*, int32_t) noexcept)
KILN_NAMES_METHOD(IResizeLayer, getScales, int32_t(int32_t, float*) const noexcept)
KILN_NAMES_METHOD(IResizeLayer, setResizeMode, void(InterpolationMode) noexcept)
KILN_NAMES_METHOD(IResizeLayer, getResizeMode, InterpolationMode() const noexcept)
KILN_NAMES_METHOD(IResizeLayer, setInput, void(int32_t, ITensor&) noexcept)
KILN_NAMES_METHOD(IResizeLayer, setCoordinateTransformation, void(ResizeCoordinateTransformation) noexcept)
KILN_NAMES_METHOD(IResizeLayer, getCoordinateTransformation, ResizeCoordinateTransformation() const noexcept)
KILN_NAMES_METHOD(IResizeLayer, setSelectorForSinglePixel, void(ResizeSelector) noexcept)
KILN_NAMES_METHOD(IResizeLayer, getSelectorForSinglePixel, ResizeSelector() const noexcept)
KILN_NAMES_METHOD(IResizeLayer, setNearestRounding, void(ResizeRoundMode) noexcept)
KILN_NAMES_METHOD(IResizeLayer, getNearestRounding, ResizeRoundMode() const noexcept)
KILN_NAMES_METHOD(IResizeLayer, setCubicCoeff, void(float) noexcept)
KILN_NAMES_METHOD(IResizeLayer, getCubicCoeff, float() const noexcept)
KILN_NAMES_METHOD(IResizeLayer, setExcludeOutside, void(bool) noexcept)
KILN_NAMES_METHOD(IResizeLayer, getExcludeOutside, bool() const noexcept)
// ILoopBoundaryLayer
KILN_NAMES_METHOD(ILoopBoundaryLayer, getLoop, ILoop*() const noexcept)
// IIfConditionalBoundaryLayer
KILN_NAMES_METHOD(IIfConditionalBoundaryLayer, getConditional, IIfConditional*() const noexcept)
// IIfConditional
KILN_NAMES_METHOD(IIfConditional, setCondition, IConditionLayer*(ITensor&) noexcept)
KILN_NAMES_METHOD(IIfConditional, addOutput, IIfConditionalOutputLayer*(ITensor&, ITensor&) noexcept)
KILN_NAMES_METHOD(IIfConditional, addInput, IIfConditionalInputLayer*(ITensor&) noexcept)
KILN_NAMES_METHOD(IIfConditional, setName, void(char const*) noexcept)
KILN_NAMES_METHOD(IIfConditional, getName, char const*() const noexcept)
// IRecurrenceLayer
KILN_NAMES_METHOD(IRecurrenceLayer, setInput, void(int32_t, ITensor&) noexcept)
// ILoopOutputLayer
KILN_NAMES_METHOD(ILoopOutputLayer, getLoopOutput, LoopOutput() const noexcept)
KILN_NAMES_METHOD(ILoopOutputLayer, setAxis, void(int32_t) noexcept)
KILN_NAMES_METHOD(ILoopOutputLayer, getAxis, int32_t() const noexcept)
KILN_NAMES_METHOD(ILoopOutputLayer, setInput, void(int32_t, ITensor&) noexcept)
// ITripLimitLayer
KILN_NAMES_METHOD(ITripLimitLayer, getTripLimit, TripLimit() const noexcept)
// IIteratorLayer
KILN_NAMES_METHOD(IIteratorLayer, setAxis, void(int32_t) noexcept)
KILN_NAMES_METHOD(IIteratorLayer, getAxis, int32_t() const noexcept)
KILN_NAMES_METHOD(IIteratorLayer, setReverse, void(bool) noexcept)
KILN_NAMES_METHOD(IIteratorLayer, getReverse, bool() const noexcept)
// ILoop
KILN_NAMES_METHOD(ILoop, addRecurrence, IRecurrenceLayer*(ITensor&) noexcept)
KILN_NAMES_METHOD(ILoop, addTripLimit, ITripLimitLayer*(ITensor&, TripLimit) noexcept)
KILN_NAMES_METHOD(ILoop, addIterator, IIteratorLayer*(ITensor&, int32_t, bool) noexcept)
KILN_NAMES_METHOD(ILoop, addLoopOutput, ILoopOutputLayer*(ITensor&, LoopOutput, int32_t) noexcept)
KILN_NAMES_METHOD(ILoop, setName, void(char const*) noexcept)
KILN_NAMES_METHOD(ILoop, getName, char const*() const noexcept)
// IAssertionLayer
KILN_NAMES_METHOD(IAssertionLayer, setMessage, void(char const*) noexcept)
KILN_NAMES_METHOD(IAssertionLayer, getMessage, char const*() const noexcept)
// IFillLayer
KILN_NAMES_METHOD(IFillLayer, setDimensions, void(Dims const&) noexcept)
KILN_NAMES_METHOD(IFillLayer, getDimensions, Dims() const noexcept)
KILN_NAMES_METHOD(IFillLayer, setOperation, void(FillOperation) noexcept)
KILN_NAMES_METHOD(IFillLayer, getOperation, FillOperation() const noexcept)
KILN_NAMES_METHOD(IFillLayer, setAlpha, void(double) noexcept)
KILN_NAMES_METHOD(IFillLayer, getAlpha, double() const noexcept)
KILN_NAMES_METHOD(IFillLayer, setBeta, void(double) noexcept)
KILN_NAMES_METHOD(IFillLayer, getBeta, double() const noexcept)
KILN_NAMES_METHOD(IFillLayer, setInput, void(int32_t, ITensor&) noexcept)
KILN_NAMES_METHOD(IFillLayer, setAlphaInt64, void(int64_t) noexcept)
KILN_NAMES_METHOD(IFillLayer, getAlphaInt64, int64_t() const noexcept)
KILN_NAMES_METHOD(IFillLayer, setBetaInt64, void(int64_t) noexcept)
KILN_NAMES_METHOD(IFillLayer, getBetaInt64, int64_t() const noexcept)
KILN_NAMES_METHOD(IFillLayer, isAlphaBetaInt64, bool() const noexcept)
KILN_NAMES_METHOD(IFillLayer, setToType, void(DataType) noexcept)
KILN_NAMES_METHOD(IFillLayer, getToType, DataType() const noexcept)
// IQuantizeLayer
KILN_NAMES_METHOD(IQuantizeLayer, getAxis, int32_t() const noexcept)
KILN_NAMES_METHOD(IQuantizeLayer, setAxis, void(int32_t) noexcept)
KILN_NAMES_METHOD(IQuantizeLayer, setToType, void(DataType) noexcept)
KILN_NAMES_METHOD(IQuantizeLayer, getToType, DataType() const noexcept)
// IDequantizeLayer
KILN_NAMES_METHOD(IDequantizeLayer, getAxis, int32_t() const noexcept)
KILN_NAMES_METHOD(IDequantizeLayer, setAxis, void(int32_t) noexcept)
KILN_NAMES_METHOD(IDequantizeLayer, setToType, void(DataType) noexcept)
KILN_NAMES_METHOD(IDequantizeLayer, getToType, DataType() const noexcept)
// IDynamicQuantizeLayer
KILN_NAMES_METHOD(IDynamicQuantizeLayer, setToType, void(DataType) noexcept)
KILN_NAMES_METHOD(IDynamicQuantizeLayer, getToType, DataType() const noexcept)
KILN_NAMES_METHOD(IDynamicQuantizeLayer, setScaleType, void(DataType) noexcept)
KILN_NAMES_METHOD(IDynamicQuantizeLayer, getScaleType, DataType() const noexcept)
KILN_NAMES_METHOD(IDynamicQuantizeLayer, setAxis, void(int32_t) noexcept)
KILN_NAMES_METHOD(IDynamicQuantizeLayer, getAxis, int32_t() const noexcept)
KILN_NAMES_METHOD(IDynamicQuantizeLayer, setBlockSize, void(int32_t) noexcept)
KILN_NAMES_METHOD(IDynamicQuantizeLayer, getBlockSize, int32_t() const noexcept)
// IEinsumLayer
KILN_NAMES_METHOD(IEinsumLayer, setEquation, bool(char const*) noexcept)
KILN_NAMES_METHOD(IEinsumLayer, getEquation, char const*() const noexcept)
// IScatterLayer
KILN_NAMES_METHOD(IScatterLayer, setMode, void(ScatterMode) noexcept)
KILN_NAMES_METHOD(IScatterLayer, getMode, ScatterMode() const noexcept)
KILN_NAMES_METHOD(IScatterLayer, setAxis, void(int32_t) noexcept)
KILN_NAMES_METHOD(IScatterLayer, getAxis, int32_t() const noexcept)
// IOneHotLayer
KILN_NAMES_METHOD(IOneHotLayer, setAxis, void(int32_t) noexcept)
KILN_NAMES_METHOD(IOneHotLayer, getAxis, int32_t() const noexcept)
// IGridSampleLayer
KILN_NAMES_METHOD(IGridSampleLayer, setInterpolationMode, void(InterpolationMode) noexcept)
KILN_NAMES_METHOD(IGridSampleLayer, getInterpolationMode, InterpolationMode() const noexcept)
KILN_NAMES_METHOD(IGridSampleLayer, setAlignCorners, void(bool) noexcept)
KILN_NAMES_METHOD(IGridSampleLayer, getAlignCorners, bool() const noexcept)
KILN_NAMES_METHOD(IGridSampleLayer, setSampleMode, bool(SampleMode) noexcept)
KILN_NAMES_METHOD(IGridSampleLayer, getSampleMode, SampleMode() const noexcept)
// INMSLayer
KILN_NAMES_METHOD(INMSLayer, setBoundingBoxFormat, void(BoundingBoxFormat) noexcept)
KILN_NAMES_METHOD(INMSLayer, getBoundingBoxFormat, BoundingBoxFormat() const noexcept)
KILN_NAMES_METHOD(INMSLayer, setTopKBoxLimit, void(int32_t) noexcept)
KILN_NAMES_METHOD(INMSLayer, getTopKBoxLimit, int32_t() const noexcept)
KILN_NAMES_METHOD(INMSLayer, setInput, void(int32_t, ITensor&) noexcept)
// IReverseSequenceLayer
KILN_NAMES_METHOD(IReverseSequenceLayer, setBatchAxis, void(int32_t) noexcept)
KILN_NAMES_METHOD(IReverseSequenceLayer, getBatchAxis, int32_t() const noexcept)
KILN_NAMES_METHOD(IReverseSequenceLayer, setSequenceAxis, void(int32_t) noexcept)
KILN_NAMES_METHOD(IReverseSequenceLayer, getSequenceAxis, int32_t() const noexcept)
// INormalizationLayer
KILN_NAMES_METHOD(INormalizationLayer, setEpsilon, void(float) noexcept)
KILN_NAMES_METHOD(INormalizationLayer, getEpsilon, float() const noexcept)
KILN_NAMES_METHOD(INormalizationLayer, setAxes, void(uint32_t) noexcept)
KILN_NAMES_METHOD(INormalizationLayer, getAxes, uint32_t() const noexcept)
KILN_NAMES_METHOD(INormalizationLayer, setNbGroups, void(int64_t) noexcept)
KILN_NAMES_METHOD(INormalizationLayer, getNbGroups, int64_t() const noexcept)
KILN_NAMES_METHOD(INormalizationLayer, setComputePrecision, void(DataType) noexcept)
KILN_NAMES_METHOD(INormalizationLayer, getComputePrecision, DataType() const noexcept)
// ISqueezeLayer
KILN_NAMES_METHOD(ISqueezeLayer, setInput, void(int32_t, ITensor&) noexcept)
// IUnsqueezeLayer
KILN_NAMES_METHOD(IUnsqueezeLayer, setInput, void(int32_t, ITensor&) noexcept)
// INetworkDefinition
KILN_NAMES_METHOD(INetworkDefinition, addInput, ITensor*(char const*, DataType, Dims const&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, markOutput, void(ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, markDebug, bool(ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, unmarkDebug, bool(ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, isDebugTensor, bool(ITensor const&) const noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addActivation, IActivationLayer*(ITensor&, ActivationType) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addLRN, ILRNLayer*(ITensor&, int64_t, float, float, float) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addScale, IScaleLayer*(ITensor&, ScaleMode, Weights, Weights, Weights) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addSoftMax, ISoftMaxLayer*(ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addConcatenation, IConcatenationLayer*(ITensor* const*, int32_t) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addElementWise,
    IElementWiseLayer*(ITensor&, ITensor&, ElementWiseOperation) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addUnary, IUnaryLayer*(ITensor&, UnaryOperation) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addShuffle, IShuffleLayer*(ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addOneHot, IOneHotLayer*(ITensor&, ITensor&, ITensor&, int32_t) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, getNbLayers, int32_t() const noexcept)
KILN_NAMES_METHOD(INetworkDefinition, getLayer, ILayer*(int32_t) const noexcept)
KILN_NAMES_METHOD(INetworkDefinition, getNbInputs, int32_t() const noexcept)
KILN_NAMES_METHOD(INetworkDefinition, getInput, ITensor*(int32_t) const noexcept)
KILN_NAMES_METHOD(INetworkDefinition, getNbOutputs, int32_t() const noexcept)
KILN_NAMES_METHOD(INetworkDefinition, getOutput, ITensor*(int32_t) const noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addReduce, IReduceLayer*(ITensor&, ReduceOperation, uint32_t, bool) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addTopK, ITopKLayer*(ITensor&, TopKOperation, int32_t, uint32_t) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addGather, IGatherLayer*(ITensor&, ITensor&, int32_t) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addGatherV2, IGatherLayer*(ITensor&, ITensor&, GatherMode) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addRaggedSoftMax, IRaggedSoftMaxLayer*(ITensor&, ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addMatrixMultiply,
    IMatrixMultiplyLayer*(ITensor&, MatrixOperation, ITensor&, MatrixOperation) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addNonZero, INonZeroLayer*(ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addConstant, IConstantLayer*(Dims const&, Weights) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addIdentity, IIdentityLayer*(ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addCast, ICastLayer*(ITensor&, DataType) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, removeTensor, void(ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, unmarkOutput, void(ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addPluginV2, IPluginV2Layer*(ITensor* const*, int32_t, IPluginV2&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addPluginV3,
    IPluginV3Layer*(ITensor* const*, int32_t, ITensor* const*, int32_t, IPluginV3&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addSlice, ISliceLayer*(ITensor&, Dims const&, Dims const&, Dims const&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, setName, void(char const*) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, getName, char const*() const noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addShape, IShapeLayer*(ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, hasImplicitBatchDimension, bool() const noexcept)
KILN_NAMES_METHOD(INetworkDefinition, getFlags, NetworkDefinitionCreationFlags() const noexcept)
KILN_NAMES_METHOD(INetworkDefinition, getFlag, bool(NetworkDefinitionCreationFlag) const noexcept)
KILN_NAMES_METHOD(INetworkDefinition, markOutputForShapes, bool(ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, unmarkOutputForShapes, bool(ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addParametricReLU, IParametricReLULayer*(ITensor&, ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addConvolutionNd,
    IConvolutionLayer*(ITensor&, int64_t, Dims const&, Weights, Weights) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addPoolingNd, IPoolingLayer*(ITensor&, PoolingType, Dims const&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addDeconvolutionNd,
    IDeconvolutionLayer*(ITensor&, int64_t, Dims, Weights, Weights) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addScaleNd,
    IScaleLayer*(ITensor&, ScaleMode, Weights, Weights, Weights, int32_t) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addResize, IResizeLayer*(ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addLoop, ILoop*() noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addIfConditional, IIfConditional*() noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addSelect, ISelectLayer*(ITensor&, ITensor&, ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addAssertion, IAssertionLayer*(ITensor&, char const*) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addFill, IFillLayer*(Dims const&, FillOperation) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addFill, IFillLayer*(Dims const&, FillOperation, DataType) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addPaddingNd, IPaddingLayer*(ITensor&, Dims const&, Dims const&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, setWeightsName, bool(Weights, char const*) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, setErrorRecorder, void(IErrorRecorder*) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, getErrorRecorder, IErrorRecorder*() const noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addDequantize, IDequantizeLayer*(ITensor&, ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addDequantize, IDequantizeLayer*(ITensor&, ITensor&, DataType) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addScatter, IScatterLayer*(ITensor&, ITensor&, ITensor&, ScatterMode) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addQuantize, IQuantizeLayer*(ITensor&, ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addQuantize, IQuantizeLayer*(ITensor&, ITensor&, DataType) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addEinsum, IEinsumLayer*(ITensor* const*, int32_t, char const*) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addGridSample, IGridSampleLayer*(ITensor&, ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addNMS, INMSLayer*(ITensor&, ITensor&, ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addReverseSequence, IReverseSequenceLayer*(ITensor&, ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addNormalization,
    INormalizationLayer*(ITensor&, ITensor&, ITensor&, uint32_t) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, getBuilder, IBuilder&() const noexcept)
KILN_NAMES_METHOD(INetworkDefinition, markWeightsRefittable, bool(char const*) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, unmarkWeightsRefittable, bool(char const*) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, areWeightsMarkedRefittable, bool(char const*) const noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addSqueeze, ISqueezeLayer*(ITensor&, ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addUnsqueeze, IUnsqueezeLayer*(ITensor&, ITensor&) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addDynamicQuantize,
    IDynamicQuantizeLayer*(ITensor&, int32_t, int32_t, DataType, DataType) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, addCumulative,
    ICumulativeLayer*(ITensor&, ITensor&, CumulativeOperation, bool, bool) noexcept)
KILN_NAMES_METHOD(INetworkDefinition, markUnfusedTensorsAsDebugTensors, bool() noexcept)
KILN_NAMES_METHOD(INetworkDefinition, unmarkUnfusedTensorsAsDebugTensors, bool() noexcept)

static_assert(std::is_base_of_v<INoCopy, ILayer>, "ILayer derives from INoCopy");
static_assert(std::is_base_of_v<ILayer, IConvolutionLayer>, "IConvolutionLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IActivationLayer>, "IActivationLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IPoolingLayer>, "IPoolingLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, ILRNLayer>, "ILRNLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IScaleLayer>, "IScaleLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, ISoftMaxLayer>, "ISoftMaxLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IConcatenationLayer>, "IConcatenationLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IDeconvolutionLayer>, "IDeconvolutionLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IElementWiseLayer>, "IElementWiseLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IGatherLayer>, "IGatherLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IPluginV2Layer>, "IPluginV2Layer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IPluginV3Layer>, "IPluginV3Layer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IUnaryLayer>, "IUnaryLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IReduceLayer>, "IReduceLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IPaddingLayer>, "IPaddingLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IShuffleLayer>, "IShuffleLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, ISliceLayer>, "ISliceLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IShapeLayer>, "IShapeLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, ITopKLayer>, "ITopKLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IMatrixMultiplyLayer>, "IMatrixMultiplyLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, INonZeroLayer>, "INonZeroLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IRaggedSoftMaxLayer>, "IRaggedSoftMaxLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IIdentityLayer>, "IIdentityLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, ICastLayer>, "ICastLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IConstantLayer>, "IConstantLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IParametricReLULayer>, "IParametricReLULayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IResizeLayer>, "IResizeLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, ILoopBoundaryLayer>, "ILoopBoundaryLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IIfConditionalBoundaryLayer>);
static_assert(std::is_base_of_v<IIfConditionalBoundaryLayer, IConditionLayer>);
static_assert(std::is_base_of_v<IIfConditionalBoundaryLayer, IIfConditionalOutputLayer>);
static_assert(std::is_base_of_v<IIfConditionalBoundaryLayer, IIfConditionalInputLayer>);
static_assert(std::is_base_of_v<INoCopy, IIfConditional>, "IIfConditional derives from INoCopy");
static_assert(std::is_base_of_v<ILoopBoundaryLayer, IRecurrenceLayer>);
static_assert(std::is_base_of_v<ILoopBoundaryLayer, ILoopOutputLayer>);
static_assert(std::is_base_of_v<ILoopBoundaryLayer, ITripLimitLayer>);
static_assert(std::is_base_of_v<ILoopBoundaryLayer, IIteratorLayer>, "IIteratorLayer derives from ILoopBoundaryLayer");
static_assert(std::is_base_of_v<INoCopy, ILoop>, "ILoop derives from INoCopy");
static_assert(std::is_base_of_v<ILayer, ISelectLayer>, "ISelectLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IAssertionLayer>, "IAssertionLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IFillLayer>, "IFillLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IQuantizeLayer>, "IQuantizeLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IDequantizeLayer>, "IDequantizeLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IDynamicQuantizeLayer>, "IDynamicQuantizeLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IEinsumLayer>, "IEinsumLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IScatterLayer>, "IScatterLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IOneHotLayer>, "IOneHotLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IGridSampleLayer>, "IGridSampleLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, INMSLayer>, "INMSLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IReverseSequenceLayer>, "IReverseSequenceLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, INormalizationLayer>, "INormalizationLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, ISqueezeLayer>, "ISqueezeLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, IUnsqueezeLayer>, "IUnsqueezeLayer derives from ILayer");
static_assert(std::is_base_of_v<ILayer, ICumulativeLayer>, "ICumulativeLayer derives from ILayer");
static_assert(std::is_base_of_v<INoCopy, INetworkDefinition>, "INetworkDefinition derives from INoCopy");
static_assert(std::is_base_of_v<INoCopy, ITensor>, "ITensor derives from INoCopy");
static_assert(std::is_same_v<TensorFormats, uint32_t>);
static_assert(std::is_same_v<NetworkDefinitionCreationFlags, uint32_t>);

KILN_ENUMERATOR(LayerType, kCONVOLUTION, 0)
KILN_ENUMERATOR(LayerType, kCAST, 1)
KILN_ENUMERATOR(LayerType, kACTIVATION, 2)
KILN_ENUMERATOR(LayerType, kPOOLING, 3)
KILN_ENUMERATOR(LayerType, kLRN, 4)
KILN_ENUMERATOR(LayerType, kSCALE, 5)
KILN_ENUMERATOR(LayerType, kSOFTMAX, 6)
KILN_ENUMERATOR(LayerType, kDECONVOLUTION, 7)
KILN_ENUMERATOR(LayerType, kCONCATENATION, 8)
KILN_ENUMERATOR(LayerType, kELEMENTWISE, 9)
KILN_ENUMERATOR(LayerType, kPLUGIN, 10)
KILN_ENUMERATOR(LayerType, kUNARY, 11)
KILN_ENUMERATOR(LayerType, kPADDING, 12)
KILN_ENUMERATOR(LayerType, kSHUFFLE, 13)
KILN_ENUMERATOR(LayerType, kREDUCE, 14)
KILN_ENUMERATOR(LayerType, kTOPK, 15)
KILN_ENUMERATOR(LayerType, kGATHER, 16)
KILN_ENUMERATOR(LayerType, kMATRIX_MULTIPLY, 17)
KILN_ENUMERATOR(LayerType, kRAGGED_SOFTMAX, 18)
KILN_ENUMERATOR(LayerType, kCONSTANT, 19)
KILN_ENUMERATOR(LayerType, kIDENTITY, 20)
KILN_ENUMERATOR(LayerType, kPLUGIN_V2, 21)
KILN_ENUMERATOR(LayerType, kSLICE, 22)
KILN_ENUMERATOR(LayerType, kSHAPE, 23)
KILN_ENUMERATOR(LayerType, kPARAMETRIC_RELU, 24)
KILN_ENUMERATOR(LayerType, kRESIZE, 25)
KILN_ENUMERATOR(LayerType, kTRIP_LIMIT, 26)
KILN_ENUMERATOR(LayerType, kRECURRENCE, 27)
KILN_ENUMERATOR(LayerType, kITERATOR, 28)
KILN_ENUMERATOR(LayerType, kLOOP_OUTPUT, 29)
KILN_ENUMERATOR(LayerType, kSELECT, 30)
KILN_ENUMERATOR(LayerType, kFILL, 31)
KILN_ENUMERATOR(LayerType, kQUANTIZE, 32)
KILN_ENUMERATOR(LayerType, kDEQUANTIZE, 33)
KILN_ENUMERATOR(LayerType, kCONDITION, 34)
KILN_ENUMERATOR(LayerType, kCONDITIONAL_INPUT, 35)
KILN_ENUMERATOR(LayerType, kCONDITIONAL_OUTPUT, 36)
KILN_ENUMERATOR(LayerType, kSCATTER, 37)
KILN_ENUMERATOR(LayerType, kEINSUM, 38)
KILN_ENUMERATOR(LayerType, kASSERTION, 39)
KILN_ENUMERATOR(LayerType, kONE_HOT, 40)
KILN_ENUMERATOR(LayerType, kNON_ZERO, 41)
KILN_ENUMERATOR(LayerType, kGRID_SAMPLE, 42)
KILN_ENUMERATOR(LayerType, kNMS, 43)
KILN_ENUMERATOR(LayerType, kREVERSE_SEQUENCE, 44)
KILN_ENUMERATOR(LayerType, kNORMALIZATION, 45)
KILN_ENUMERATOR(LayerType, kPLUGIN_V3, 46)
KILN_ENUMERATOR(LayerType, kSQUEEZE, 47)
KILN_ENUMERATOR(LayerType, kUNSQUEEZE, 48)
static_assert(EnumMax<LayerType>() >= 49);
KILN_ENUMERATOR(ActivationType, kRELU, 0)
KILN_ENUMERATOR(ActivationType, kSIGMOID, 1)
KILN_ENUMERATOR(ActivationType, kTANH, 2)
KILN_ENUMERATOR(ActivationType, kLEAKY_RELU, 3)
KILN_ENUMERATOR(ActivationType, kELU, 4)
KILN_ENUMERATOR(ActivationType, kSELU, 5)
KILN_ENUMERATOR(ActivationType, kSOFTSIGN, 6)
KILN_ENUMERATOR(ActivationType, kSOFTPLUS, 7)
KILN_ENUMERATOR(ActivationType, kCLIP, 8)
KILN_ENUMERATOR(ActivationType, kHARD_SIGMOID, 9)
KILN_ENUMERATOR(ActivationType, kSCALED_TANH, 10)
KILN_ENUMERATOR(ActivationType, kTHRESHOLDED_RELU, 11)
KILN_ENUMERATOR(ActivationType, kGELU_ERF, 12)
KILN_ENUMERATOR(ActivationType, kGELU_TANH, 13)
static_assert(EnumMax<ActivationType>() >= 14);
KILN_ENUMERATOR(PaddingMode, kEXPLICIT_ROUND_DOWN, 0)
KILN_ENUMERATOR(PaddingMode, kEXPLICIT_ROUND_UP, 1)
KILN_ENUMERATOR(PaddingMode, kSAME_UPPER, 2)
KILN_ENUMERATOR(PaddingMode, kSAME_LOWER, 3)
static_assert(EnumMax<PaddingMode>() >= 4);
KILN_ENUMERATOR(PoolingType, kMAX, 0)
KILN_ENUMERATOR(PoolingType, kAVERAGE, 1)
KILN_ENUMERATOR(PoolingType, kMAX_AVERAGE_BLEND, 2)
static_assert(EnumMax<PoolingType>() >= 3);
KILN_ENUMERATOR(ScaleMode, kUNIFORM, 0)
KILN_ENUMERATOR(ScaleMode, kCHANNEL, 1)
KILN_ENUMERATOR(ScaleMode, kELEMENTWISE, 2)
static_assert(EnumMax<ScaleMode>() >= 3);
KILN_ENUMERATOR(ElementWiseOperation, kSUM, 0)
KILN_ENUMERATOR(ElementWiseOperation, kPROD, 1)
KILN_ENUMERATOR(ElementWiseOperation, kMAX, 2)
KILN_ENUMERATOR(ElementWiseOperation, kMIN, 3)
KILN_ENUMERATOR(ElementWiseOperation, kSUB, 4)
KILN_ENUMERATOR(ElementWiseOperation, kDIV, 5)
KILN_ENUMERATOR(ElementWiseOperation, kPOW, 6)
KILN_ENUMERATOR(ElementWiseOperation, kFLOOR_DIV, 7)
KILN_ENUMERATOR(ElementWiseOperation, kAND, 8)
KILN_ENUMERATOR(ElementWiseOperation, kOR, 9)
KILN_ENUMERATOR(ElementWiseOperation, kXOR, 10)
KILN_ENUMERATOR(ElementWiseOperation, kEQUAL, 11)
KILN_ENUMERATOR(ElementWiseOperation, kGREATER, 12)
KILN_ENUMERATOR(ElementWiseOperation, kLESS, 13)
static_assert(EnumMax<ElementWiseOperation>() >= 14);
KILN_ENUMERATOR(GatherMode, kDEFAULT, 0)
KILN_ENUMERATOR(GatherMode, kELEMENT, 1)
KILN_ENUMERATOR(GatherMode, kND, 2)
static_assert(EnumMax<GatherMode>() >= 3);
KILN_ENUMERATOR(UnaryOperation, kEXP, 0)
KILN_ENUMERATOR(UnaryOperation, kLOG, 1)
KILN_ENUMERATOR(UnaryOperation, kSQRT, 2)
KILN_ENUMERATOR(UnaryOperation, kRECIP, 3)
KILN_ENUMERATOR(UnaryOperation, kABS, 4)
KILN_ENUMERATOR(UnaryOperation, kNEG, 5)
KILN_ENUMERATOR(UnaryOperation, kSIN, 6)
KILN_ENUMERATOR(UnaryOperation, kCOS, 7)
KILN_ENUMERATOR(UnaryOperation, kTAN, 8)
KILN_ENUMERATOR(UnaryOperation, kSINH, 9)
KILN_ENUMERATOR(UnaryOperation, kCOSH, 10)
KILN_ENUMERATOR(UnaryOperation, kASIN, 11)
KILN_ENUMERATOR(UnaryOperation, kACOS, 12)
KILN_ENUMERATOR(UnaryOperation, kATAN, 13)
KILN_ENUMERATOR(UnaryOperation, kASINH, 14)
KILN_ENUMERATOR(UnaryOperation, kACOSH, 15)
KILN_ENUMERATOR(UnaryOperation, kATANH, 16)
KILN_ENUMERATOR(UnaryOperation, kCEIL, 17)
KILN_ENUMERATOR(UnaryOperation, kFLOOR, 18)
KILN_ENUMERATOR(UnaryOperation, kERF, 19)
KILN_ENUMERATOR(UnaryOperation, kNOT, 20)
KILN_ENUMERATOR(UnaryOperation, kSIGN, 21)
KILN_ENUMERATOR(UnaryOperation, kROUND, 22)
KILN_ENUMERATOR(UnaryOperation, kISINF, 23)
KILN_ENUMERATOR(UnaryOperation, kISNAN, 24)
static_assert(EnumMax<UnaryOperation>() >= 25);
KILN_ENUMERATOR(ReduceOperation, kSUM, 0)
KILN_ENUMERATOR(ReduceOperation, kPROD, 1)
KILN_ENUMERATOR(ReduceOperation, kMAX, 2)
KILN_ENUMERATOR(ReduceOperation, kMIN, 3)
KILN_ENUMERATOR(ReduceOperation, kAVG, 4)
static_assert(EnumMax<ReduceOperation>() >= 5);
KILN_ENUMERATOR(SampleMode, kSTRICT_BOUNDS, 0)
KILN_ENUMERATOR(SampleMode, kWRAP, 1)
KILN_ENUMERATOR(SampleMode, kCLAMP, 2)
KILN_ENUMERATOR(SampleMode, kFILL, 3)
KILN_ENUMERATOR(SampleMode, kREFLECT, 4)
static_assert(EnumMax<SampleMode>() >= 5);
KILN_ENUMERATOR(TopKOperation, kMAX, 0)
KILN_ENUMERATOR(TopKOperation, kMIN, 1)
static_assert(EnumMax<TopKOperation>() >= 2);
KILN_ENUMERATOR(MatrixOperation, kNONE, 0)
KILN_ENUMERATOR(MatrixOperation, kTRANSPOSE, 1)
KILN_ENUMERATOR(MatrixOperation, kVECTOR, 2)
static_assert(EnumMax<MatrixOperation>() >= 3);
KILN_ENUMERATOR(InterpolationMode, kNEAREST, 0)
KILN_ENUMERATOR(InterpolationMode, kLINEAR, 1)
KILN_ENUMERATOR(InterpolationMode, kCUBIC, 2)
static_assert(EnumMax<InterpolationMode>() >= 3);
KILN_ENUMERATOR(ResizeCoordinateTransformation, kALIGN_CORNERS, 0)
KILN_ENUMERATOR(ResizeCoordinateTransformation, kASYMMETRIC, 1)
KILN_ENUMERATOR(ResizeCoordinateTransformation, kHALF_PIXEL, 2)
static_assert(EnumMax<ResizeCoordinateTransformation>() >= 3);
KILN_ENUMERATOR(ResizeSelector, kFORMULA, 0)
KILN_ENUMERATOR(ResizeSelector, kUPPER, 1)
static_assert(EnumMax<ResizeSelector>() >= 2);
KILN_ENUMERATOR(ResizeRoundMode, kHALF_UP, 0)
KILN_ENUMERATOR(ResizeRoundMode, kHALF_DOWN, 1)
KILN_ENUMERATOR(ResizeRoundMode, kFLOOR, 2)
KILN_ENUMERATOR(ResizeRoundMode, kCEIL, 3)
static_assert(EnumMax<ResizeRoundMode>() >= 4);
KILN_ENUMERATOR(LoopOutput, kLAST_VALUE, 0)
KILN_ENUMERATOR(LoopOutput, kCONCATENATE, 1)
KILN_ENUMERATOR(LoopOutput, kREVERSE, 2)
static_assert(EnumMax<LoopOutput>() >= 3);
KILN_ENUMERATOR(TripLimit, kCOUNT, 0)
KILN_ENUMERATOR(TripLimit, kWHILE, 1)
static_assert(EnumMax<TripLimit>() >= 2);
KILN_ENUMERATOR(FillOperation, kLINSPACE, 0)
KILN_ENUMERATOR(FillOperation, kRANDOM_UNIFORM, 1)
KILN_ENUMERATOR(FillOperation, kRANDOM_NORMAL, 2)
static_assert(EnumMax<FillOperation>() >= 3);
KILN_ENUMERATOR(ScatterMode, kELEMENT, 0)
KILN_ENUMERATOR(ScatterMode, kND, 1)
static_assert(EnumMax<ScatterMode>() >= 2);
KILN_ENUMERATOR(BoundingBoxFormat, kCORNER_PAIRS, 0)
KILN_ENUMERATOR(BoundingBoxFormat, kCENTER_SIZES, 1)
static_assert(EnumMax<BoundingBoxFormat>() >= 2);

#undef KILN_NAMES_METHOD
#undef KILN_ENUMERATOR

} // namespace
