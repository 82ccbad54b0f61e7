// Kiln: the ONNX parser, with onnx-tensorrt's API (namespace nvonnxparser). It fills an
// INetworkDefinition from an ONNX model; ops without an importer are looked up in the plugin registry.
#ifndef NV_ONNX_PARSER_H
#define NV_ONNX_PARSER_H

#include "NvInfer.h"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#define NV_ONNX_PARSER_MAJOR 0
#define NV_ONNX_PARSER_MINOR 1
#define NV_ONNX_PARSER_PATCH 0

static constexpr int32_t NV_ONNX_PARSER_VERSION
    = ((NV_ONNX_PARSER_MAJOR * 10000) + (NV_ONNX_PARSER_MINOR * 100) + NV_ONNX_PARSER_PATCH);

//! Node indices of a part of the graph, and whether the parser supports all of them.
typedef std::pair<std::vector<size_t>, bool> SubGraph_t;
typedef std::vector<SubGraph_t> SubGraphCollection_t;

namespace nvonnxparser
{

//! The number of values of an enum of the parser (specialized below for each enum).
template <typename T>
constexpr int32_t EnumMax() noexcept = delete;

//! Why parsing failed (values as in onnx-tensorrt).
enum class ErrorCode : int
{
    kSUCCESS = 0,
    kINTERNAL_ERROR = 1,
    kMEM_ALLOC_FAILED = 2,
    kMODEL_DESERIALIZE_FAILED = 3,
    kINVALID_VALUE = 4,
    kINVALID_GRAPH = 5,
    kINVALID_NODE = 6,
    kUNSUPPORTED_GRAPH = 7,
    kUNSUPPORTED_NODE = 8,
    kUNSUPPORTED_NODE_ATTR = 9,
    kUNSUPPORTED_NODE_INPUT = 10,
    kUNSUPPORTED_NODE_DATATYPE = 11,
    kUNSUPPORTED_NODE_DYNAMIC = 12,
    kUNSUPPORTED_NODE_SHAPE = 13,
    kREFIT_FAILED = 14,
};

//! The code's name, e.g. "UNSUPPORTED_NODE".
inline char const* errorCodeStr(ErrorCode code) noexcept
{
    switch (code)
    {
    case ErrorCode::kSUCCESS: return "SUCCESS";
    case ErrorCode::kINTERNAL_ERROR: return "INTERNAL_ERROR";
    case ErrorCode::kMEM_ALLOC_FAILED: return "MEM_ALLOC_FAILED";
    case ErrorCode::kMODEL_DESERIALIZE_FAILED: return "MODEL_DESERIALIZE_FAILED";
    case ErrorCode::kINVALID_VALUE: return "INVALID_VALUE";
    case ErrorCode::kINVALID_GRAPH: return "INVALID_GRAPH";
    case ErrorCode::kINVALID_NODE: return "INVALID_NODE";
    case ErrorCode::kUNSUPPORTED_GRAPH: return "UNSUPPORTED_GRAPH";
    case ErrorCode::kUNSUPPORTED_NODE: return "UNSUPPORTED_NODE";
    case ErrorCode::kUNSUPPORTED_NODE_ATTR: return "UNSUPPORTED_NODE_ATTR";
    case ErrorCode::kUNSUPPORTED_NODE_INPUT: return "UNSUPPORTED_NODE_INPUT";
    case ErrorCode::kUNSUPPORTED_NODE_DATATYPE: return "UNSUPPORTED_NODE_DATATYPE";
    case ErrorCode::kUNSUPPORTED_NODE_DYNAMIC: return "UNSUPPORTED_NODE_DYNAMIC";
    case ErrorCode::kUNSUPPORTED_NODE_SHAPE: return "UNSUPPORTED_NODE_SHAPE";
    case ErrorCode::kREFIT_FAILED: return "REFIT_FAILED";
    }
    return "UNKNOWN";
}

//! TensorRT's value, which is one less than the number of codes above: code written for TensorRT that sizes a table
//! by it must see the same number.
template <>
constexpr inline int32_t EnumMax<ErrorCode>() noexcept
{
    return 14;
}

using OnnxParserFlags = uint32_t;

enum class OnnxParserFlag : int32_t
{
    //! InstanceNormalization becomes INormalizationLayer (Kiln always does this; the flag is kept for the API).
    kNATIVE_INSTANCENORM = 0,
    kENABLE_UINT8_AND_ASYMMETRIC_QUANTIZATION_DLA = 1,
    //! Fail a parse unless every node can run on DLA (which needs setBuilderConfig first). Kiln has no DLA, so a
    //! parse with this flag set fails with an error that says so.
    kREPORT_CAPABILITY_DLA = 2,
    //! A registered plugin named like a built-in op replaces the built-in importer.
    kENABLE_PLUGIN_OVERRIDE = 3,
    //! Rewrite layers where that suits DLA. Kiln has no DLA: the flag is kept and changes nothing.
    kADJUST_FOR_DLA = 4,
};

template <>
constexpr inline int32_t EnumMax<OnnxParserFlag>() noexcept
{
    return 5;
}

//! One parse error: what went wrong and at which node.
class IParserError
{
public:
    virtual ErrorCode code() const = 0;
    virtual char const* desc() const = 0;
    //! The parser source file and function that reported the error.
    virtual char const* file() const = 0;
    virtual int line() const = 0;
    virtual char const* func() const = 0;
    //! The index of the failing node in the graph, or -1 for errors not about a node.
    virtual int node() const = 0;
    virtual char const* nodeName() const = 0;
    virtual char const* nodeOperator() const = 0;
    //! Kiln does not expand model-local functions: always empty.
    virtual char const* const* localFunctionStack() const = 0;
    virtual int32_t localFunctionStackSize() const = 0;

protected:
    virtual ~IParserError() { }
};

//! Fills the network given to createParser from ONNX models. Errors accumulate until clearErrors().
class IParser
{
public:
    //! Parses a serialized ModelProto. modelPath locates external weight files (relative to its folder).
    virtual bool parse(
        void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath = nullptr) noexcept = 0;
    //! Reads and parses a model file; verbosity is an ILogger::Severity, messages above it are not logged.
    virtual bool parseFromFile(char const* onnxModelFile, int verbosity) noexcept = 0;
    //! Whether every node has an importer or a plugin; subGraphCollection gets one entry for the whole graph.
    virtual bool supportsModel(void const* serializedOnnxModel, size_t serializedOnnxModelSize,
        SubGraphCollection_t& subGraphCollection, char const* modelPath = nullptr) noexcept = 0;
    //! Like parse: Kiln's network copies weights, so nothing has to outlive the call.
    virtual bool parseWithWeightDescriptors(
        void const* serializedOnnxModel, size_t serializedOnnxModelSize) noexcept = 0;
    //! Whether op_name has a built-in importer.
    virtual bool supportsOperator(char const* opName) const noexcept = 0;
    virtual int getNbErrors() const noexcept = 0;
    virtual IParserError const* getError(int index) const noexcept = 0;
    virtual void clearErrors() noexcept = 0;

    virtual ~IParser() noexcept = default;

    //! Plugin libraries the model asked for; Kiln has none (nbPluginLibs = 0).
    virtual char const* const* getUsedVCPluginLibraries(int64_t& nbPluginLibs) const noexcept = 0;
    virtual void setFlags(OnnxParserFlags onnxParserFlags) noexcept = 0;
    virtual OnnxParserFlags getFlags() const noexcept = 0;
    virtual void clearFlag(OnnxParserFlag onnxParserFlag) noexcept = 0;
    virtual void setFlag(OnnxParserFlag onnxParserFlag) noexcept = 0;
    virtual bool getFlag(OnnxParserFlag onnxParserFlag) const noexcept = 0;
    //! The i-th output of the layer (node) named name after a parse, or nullptr.
    virtual nvinfer1::ITensor const* getLayerOutputTensor(char const* name, int64_t i) noexcept = 0;
    //! supportsModel that records its answer for getNbSubgraphs/isSubgraphSupported/getSubgraphNodes.
    virtual bool supportsModelV2(
        void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath = nullptr) noexcept = 0;
    virtual int64_t getNbSubgraphs() noexcept = 0;
    virtual bool isSubgraphSupported(int64_t const index) noexcept = 0;
    virtual int64_t* getSubgraphNodes(int64_t const index, int64_t& subgraphLength) noexcept = 0;
    //! Decodes a serialized ModelProto without importing it, so that loadInitializer can replace initializers
    //! first; parseModelProto imports it. One model per parser: a second call fails.
    virtual bool loadModelProto(
        void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath = nullptr) noexcept = 0;
    //! Replaces the values of the loaded model's initializer `name` with size bytes (the initializer's element type
    //! and element count; Kiln copies them). Fails before loadModelProto, for an unknown name or another size.
    virtual bool loadInitializer(char const* name, void const* data, size_t size) noexcept = 0;
    //! Imports the loaded model into the network, as parse() would.
    virtual bool parseModelProto() noexcept = 0;
    //! The builder configuration kREPORT_CAPABILITY_DLA checks nodes against (nullptr forgets it). The parser keeps
    //! the pointer, not a copy. True when it was taken.
    virtual bool setBuilderConfig(nvinfer1::IBuilderConfig const* const builderConfig) noexcept = 0;
};

//! Gives a refittable engine's IRefitter the values of the model's initializers (and Constant nodes' tensors) that
//! its weights are named after (the parser names weights it takes unchanged from the model); the application then
//! calls IRefitter::refitCudaEngine. Fails, naming them, where the model lacks some of the engine's weights.
class IParserRefitter
{
public:
    virtual bool refitFromBytes(
        void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath = nullptr) noexcept = 0;
    virtual bool refitFromFile(char const* onnxModelFile) noexcept = 0;
    virtual int32_t getNbErrors() const noexcept = 0;
    virtual IParserError const* getError(int32_t index) const noexcept = 0;
    virtual void clearErrors() = 0;

    virtual ~IParserRefitter() noexcept = default;

    virtual bool loadModelProto(
        void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath = nullptr) noexcept = 0;
    virtual bool loadInitializer(char const* name, void const* data, size_t size) noexcept = 0;
    virtual bool refitModelProto() noexcept = 0;
};

} // namespace nvonnxparser

extern "C" TENSORRTAPI void* createNvOnnxParser_INTERNAL(void* network, void* logger, int version) noexcept;
extern "C" TENSORRTAPI void* createNvOnnxParserRefitter_INTERNAL(
    void* refitter, void* logger, int32_t version) noexcept;
extern "C" TENSORRTAPI int getNvOnnxParserVersion() noexcept;

namespace nvonnxparser
{

namespace
{

//! A parser that adds to network and reports through logger. The caller deletes it.
inline IParser* createParser(nvinfer1::INetworkDefinition& network, nvinfer1::ILogger& logger) noexcept
{
    return static_cast<IParser*>(createNvOnnxParser_INTERNAL(&network, &logger, NV_ONNX_PARSER_VERSION));
}

//! A refitter for refitter's engine from ONNX weights. The caller deletes it.
inline IParserRefitter* createParserRefitter(nvinfer1::IRefitter& refitter, nvinfer1::ILogger& logger) noexcept
{
    return static_cast<IParserRefitter*>(
        createNvOnnxParserRefitter_INTERNAL(&refitter, &logger, NV_ONNX_PARSER_VERSION));
}

} // namespace

} // namespace nvonnxparser

#endif // NV_ONNX_PARSER_H
