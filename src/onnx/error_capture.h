// Keeps the last error that Kiln's network logs on this thread while a node is imported, so that
// the node's IParserError can say why a layer was rejected instead of only "see the log".
// Messages still reach the application's logger unchanged.
#pragma once

#include <string>

namespace kiln::onnxparser
{

class ErrorCapture
{
public:
    ErrorCapture();
    ~ErrorCapture();
    ErrorCapture(ErrorCapture const&) = delete;
    ErrorCapture& operator=(ErrorCapture const&) = delete;

    //! The last error logged on this thread since the capture began (empty if none).
    std::string const& lastError() const
    {
        return mLastError;
    }
    void record(std::string message)
    {
        mLastError = std::move(message);
    }

private:
    ErrorCapture* mOuter;
    std::string mLastError;
};

} // namespace kiln::onnxparser
