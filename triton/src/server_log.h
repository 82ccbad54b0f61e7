// Logging into the server's log, and the logger Kiln's builder, runtime and parser report through. Kiln's errors
// are also collected on the thread that causes them, so that a failed load or run can say why in the error the
// server gets, not only in its log.
#pragma once

#include <NvInferRuntime.h>

#include <string>
#include <vector>

namespace kiln::triton
{

void logInfo(std::string const& message);
void logWarning(std::string const& message);
void logError(std::string const& message);
void logVerbose(std::string const& message);

//! Forwards Kiln's messages to the server's log (Kiln's kINFO as the server's verbose: the build logs much).
class ServerLogger final : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* message) noexcept override;
};

//! The one logger the backend hands to Kiln.
ServerLogger& serverLogger();

//! While it lives, the errors Kiln logs on this thread are kept; text() joins them. Scopes nest: each keeps what
//! was logged while it was the innermost.
class KilnErrorCapture
{
public:
    KilnErrorCapture();
    ~KilnErrorCapture();
    KilnErrorCapture(KilnErrorCapture const&) = delete;
    KilnErrorCapture& operator=(KilnErrorCapture const&) = delete;

    void add(std::string const& message);
    //! "what (Kiln: error; error)", or what alone when Kiln logged nothing.
    std::string explain(std::string const& what) const;

private:
    std::vector<std::string> mErrors;
    KilnErrorCapture* mOuter;
};

} // namespace kiln::triton
