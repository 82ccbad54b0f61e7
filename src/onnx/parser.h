// The object behind nvonnxparser::IParser.
#pragma once

#include "onnx/loaded_model.h"
#include "onnx/parser_error.h"
#include "onnx/plugin_owner.h"
#include "onnx/tensor_reader.h"

#include <NvOnnxParser.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln::onnxparser
{

class Parser final : public nvonnxparser::IParser
{
public:
    Parser(nvinfer1::INetworkDefinition& network, nvinfer1::ILogger& logger);

    bool parse(
        void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath) noexcept override;
    bool parseFromFile(char const* onnxModelFile, int verbosity) noexcept override;
    bool supportsModel(void const* serializedOnnxModel, size_t serializedOnnxModelSize,
        SubGraphCollection_t& subGraphCollection, char const* modelPath) noexcept override;
    bool parseWithWeightDescriptors(void const* serializedOnnxModel, size_t serializedOnnxModelSize) noexcept override;
    bool supportsOperator(char const* opName) const noexcept override;
    int getNbErrors() const noexcept override;
    nvonnxparser::IParserError const* getError(int index) const noexcept override;
    void clearErrors() noexcept override;
    char const* const* getUsedVCPluginLibraries(int64_t& nbPluginLibs) const noexcept override;
    void setFlags(nvonnxparser::OnnxParserFlags onnxParserFlags) noexcept override;
    nvonnxparser::OnnxParserFlags getFlags() const noexcept override;
    void clearFlag(nvonnxparser::OnnxParserFlag onnxParserFlag) noexcept override;
    void setFlag(nvonnxparser::OnnxParserFlag onnxParserFlag) noexcept override;
    bool getFlag(nvonnxparser::OnnxParserFlag onnxParserFlag) const noexcept override;
    nvinfer1::ITensor const* getLayerOutputTensor(char const* name, int64_t i) noexcept override;
    bool supportsModelV2(
        void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath) noexcept override;
    int64_t getNbSubgraphs() noexcept override;
    bool isSubgraphSupported(int64_t const index) noexcept override;
    int64_t* getSubgraphNodes(int64_t const index, int64_t& subgraphLength) noexcept override;
    bool loadModelProto(
        void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath) noexcept override;
    bool loadInitializer(char const* name, void const* data, size_t size) noexcept override;
    bool parseModelProto() noexcept override;
    //! TensorRT's parser reads the configuration only for kREPORT_CAPABILITY_DLA's check, which Kiln, having no DLA,
    //! refuses outright: nothing is kept, and the call succeeds.
    bool setBuilderConfig(nvinfer1::IBuilderConfig const* const builderConfig) noexcept override;

private:
    //! A parse that kREPORT_CAPABILITY_DLA asks for cannot succeed: Kiln has no DLA. Records why; true if refused.
    bool refusedForDla();
    bool parseWith(void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath,
        nvinfer1::ILogger& logger) noexcept;
    //! Imports a decoded model into the network; folder locates its external data.
    bool importDecoded(::onnx::ModelProto const& model, std::string const& folder, nvinfer1::ILogger& logger);
    //! Records an error of loadModelProto, loadInitializer or parseModelProto and logs it.
    bool refuseLoaded(nvonnxparser::ErrorCode code, std::string const& what, char const* call);
    void addError(ErrorRecord record);
    //! Logs every error recorded since index first.
    void logErrorsFrom(size_t first, nvinfer1::ILogger& logger);

    nvinfer1::INetworkDefinition& mNetwork;
    nvinfer1::ILogger& mLogger;
    nvonnxparser::OnnxParserFlags mFlags{
        1U << static_cast<uint32_t>(nvonnxparser::OnnxParserFlag::kNATIVE_INSTANCENORM)};
    std::vector<ParserError> mErrors;
    ConstantStore mStore;
    PluginOwner mPlugins;
    std::map<std::string, std::vector<nvinfer1::ITensor*>> mNodeOutputs;
    //! supportsModelV2's answer: runs of consecutive nodes, each supported or not.
    std::vector<std::pair<std::vector<int64_t>, bool>> mSubgraphs;
    //! The model loadModelProto decoded, with initializers loadInitializer replaced, until parseModelProto imports it.
    LoadedModel mLoaded;
};

} // namespace kiln::onnxparser
