#include "core/logging.h"

#include <NvInfer.h>
#include <kiln/Logging.h>

#include <gtest/gtest.h>

#include <memory>
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

// Builders and runtimes lease the global logger: when one is destroyed, Kiln goes back to the logger of the
// newest builder or runtime still alive, never to one whose owner has gone.
TEST(Logging, DestroyingABuilderHandsLoggingBackToTheNewestOneAlive)
{
    RecordingLogger first;
    RecordingLogger second;
    std::unique_ptr<nvinfer1::IBuilder> firstBuilder(nvinfer1::createInferBuilder(first));
    std::unique_ptr<nvinfer1::IRuntime> secondRuntime(nvinfer1::createInferRuntime(second));
    EXPECT_EQ(getLogger(), &second);

    secondRuntime.reset();
    EXPECT_EQ(getLogger(), &first);
    kiln::logWarning("to the first");
    ASSERT_FALSE(first.messages.empty());
    EXPECT_EQ(first.messages.back().second, "to the first");

    firstBuilder.reset();
    EXPECT_NE(getLogger(), &first);
}

TEST(Logging, AnOlderOwnerEndingKeepsTheNewerLogger)
{
    RecordingLogger older;
    RecordingLogger newer;
    std::unique_ptr<nvinfer1::IRuntime> olderRuntime(nvinfer1::createInferRuntime(older));
    std::unique_ptr<nvinfer1::IRuntime> newerRuntime(nvinfer1::createInferRuntime(newer));
    olderRuntime.reset();
    EXPECT_EQ(getLogger(), &newer);
    newerRuntime.reset();
    EXPECT_NE(getLogger(), &newer);
}
