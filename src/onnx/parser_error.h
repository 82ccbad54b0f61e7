// One recorded parse error (IParserError), owning its strings.
#pragma once

#include <NvOnnxParser.h>

#include <string>

namespace kiln::onnxparser
{

struct ErrorRecord
{
    nvonnxparser::ErrorCode code{nvonnxparser::ErrorCode::kINTERNAL_ERROR};
    std::string description;
    int32_t node{-1};
    std::string nodeName;
    std::string nodeOperator;
    std::string function;
};

class ParserError final : public nvonnxparser::IParserError
{
public:
    explicit ParserError(ErrorRecord record)
        : mRecord(std::move(record))
    {
    }
    ~ParserError() override = default;

    nvonnxparser::ErrorCode code() const override
    {
        return mRecord.code;
    }
    char const* desc() const override
    {
        return mRecord.description.c_str();
    }
    char const* file() const override
    {
        return "src/onnx/graph_importer.cpp";
    }
    char const* func() const override
    {
        return mRecord.function.c_str();
    }
    int line() const override
    {
        return 0;
    }
    int node() const override
    {
        return mRecord.node;
    }
    char const* nodeName() const override
    {
        return mRecord.nodeName.c_str();
    }
    char const* nodeOperator() const override
    {
        return mRecord.nodeOperator.c_str();
    }
    char const* const* localFunctionStack() const override
    {
        return nullptr;
    }
    int32_t localFunctionStackSize() const override
    {
        return 0;
    }

private:
    ErrorRecord mRecord;
};

} // namespace kiln::onnxparser
