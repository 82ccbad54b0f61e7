# Writes network_surface_test.cpp (python3 gen_network_surface.py network_surface_test.cpp) from a compact list of
# TensorRT 10.x's declarations: NvInfer.h's network part and algorithm selectors, as read from NVIDIA/TensorRT's
# include/NvInfer.h (10.7 level) and checked against TensorRT 10.15.1's NvInfer.h (the 10.15.1.29 header vendored by
# rustnn/trtx-rs, trtx-sys/TensorRT-Headers): attention, rotary embedding, KV-cache update, the indices types, block
# shapes and the V2 forms come from the latter. TensorRT 10.16's additions (the same repository's
# TRT-Enterprise-10.16/NvInfer.h): ILayer and IAttention set/getNbRanks, IMoELayer, IDistCollectiveLayer, addMoE,
# addDistCollective, MoEActType, CollectiveOperation, ReduceOperation::kNONE, LayerType::kMOE and kDIST_COLLECTIVE.
# Within a class the methods are in TensorRT's order.
import re
import sys

# One method a line: `Class method Return(Parameters)`, ` c` at the end for a const method; all are noexcept.
methods = '''
ITensor setName void(char const*)
ITensor getName char const*() c
ITensor setDimensions void(Dims const&)
ITensor getDimensions Dims() c
ITensor setType void(DataType)
ITensor getType DataType() c
ITensor setDynamicRange bool(float, float)
ITensor isNetworkInput bool() c
ITensor isNetworkOutput bool() c
ITensor setBroadcastAcrossBatch void(bool)
ITensor getBroadcastAcrossBatch bool() c
ITensor getLocation TensorLocation() c
ITensor setLocation void(TensorLocation)
ITensor dynamicRangeIsSet bool() c
ITensor resetDynamicRange void()
ITensor getDynamicRangeMin float() c
ITensor getDynamicRangeMax float() c
ITensor setAllowedFormats void(TensorFormats)
ITensor getAllowedFormats TensorFormats() c
ITensor isShapeTensor bool() c
ITensor isExecutionTensor bool() c
ITensor setDimensionName void(int32_t, char const*)
ITensor getDimensionName char const*(int32_t) c
ILayer getType LayerType() c
ILayer setName void(char const*)
ILayer getName char const*() c
ILayer getNbInputs int32_t() c
ILayer getInput ITensor*(int32_t) c
ILayer getNbOutputs int32_t() c
ILayer getOutput ITensor*(int32_t) c
ILayer setInput void(int32_t, ITensor&)
ILayer setPrecision void(DataType)
ILayer getPrecision DataType() c
ILayer precisionIsSet bool() c
ILayer resetPrecision void()
ILayer setOutputType void(int32_t, DataType)
ILayer getOutputType DataType(int32_t) c
ILayer outputTypeIsSet bool(int32_t) c
ILayer resetOutputType void(int32_t)
ILayer setMetadata void(char const*)
ILayer getMetadata char const*() c
ILayer setNbRanks bool(int32_t)
ILayer getNbRanks int32_t() c
IConvolutionLayer setNbOutputMaps void(int64_t)
IConvolutionLayer getNbOutputMaps int64_t() c
IConvolutionLayer setNbGroups void(int64_t)
IConvolutionLayer getNbGroups int64_t() c
IConvolutionLayer setKernelWeights void(Weights)
IConvolutionLayer getKernelWeights Weights() c
IConvolutionLayer setBiasWeights void(Weights)
IConvolutionLayer getBiasWeights Weights() c
IConvolutionLayer setPrePadding void(Dims const&)
IConvolutionLayer getPrePadding Dims() c
IConvolutionLayer setPostPadding void(Dims const&)
IConvolutionLayer getPostPadding Dims() c
IConvolutionLayer setPaddingMode void(PaddingMode)
IConvolutionLayer getPaddingMode PaddingMode() c
IConvolutionLayer setKernelSizeNd void(Dims const&)
IConvolutionLayer getKernelSizeNd Dims() c
IConvolutionLayer setStrideNd void(Dims const&)
IConvolutionLayer getStrideNd Dims() c
IConvolutionLayer setPaddingNd void(Dims const&)
IConvolutionLayer getPaddingNd Dims() c
IConvolutionLayer setDilationNd void(Dims const&)
IConvolutionLayer getDilationNd Dims() c
IConvolutionLayer setInput void(int32_t, ITensor&)
IActivationLayer setActivationType void(ActivationType)
IActivationLayer getActivationType ActivationType() c
IActivationLayer setAlpha void(float)
IActivationLayer setBeta void(float)
IActivationLayer getAlpha float() c
IActivationLayer getBeta float() c
IPoolingLayer setPoolingType void(PoolingType)
IPoolingLayer getPoolingType PoolingType() c
IPoolingLayer setBlendFactor void(float)
IPoolingLayer getBlendFactor float() c
IPoolingLayer setAverageCountExcludesPadding void(bool)
IPoolingLayer getAverageCountExcludesPadding bool() c
IPoolingLayer setPrePadding void(Dims const&)
IPoolingLayer getPrePadding Dims() c
IPoolingLayer setPostPadding void(Dims const&)
IPoolingLayer getPostPadding Dims() c
IPoolingLayer setPaddingMode void(PaddingMode)
IPoolingLayer getPaddingMode PaddingMode() c
IPoolingLayer setWindowSizeNd void(Dims const&)
IPoolingLayer getWindowSizeNd Dims() c
IPoolingLayer setStrideNd void(Dims const&)
IPoolingLayer getStrideNd Dims() c
IPoolingLayer setPaddingNd void(Dims const&)
IPoolingLayer getPaddingNd Dims() c
ILRNLayer setWindowSize void(int64_t)
ILRNLayer getWindowSize int64_t() c
ILRNLayer setAlpha void(float)
ILRNLayer getAlpha float() c
ILRNLayer setBeta void(float)
ILRNLayer getBeta float() c
ILRNLayer setK void(float)
ILRNLayer getK float() c
IScaleLayer setMode void(ScaleMode)
IScaleLayer getMode ScaleMode() c
IScaleLayer setShift void(Weights)
IScaleLayer getShift Weights() c
IScaleLayer setScale void(Weights)
IScaleLayer getScale Weights() c
IScaleLayer setPower void(Weights)
IScaleLayer getPower Weights() c
IScaleLayer getChannelAxis int32_t() c
IScaleLayer setChannelAxis void(int32_t)
ISoftMaxLayer setAxes void(uint32_t)
ISoftMaxLayer getAxes uint32_t() c
IConcatenationLayer setAxis void(int32_t)
IConcatenationLayer getAxis int32_t() c
IDeconvolutionLayer setNbOutputMaps void(int64_t)
IDeconvolutionLayer getNbOutputMaps int64_t() c
IDeconvolutionLayer setNbGroups void(int64_t)
IDeconvolutionLayer getNbGroups int64_t() c
IDeconvolutionLayer setKernelWeights void(Weights)
IDeconvolutionLayer getKernelWeights Weights() c
IDeconvolutionLayer setBiasWeights void(Weights)
IDeconvolutionLayer getBiasWeights Weights() c
IDeconvolutionLayer setPrePadding void(Dims const&)
IDeconvolutionLayer getPrePadding Dims() c
IDeconvolutionLayer setPostPadding void(Dims const&)
IDeconvolutionLayer getPostPadding Dims() c
IDeconvolutionLayer setPaddingMode void(PaddingMode)
IDeconvolutionLayer getPaddingMode PaddingMode() c
IDeconvolutionLayer setKernelSizeNd void(Dims const&)
IDeconvolutionLayer getKernelSizeNd Dims() c
IDeconvolutionLayer setStrideNd void(Dims const&)
IDeconvolutionLayer getStrideNd Dims() c
IDeconvolutionLayer setPaddingNd void(Dims const&)
IDeconvolutionLayer getPaddingNd Dims() c
IDeconvolutionLayer setInput void(int32_t, ITensor&)
IDeconvolutionLayer setDilationNd void(Dims const&)
IDeconvolutionLayer getDilationNd Dims() c
IElementWiseLayer setOperation void(ElementWiseOperation)
IElementWiseLayer getOperation ElementWiseOperation() c
IGatherLayer setGatherAxis void(int32_t)
IGatherLayer getGatherAxis int32_t() c
IGatherLayer setNbElementWiseDims void(int32_t)
IGatherLayer getNbElementWiseDims int32_t() c
IGatherLayer setMode void(GatherMode)
IGatherLayer getMode GatherMode() c
IPluginV2Layer getPlugin IPluginV2&()
IPluginV3Layer getPlugin IPluginV3&()
IUnaryLayer setOperation void(UnaryOperation)
IUnaryLayer getOperation UnaryOperation() c
IReduceLayer setOperation void(ReduceOperation)
IReduceLayer getOperation ReduceOperation() c
IReduceLayer setReduceAxes void(uint32_t)
IReduceLayer getReduceAxes uint32_t() c
IReduceLayer setKeepDimensions void(bool)
IReduceLayer getKeepDimensions bool() c
IPaddingLayer setPrePaddingNd void(Dims const&)
IPaddingLayer getPrePaddingNd Dims() c
IPaddingLayer setPostPaddingNd void(Dims const&)
IPaddingLayer getPostPaddingNd Dims() c
IShuffleLayer setFirstTranspose void(Permutation)
IShuffleLayer getFirstTranspose Permutation() c
IShuffleLayer setReshapeDimensions void(Dims const&)
IShuffleLayer getReshapeDimensions Dims() c
IShuffleLayer setInput void(int32_t, ITensor&)
IShuffleLayer setSecondTranspose void(Permutation)
IShuffleLayer getSecondTranspose Permutation() c
IShuffleLayer setZeroIsPlaceholder void(bool)
IShuffleLayer getZeroIsPlaceholder bool() c
ISliceLayer setStart void(Dims const&)
ISliceLayer getStart Dims() c
ISliceLayer setSize void(Dims const&)
ISliceLayer getSize Dims() c
ISliceLayer setStride void(Dims const&)
ISliceLayer getStride Dims() c
ISliceLayer setMode void(SampleMode)
ISliceLayer getMode SampleMode() c
ISliceLayer setInput void(int32_t, ITensor&)
ISliceLayer setAxes void(Dims const&)
ISliceLayer getAxes Dims() c
ITopKLayer setOperation void(TopKOperation)
ITopKLayer getOperation TopKOperation() c
ITopKLayer setK void(int32_t)
ITopKLayer getK int32_t() c
ITopKLayer setReduceAxes void(uint32_t)
ITopKLayer getReduceAxes uint32_t() c
ITopKLayer setInput void(int32_t, ITensor&)
ITopKLayer setIndicesType bool(DataType)
ITopKLayer getIndicesType DataType() c
IMatrixMultiplyLayer setOperation void(int32_t, MatrixOperation)
IMatrixMultiplyLayer getOperation MatrixOperation(int32_t) c
ICastLayer setToType void(DataType)
ICastLayer getToType DataType() c
IConstantLayer setWeights void(Weights)
IConstantLayer getWeights Weights() c
IConstantLayer setDimensions void(Dims const&)
IConstantLayer getDimensions Dims() c
IResizeLayer setOutputDimensions void(Dims const&)
IResizeLayer getOutputDimensions Dims() c
IResizeLayer setScales void(float const*, int32_t)
IResizeLayer getScales int32_t(int32_t, float*) c
IResizeLayer setResizeMode void(InterpolationMode)
IResizeLayer getResizeMode InterpolationMode() c
IResizeLayer setInput void(int32_t, ITensor&)
IResizeLayer setCoordinateTransformation void(ResizeCoordinateTransformation)
IResizeLayer getCoordinateTransformation ResizeCoordinateTransformation() c
IResizeLayer setSelectorForSinglePixel void(ResizeSelector)
IResizeLayer getSelectorForSinglePixel ResizeSelector() c
IResizeLayer setNearestRounding void(ResizeRoundMode)
IResizeLayer getNearestRounding ResizeRoundMode() c
IResizeLayer setCubicCoeff void(float)
IResizeLayer getCubicCoeff float() c
IResizeLayer setExcludeOutside void(bool)
IResizeLayer getExcludeOutside bool() c
ILoopBoundaryLayer getLoop ILoop*() c
IIfConditionalBoundaryLayer getConditional IIfConditional*() c
IIfConditional setCondition IConditionLayer*(ITensor&)
IIfConditional addOutput IIfConditionalOutputLayer*(ITensor&, ITensor&)
IIfConditional addInput IIfConditionalInputLayer*(ITensor&)
IIfConditional setName void(char const*)
IIfConditional getName char const*() c
IRecurrenceLayer setInput void(int32_t, ITensor&)
ILoopOutputLayer getLoopOutput LoopOutput() c
ILoopOutputLayer setAxis void(int32_t)
ILoopOutputLayer getAxis int32_t() c
ILoopOutputLayer setInput void(int32_t, ITensor&)
ITripLimitLayer getTripLimit TripLimit() c
IIteratorLayer setAxis void(int32_t)
IIteratorLayer getAxis int32_t() c
IIteratorLayer setReverse void(bool)
IIteratorLayer getReverse bool() c
ILoop addRecurrence IRecurrenceLayer*(ITensor&)
ILoop addTripLimit ITripLimitLayer*(ITensor&, TripLimit)
ILoop addIterator IIteratorLayer*(ITensor&, int32_t, bool)
ILoop addLoopOutput ILoopOutputLayer*(ITensor&, LoopOutput, int32_t)
ILoop setName void(char const*)
ILoop getName char const*() c
IAssertionLayer setMessage void(char const*)
IAssertionLayer getMessage char const*() c
IFillLayer setDimensions void(Dims const&)
IFillLayer getDimensions Dims() c
IFillLayer setOperation void(FillOperation)
IFillLayer getOperation FillOperation() c
IFillLayer setAlpha void(double)
IFillLayer getAlpha double() c
IFillLayer setBeta void(double)
IFillLayer getBeta double() c
IFillLayer setInput void(int32_t, ITensor&)
IFillLayer setAlphaInt64 void(int64_t)
IFillLayer getAlphaInt64 int64_t() c
IFillLayer setBetaInt64 void(int64_t)
IFillLayer getBetaInt64 int64_t() c
IFillLayer isAlphaBetaInt64 bool() c
IFillLayer setToType void(DataType)
IFillLayer getToType DataType() c
IQuantizeLayer getAxis int32_t() c
IQuantizeLayer setAxis void(int32_t)
IQuantizeLayer setBlockShape bool(Dims const&)
IQuantizeLayer getBlockShape Dims() c
IQuantizeLayer setToType void(DataType)
IQuantizeLayer getToType DataType() c
IDequantizeLayer getAxis int32_t() c
IDequantizeLayer setAxis void(int32_t)
IDequantizeLayer setBlockShape bool(Dims const&)
IDequantizeLayer getBlockShape Dims() c
IDequantizeLayer setToType void(DataType)
IDequantizeLayer getToType DataType() c
IDynamicQuantizeLayer setInput void(int32_t, ITensor&)
IDynamicQuantizeLayer setToType void(DataType)
IDynamicQuantizeLayer getToType DataType() c
IDynamicQuantizeLayer setScaleType void(DataType)
IDynamicQuantizeLayer getScaleType DataType() c
IDynamicQuantizeLayer setAxis void(int32_t)
IDynamicQuantizeLayer getAxis int32_t() c
IDynamicQuantizeLayer setBlockSize void(int32_t)
IDynamicQuantizeLayer getBlockSize int32_t() c
IDynamicQuantizeLayer setBlockShape void(Dims const&)
IDynamicQuantizeLayer getBlockShape Dims() c
IEinsumLayer setEquation bool(char const*)
IEinsumLayer getEquation char const*() c
IScatterLayer setMode void(ScatterMode)
IScatterLayer getMode ScatterMode() c
IScatterLayer setAxis void(int32_t)
IScatterLayer getAxis int32_t() c
IOneHotLayer setAxis void(int32_t)
IOneHotLayer getAxis int32_t() c
IGridSampleLayer setInterpolationMode void(InterpolationMode)
IGridSampleLayer getInterpolationMode InterpolationMode() c
IGridSampleLayer setAlignCorners void(bool)
IGridSampleLayer getAlignCorners bool() c
IGridSampleLayer setSampleMode bool(SampleMode)
IGridSampleLayer getSampleMode SampleMode() c
INMSLayer setBoundingBoxFormat void(BoundingBoxFormat)
INMSLayer getBoundingBoxFormat BoundingBoxFormat() c
INMSLayer setTopKBoxLimit void(int32_t)
INMSLayer getTopKBoxLimit int32_t() c
INMSLayer setInput void(int32_t, ITensor&)
INMSLayer setIndicesType bool(DataType)
INMSLayer getIndicesType DataType() c
IReverseSequenceLayer setBatchAxis void(int32_t)
IReverseSequenceLayer getBatchAxis int32_t() c
IReverseSequenceLayer setSequenceAxis void(int32_t)
IReverseSequenceLayer getSequenceAxis int32_t() c
INormalizationLayer setEpsilon void(float)
INormalizationLayer getEpsilon float() c
INormalizationLayer setAxes void(uint32_t)
INormalizationLayer getAxes uint32_t() c
INormalizationLayer setNbGroups void(int64_t)
INormalizationLayer getNbGroups int64_t() c
INormalizationLayer setComputePrecision void(DataType)
INormalizationLayer getComputePrecision DataType() c
INormalizationLayer isV2 bool() c
INonZeroLayer setIndicesType bool(DataType)
INonZeroLayer getIndicesType DataType() c
ICumulativeLayer setOperation bool(CumulativeOperation)
ICumulativeLayer getOperation CumulativeOperation() c
ICumulativeLayer setExclusive void(bool)
ICumulativeLayer getExclusive bool() c
ICumulativeLayer setReverse void(bool)
ICumulativeLayer getReverse bool() c
IAttentionBoundaryLayer getAttention IAttention*() c
IAttentionInputLayer setInput void(int32_t, ITensor&)
IAttention setNormalizationOperation bool(AttentionNormalizationOp)
IAttention getNormalizationOperation AttentionNormalizationOp() c
IAttention setMask bool(ITensor&)
IAttention getMask ITensor*()
IAttention setCausal bool(bool)
IAttention getCausal bool() c
IAttention setDecomposable bool(bool)
IAttention getDecomposable bool() c
IAttention setInput bool(int32_t, ITensor&)
IAttention getNbInputs int32_t() c
IAttention getInput ITensor*(int32_t) c
IAttention getNbOutputs int32_t() c
IAttention getOutput ITensor*(int32_t) c
IAttention setName bool(char const*)
IAttention getName char const*() c
IAttention setNormalizationQuantizeScale bool(ITensor&)
IAttention getNormalizationQuantizeScale ITensor*() c
IAttention setNormalizationQuantizeToType bool(DataType)
IAttention getNormalizationQuantizeToType DataType() c
IAttention setMetadata bool(char const*)
IAttention getMetadata char const*() c
IAttention setNbRanks bool(int32_t)
IAttention getNbRanks int32_t() c
IRotaryEmbeddingLayer setInterleaved void(bool)
IRotaryEmbeddingLayer getInterleaved bool() c
IRotaryEmbeddingLayer setRotaryEmbeddingDim bool(int32_t)
IRotaryEmbeddingLayer getRotaryEmbeddingDim int32_t() c
IRotaryEmbeddingLayer setInput void(int32_t, ITensor&)
IKVCacheUpdateLayer setInput void(int32_t, ITensor&)
IKVCacheUpdateLayer setCacheMode bool(KVCacheMode)
IKVCacheUpdateLayer getCacheMode KVCacheMode() c
IMoELayer setGatedWeights void(ITensor&, ITensor&, ITensor&, MoEActType)
IMoELayer setGatedBiases void(ITensor&, ITensor&, ITensor&)
IMoELayer setActivationType void(MoEActType)
IMoELayer getActivationType MoEActType() c
IMoELayer setQuantizationStatic void(ITensor&, DataType)
IMoELayer setQuantizationDynamicDblQ void(ITensor&, DataType, Dims const&, DataType)
IMoELayer setQuantizationToType void(DataType)
IMoELayer getQuantizationToType DataType() c
IMoELayer setQuantizationBlockShape void(Dims const&)
IMoELayer getQuantizationBlockShape Dims() c
IMoELayer setDynQOutputScaleType void(DataType)
IMoELayer getDynQOutputScaleType DataType() c
IMoELayer setSwigluParams void(float, float, float)
IMoELayer setSwigluParamLimit void(float)
IMoELayer getSwigluParamLimit float() c
IMoELayer setSwigluParamAlpha void(float)
IMoELayer getSwigluParamAlpha float() c
IMoELayer setSwigluParamBeta void(float)
IMoELayer getSwigluParamBeta float() c
IMoELayer setInput void(int32_t, ITensor&)
ISqueezeLayer setInput void(int32_t, ITensor&)
IUnsqueezeLayer setInput void(int32_t, ITensor&)
IAlgorithmIOInfo getDataType DataType() c
IAlgorithmIOInfo getStrides Dims() c
IAlgorithmIOInfo getVectorizedDim int64_t() c
IAlgorithmIOInfo getComponentsPerElement int64_t() c
IAlgorithmVariant getImplementation int64_t() c
IAlgorithmVariant getTactic int64_t() c
IAlgorithmContext getName char const*() c
IAlgorithmContext getDimensions Dims(int32_t, OptProfileSelector) c
IAlgorithmContext getNbInputs int32_t() c
IAlgorithmContext getNbOutputs int32_t() c
IAlgorithm getAlgorithmVariant IAlgorithmVariant const&() c
IAlgorithm getTimingMSec float() c
IAlgorithm getWorkspaceSize std::size_t() c
IAlgorithm getAlgorithmIOInfoByIndex IAlgorithmIOInfo const*(int32_t) c
IBuilderConfig setAlgorithmSelector void(IAlgorithmSelector*)
IBuilderConfig getAlgorithmSelector IAlgorithmSelector*() c
INetworkDefinition addInput ITensor*(char const*, DataType, Dims const&)
INetworkDefinition markOutput void(ITensor&)
INetworkDefinition markDebug bool(ITensor&)
INetworkDefinition unmarkDebug bool(ITensor&)
INetworkDefinition isDebugTensor bool(ITensor const&) c
INetworkDefinition markUnfusedTensorsAsDebugTensors bool()
INetworkDefinition unmarkUnfusedTensorsAsDebugTensors bool()
INetworkDefinition addActivation IActivationLayer*(ITensor&, ActivationType)
INetworkDefinition addLRN ILRNLayer*(ITensor&, int64_t, float, float, float)
INetworkDefinition addScale IScaleLayer*(ITensor&, ScaleMode, Weights, Weights, Weights)
INetworkDefinition addSoftMax ISoftMaxLayer*(ITensor&)
INetworkDefinition addConcatenation IConcatenationLayer*(ITensor* const*, int32_t)
INetworkDefinition addElementWise IElementWiseLayer*(ITensor&, ITensor&, ElementWiseOperation)
INetworkDefinition addUnary IUnaryLayer*(ITensor&, UnaryOperation)
INetworkDefinition addShuffle IShuffleLayer*(ITensor&)
INetworkDefinition addOneHot IOneHotLayer*(ITensor&, ITensor&, ITensor&, int32_t)
INetworkDefinition getNbLayers int32_t() c
INetworkDefinition getLayer ILayer*(int32_t) c
INetworkDefinition getNbInputs int32_t() c
INetworkDefinition getInput ITensor*(int32_t) c
INetworkDefinition getNbOutputs int32_t() c
INetworkDefinition getOutput ITensor*(int32_t) c
INetworkDefinition addReduce IReduceLayer*(ITensor&, ReduceOperation, uint32_t, bool)
INetworkDefinition addTopK ITopKLayer*(ITensor&, TopKOperation, int32_t, uint32_t)
INetworkDefinition addTopK ITopKLayer*(ITensor&, TopKOperation, int32_t, uint32_t, DataType)
INetworkDefinition addGather IGatherLayer*(ITensor&, ITensor&, int32_t)
INetworkDefinition addGatherV2 IGatherLayer*(ITensor&, ITensor&, GatherMode)
INetworkDefinition addRaggedSoftMax IRaggedSoftMaxLayer*(ITensor&, ITensor&)
INetworkDefinition addMatrixMultiply IMatrixMultiplyLayer*(ITensor&, MatrixOperation, ITensor&, MatrixOperation)
INetworkDefinition addNonZero INonZeroLayer*(ITensor&)
INetworkDefinition addNonZero INonZeroLayer*(ITensor&, DataType)
INetworkDefinition addConstant IConstantLayer*(Dims const&, Weights)
INetworkDefinition addIdentity IIdentityLayer*(ITensor&)
INetworkDefinition addCast ICastLayer*(ITensor&, DataType)
INetworkDefinition removeTensor void(ITensor&)
INetworkDefinition unmarkOutput void(ITensor&)
INetworkDefinition addPluginV2 IPluginV2Layer*(ITensor* const*, int32_t, IPluginV2&)
INetworkDefinition addPluginV3 IPluginV3Layer*(ITensor* const*, int32_t, ITensor* const*, int32_t, IPluginV3&)
INetworkDefinition addSlice ISliceLayer*(ITensor&, Dims const&, Dims const&, Dims const&)
INetworkDefinition setName void(char const*)
INetworkDefinition getName char const*() c
INetworkDefinition addShape IShapeLayer*(ITensor&)
INetworkDefinition hasImplicitBatchDimension bool() c
INetworkDefinition getFlags NetworkDefinitionCreationFlags() c
INetworkDefinition getFlag bool(NetworkDefinitionCreationFlag) c
INetworkDefinition markOutputForShapes bool(ITensor&)
INetworkDefinition unmarkOutputForShapes bool(ITensor&)
INetworkDefinition addParametricReLU IParametricReLULayer*(ITensor&, ITensor&)
INetworkDefinition addConvolutionNd IConvolutionLayer*(ITensor&, int64_t, Dims const&, Weights, Weights)
INetworkDefinition addPoolingNd IPoolingLayer*(ITensor&, PoolingType, Dims const&)
INetworkDefinition addDeconvolutionNd IDeconvolutionLayer*(ITensor&, int64_t, Dims, Weights, Weights)
INetworkDefinition addScaleNd IScaleLayer*(ITensor&, ScaleMode, Weights, Weights, Weights, int32_t)
INetworkDefinition addResize IResizeLayer*(ITensor&)
INetworkDefinition addLoop ILoop*()
INetworkDefinition addIfConditional IIfConditional*()
INetworkDefinition addSelect ISelectLayer*(ITensor&, ITensor&, ITensor&)
INetworkDefinition addAssertion IAssertionLayer*(ITensor&, char const*)
INetworkDefinition addFill IFillLayer*(Dims const&, FillOperation)
INetworkDefinition addFill IFillLayer*(Dims const&, FillOperation, DataType)
INetworkDefinition addPaddingNd IPaddingLayer*(ITensor&, Dims const&, Dims const&)
INetworkDefinition setWeightsName bool(Weights, char const*)
INetworkDefinition setErrorRecorder void(IErrorRecorder*)
INetworkDefinition getErrorRecorder IErrorRecorder*() c
INetworkDefinition addDequantize IDequantizeLayer*(ITensor&, ITensor&)
INetworkDefinition addDequantize IDequantizeLayer*(ITensor&, ITensor&, DataType)
INetworkDefinition addScatter IScatterLayer*(ITensor&, ITensor&, ITensor&, ScatterMode)
INetworkDefinition addQuantize IQuantizeLayer*(ITensor&, ITensor&)
INetworkDefinition addQuantize IQuantizeLayer*(ITensor&, ITensor&, DataType)
INetworkDefinition addDynamicQuantize IDynamicQuantizeLayer*(ITensor&, int32_t, int32_t, DataType, DataType)
INetworkDefinition addDynamicQuantizeV2 IDynamicQuantizeLayer*(ITensor&, Dims const&, DataType, DataType)
INetworkDefinition addEinsum IEinsumLayer*(ITensor* const*, int32_t, char const*)
INetworkDefinition addGridSample IGridSampleLayer*(ITensor&, ITensor&)
INetworkDefinition addNMS INMSLayer*(ITensor&, ITensor&, ITensor&)
INetworkDefinition addNMS INMSLayer*(ITensor&, ITensor&, ITensor&, DataType)
INetworkDefinition addReverseSequence IReverseSequenceLayer*(ITensor&, ITensor&)
INetworkDefinition addNormalization INormalizationLayer*(ITensor&, ITensor&, ITensor&, uint32_t)
INetworkDefinition addCumulative ICumulativeLayer*(ITensor&, ITensor&, CumulativeOperation, bool, bool)
INetworkDefinition addAttention IAttention*(ITensor&, ITensor&, ITensor&, AttentionNormalizationOp, bool)
INetworkDefinition addRotaryEmbedding IRotaryEmbeddingLayer*(ITensor&, ITensor&, ITensor&, bool, int32_t)
INetworkDefinition addKVCacheUpdate IKVCacheUpdateLayer*(ITensor&, ITensor&, ITensor&, KVCacheMode)
INetworkDefinition addMoE IMoELayer*(ITensor&, ITensor&, ITensor&)
INetworkDefinition addDistCollective IDistCollectiveLayer*(ITensor&, CollectiveOperation, ReduceOperation, int64_t, int64_t*, int64_t)
INetworkDefinition getBuilder IBuilder&() c
INetworkDefinition markWeightsRefittable bool(char const*)
INetworkDefinition unmarkWeightsRefittable bool(char const*)
INetworkDefinition areWeightsMarkedRefittable bool(char const*) c
INetworkDefinition addSqueeze ISqueezeLayer*(ITensor&, ITensor&)
INetworkDefinition addUnsqueeze IUnsqueezeLayer*(ITensor&, ITensor&)
INetworkDefinition addNormalizationV2 INormalizationLayer*(ITensor&, ITensor&, ITensor&, uint32_t)
'''
# One class a line: `Class:Base`.
bases = '''
ILayer:INoCopy
IConvolutionLayer:ILayer
IActivationLayer:ILayer
IPoolingLayer:ILayer
ILRNLayer:ILayer
IScaleLayer:ILayer
ISoftMaxLayer:ILayer
IConcatenationLayer:ILayer
IDeconvolutionLayer:ILayer
IElementWiseLayer:ILayer
IGatherLayer:ILayer
IPluginV2Layer:ILayer
IPluginV3Layer:ILayer
IUnaryLayer:ILayer
IReduceLayer:ILayer
IPaddingLayer:ILayer
IShuffleLayer:ILayer
ISliceLayer:ILayer
IShapeLayer:ILayer
ITopKLayer:ILayer
IMatrixMultiplyLayer:ILayer
INonZeroLayer:ILayer
IRaggedSoftMaxLayer:ILayer
IIdentityLayer:ILayer
ICastLayer:ILayer
IConstantLayer:ILayer
IParametricReLULayer:ILayer
IResizeLayer:ILayer
ILoopBoundaryLayer:ILayer
IIfConditionalBoundaryLayer:ILayer
IConditionLayer:IIfConditionalBoundaryLayer
IIfConditionalOutputLayer:IIfConditionalBoundaryLayer
IIfConditionalInputLayer:IIfConditionalBoundaryLayer
IIfConditional:INoCopy
IRecurrenceLayer:ILoopBoundaryLayer
ILoopOutputLayer:ILoopBoundaryLayer
ITripLimitLayer:ILoopBoundaryLayer
IIteratorLayer:ILoopBoundaryLayer
ILoop:INoCopy
ISelectLayer:ILayer
IAssertionLayer:ILayer
IFillLayer:ILayer
IQuantizeLayer:ILayer
IDequantizeLayer:ILayer
IDynamicQuantizeLayer:ILayer
IEinsumLayer:ILayer
IScatterLayer:ILayer
IOneHotLayer:ILayer
IGridSampleLayer:ILayer
INMSLayer:ILayer
IReverseSequenceLayer:ILayer
INormalizationLayer:ILayer
ISqueezeLayer:ILayer
IUnsqueezeLayer:ILayer
ICumulativeLayer:ILayer
IAttentionBoundaryLayer:ILayer
IAttentionInputLayer:IAttentionBoundaryLayer
IAttentionOutputLayer:IAttentionBoundaryLayer
IAttention:INoCopy
IRotaryEmbeddingLayer:ILayer
IKVCacheUpdateLayer:ILayer
IMoELayer:ILayer
IDistCollectiveLayer:ILayer
INetworkDefinition:INoCopy
ITensor:INoCopy
IAlgorithmIOInfo:INoCopy
IAlgorithmVariant:INoCopy
IAlgorithmContext:INoCopy
IAlgorithm:INoCopy
IAlgorithmSelector:IVersionedInterface
'''
# `Enum: enumerators in order` (their values are 0, 1, ...); indented lines continue the line before.
enums = '''
LayerType: kCONVOLUTION kCAST kACTIVATION kPOOLING kLRN kSCALE kSOFTMAX kDECONVOLUTION kCONCATENATION kELEMENTWISE
    kPLUGIN kUNARY kPADDING kSHUFFLE kREDUCE kTOPK kGATHER kMATRIX_MULTIPLY kRAGGED_SOFTMAX kCONSTANT kIDENTITY
    kPLUGIN_V2 kSLICE kSHAPE kPARAMETRIC_RELU kRESIZE kTRIP_LIMIT kRECURRENCE kITERATOR kLOOP_OUTPUT kSELECT kFILL
    kQUANTIZE kDEQUANTIZE kCONDITION kCONDITIONAL_INPUT kCONDITIONAL_OUTPUT kSCATTER kEINSUM kASSERTION kONE_HOT
    kNON_ZERO kGRID_SAMPLE kNMS kREVERSE_SEQUENCE kNORMALIZATION kPLUGIN_V3 kSQUEEZE kUNSQUEEZE kCUMULATIVE
    kDYNAMIC_QUANTIZE kATTENTION_INPUT kATTENTION_OUTPUT kROTARY_EMBEDDING kKVCACHE_UPDATE kMOE kDIST_COLLECTIVE
ActivationType: kRELU kSIGMOID kTANH kLEAKY_RELU kELU kSELU kSOFTSIGN kSOFTPLUS kCLIP kHARD_SIGMOID kSCALED_TANH
    kTHRESHOLDED_RELU kGELU_ERF kGELU_TANH
PaddingMode: kEXPLICIT_ROUND_DOWN kEXPLICIT_ROUND_UP kSAME_UPPER kSAME_LOWER
PoolingType: kMAX kAVERAGE kMAX_AVERAGE_BLEND
ScaleMode: kUNIFORM kCHANNEL kELEMENTWISE
ElementWiseOperation: kSUM kPROD kMAX kMIN kSUB kDIV kPOW kFLOOR_DIV kAND kOR kXOR kEQUAL kGREATER kLESS
GatherMode: kDEFAULT kELEMENT kND
UnaryOperation: kEXP kLOG kSQRT kRECIP kABS kNEG kSIN kCOS kTAN kSINH kCOSH kASIN kACOS kATAN kASINH kACOSH kATANH
    kCEIL kFLOOR kERF kNOT kSIGN kROUND kISINF kISNAN
ReduceOperation: kSUM kPROD kMAX kMIN kAVG kNONE
CollectiveOperation: kALL_REDUCE kALL_GATHER kBROADCAST kREDUCE kREDUCE_SCATTER
SampleMode: kSTRICT_BOUNDS kWRAP kCLAMP kFILL kREFLECT
TopKOperation: kMAX kMIN
MatrixOperation: kNONE kTRANSPOSE kVECTOR
InterpolationMode: kNEAREST kLINEAR kCUBIC
ResizeCoordinateTransformation: kALIGN_CORNERS kASYMMETRIC kHALF_PIXEL
ResizeSelector: kFORMULA kUPPER
ResizeRoundMode: kHALF_UP kHALF_DOWN kFLOOR kCEIL
LoopOutput: kLAST_VALUE kCONCATENATE kREVERSE
TripLimit: kCOUNT kWHILE
FillOperation: kLINSPACE kRANDOM_UNIFORM kRANDOM_NORMAL
ScatterMode: kELEMENT kND
BoundingBoxFormat: kCORNER_PAIRS kCENTER_SIZES
CumulativeOperation: kSUM
AttentionNormalizationOp: kNONE kSOFTMAX
KVCacheMode: kLINEAR
MoEActType: kNONE kSILU
'''
out = []
out.append(\
'''// Every declaration of TensorRT 10's network definition (NvInfer.h: ITensor, ILayer and each layer class, the
// loop and conditional helpers, INetworkDefinition and their enums) and of the algorithm selector family, named with
// TensorRT's types: each method's address is taken as a pointer of exactly TensorRT's signature (return type,
// parameters, const, noexcept), each class's base and each enumerator's value is checked. A declaration missing from
// Kiln's headers, or declared with another type, fails to compile. Generated by tests/dialects/gen_network_surface.py
// from its list of TensorRT 10.x's declarations; docs/api-coverage.md says which version and what is not listed yet.
// Compiled as application code is (C++17, -Wall -Wextra -Werror) into network_api_test.
#include <NvInfer.h>

#include <cstddef>
#include <type_traits>

namespace
{

using namespace nvinfer1;

template <typename Class, typename Signature>
using MemberOf = Signature Class::*;

//! A method of `Class` named `name` whose type is exactly the signature given last (noexcept included).
#define KILN_NAMES_METHOD(Class, name, ...)                                                                          \\
    static_assert(static_cast<MemberOf<Class, __VA_ARGS__>>(&Class::name) != nullptr, #Class "::" #name);

#define KILN_ENUMERATOR(Enum, name, value)                                                                           \\
    static_assert(static_cast<int32_t>(Enum::name) == (value), #Enum "::" #name);
''')
previous = None
for item in methods.strip().splitlines():
    cls, item = item.split(' ', 1)
    if cls != previous:
        out.append(f'// {cls}')
        previous = cls
    m = re.match(r'(\w+) (.+?)\((.*)\)( c)?$', item)
    name, ret, params, const = m.groups()
    sig = f'{ret}({params}) {"const " if const else ""}noexcept'
    line = f'KILN_NAMES_METHOD({cls}, {name}, {sig})'
    if len(line) > 120:
        line = f'KILN_NAMES_METHOD({cls}, {name},\n    {sig})'
    out.append(line)
out.append('')
for b in bases.split():
    d, base = b.split(':')
    line = f'static_assert(std::is_base_of_v<{base}, {d}>, "{d} derives from {base}");'
    if len(line) > 120:
        line = f'static_assert(std::is_base_of_v<{base}, {d}>);'
    out.append(line)
out.append('static_assert(std::is_same_v<TensorFormats, uint32_t>);')
out.append('static_assert(std::is_same_v<NetworkDefinitionCreationFlags, uint32_t>);')
out.append('')
for line in enums.strip().replace('\n    ', ' ').splitlines():
    e, names = line.split(':')
    vals = names.split()
    for i, n in enumerate(vals):
        out.append(f'KILN_ENUMERATOR({e}, {n}, {i})')
    out.append(f'static_assert(EnumMax<{e}>() >= {len(vals)});')
out.append('''
static_assert(std::is_same_v<IAlgorithmSelector, v_1_0::IAlgorithmSelector>);

// Applications implement IAlgorithmSelector: overrides compile without noexcept (TensorRT 7/8 style) and with it
// (TensorRT 10 style).
class SelectorWithoutNoexcept : public IAlgorithmSelector
{
public:
    int32_t selectAlgorithms(IAlgorithmContext const& context, IAlgorithm const* const* choices, int32_t nbChoices,
        int32_t* selection) override;
    void reportAlgorithms(
        IAlgorithmContext const* const* contexts, IAlgorithm const* const* choices, int32_t nbAlgorithms) override;
};

class SelectorWithNoexcept : public IAlgorithmSelector
{
public:
    int32_t selectAlgorithms(IAlgorithmContext const& context, IAlgorithm const* const* choices, int32_t nbChoices,
        int32_t* selection) noexcept override;
    void reportAlgorithms(IAlgorithmContext const* const* contexts, IAlgorithm const* const* choices,
        int32_t nbAlgorithms) noexcept override;
};

static_assert(!std::is_abstract_v<SelectorWithoutNoexcept> && !std::is_abstract_v<SelectorWithNoexcept>);

#undef KILN_NAMES_METHOD
#undef KILN_ENUMERATOR

} // namespace
''')
text = '\n'.join(out)
import sys
open(sys.argv[1], 'w').write(text)
print(sum(1 for l in out if l.startswith('KILN_NAMES_METHOD')), 'methods')
