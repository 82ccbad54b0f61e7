#include "core/logging.h"

#include <kiln/Logging.h>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace
{

struct RecordingLogger : nvinfer1::ILogger
{
    std::vector<std::pair<Severity, std::string>> messages;
    void log(Severity severity, char const* msg) noexcept override
    {
        messages.emplace_back(severity, msg);
    }
};

// TensorRT 7 loggers have no noexcept; they must still work, and may even throw.
struct ThrowingLogger : nvinfer1::ILogger
{
    void log(Severity, char const*) override
    {
        throw std::runtime_error("logger failed");
    }
};

} // namespace

TEST(Logging, GetLoggerReturnsTheLoggerThatWasSet)
{
    RecordingLogger logger;
    kiln::setLogger(&logger);
    EXPECT_EQ(getLogger(), &logger);
    kiln::logWarning("registry is empty");
    ASSERT_EQ(logger.messages.size(), 1u);
    EXPECT_EQ(logger.messages[0].first, nvinfer1::ILogger::Severity::kWARNING);
    EXPECT_EQ(logger.messages[0].second, "registry is empty");
    kiln::setLogger(nullptr);
    EXPECT_NE(getLogger(), &logger);
}

TEST(Logging, ThrowingLoggerDoesNotPropagate)
{
    ThrowingLogger logger;
    kiln::setLogger(&logger);
    EXPECT_NO_THROW(kiln::logError("boom"));
    kiln::setLogger(nullptr);
}
