// How the parser's internals report a model or node they cannot import: an exception that the
// node loop catches and turns into an IParserError (nothing escapes the public API).
#pragma once

#include <NvOnnxParser.h>

#include <stdexcept>
#include <string>

namespace kiln::onnxparser
{

using nvonnxparser::ErrorCode;

class ImportError : public std::runtime_error
{
public:
    ImportError(ErrorCode code, std::string const& message)
        : std::runtime_error(message)
        , mCode(code)
    {
    }
    ErrorCode code() const noexcept
    {
        return mCode;
    }

private:
    ErrorCode mCode;
};

[[noreturn]] inline void fail(ErrorCode code, std::string const& message)
{
    throw ImportError(code, message);
}

} // namespace kiln::onnxparser
