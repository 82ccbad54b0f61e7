// The object behind nvonnxparser::IParserRefitter: gives a refittable engine's IRefitter the values of the model's
// initializers (and Constant nodes' tensors) whose names the engine's refittable weights have, as the parser named
// them (ImportContext::nameWeights). The application then calls IRefitter::refitCudaEngine.
#pragma once

#include "onnx/loaded_model.h"
#include "onnx/onnx_proto.h"
#include "onnx/parser_error.h"

#include <NvOnnxParser.h>

#include <string>
#include <vector>

namespace kiln::onnxparser
{

class ParserRefitter final : public nvonnxparser::IParserRefitter
{
public:
    ParserRefitter(nvinfer1::IRefitter& refitter, nvinfer1::ILogger& logger);

    bool refitFromBytes(
        void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath) noexcept override;
    bool refitFromFile(char const* onnxModelFile) noexcept override;
    int32_t getNbErrors() const noexcept override
    {
        return static_cast<int32_t>(mErrors.size());
    }
    nvonnxparser::IParserError const* getError(int32_t index) const noexcept override;
    void clearErrors() noexcept override
    {
        mErrors.clear();
    }
    bool loadModelProto(
        void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath) noexcept override;
    bool loadInitializer(char const* name, void const* data, size_t size) noexcept override;
    bool refitModelProto() noexcept override;

private:
    //! Gives the refitter every weight of `model` that the engine names; fails, naming them, where some are missing.
    bool refitFrom(::onnx::ModelProto const& model, std::string const& folder, char const* call);
    bool fail(nvonnxparser::ErrorCode code, std::string const& what, char const* call);

    nvinfer1::IRefitter& mRefitter;
    nvinfer1::ILogger& mLogger;
    std::vector<ParserError> mErrors;
    LoadedModel mLoaded; //!< loadModelProto's model, until refitModelProto
};

} // namespace kiln::onnxparser
