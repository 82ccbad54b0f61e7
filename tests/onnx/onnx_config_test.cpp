// nvonnxparser::createONNXConfig (NvOnnxConfig.h): the defaults, and that every setting is stored as given.
#include <NvOnnxConfig.h>

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

namespace kiln::test
{
namespace
{

using nvinfer1::ILogger;
using Verbosity = nvonnxparser::IOnnxConfig::Verbosity;

std::unique_ptr<nvonnxparser::IOnnxConfig> makeConfig()
{
    return std::unique_ptr<nvonnxparser::IOnnxConfig>(nvonnxparser::createONNXConfig());
}

TEST(OnnxConfig, StartsWithTheDefaults)
{
    auto const config = makeConfig();
    ASSERT_NE(config, nullptr);
    EXPECT_EQ(config->getModelDtype(), nvinfer1::DataType::kFLOAT);
    EXPECT_STREQ(config->getModelFileName(), "");
    EXPECT_EQ(config->getVerbosityLevel(), static_cast<Verbosity>(ILogger::Severity::kWARNING));
    EXPECT_STREQ(config->getTextFileName(), "");
    EXPECT_STREQ(config->getFullTextFileName(), "");
    EXPECT_FALSE(config->getPrintLayerInfo());
}

TEST(OnnxConfig, StoresEverySetting)
{
    auto const config = makeConfig();
    ASSERT_NE(config, nullptr);
    config->setModelDtype(nvinfer1::DataType::kHALF);
    config->setModelFileName("model.onnx");
    config->setVerbosityLevel(static_cast<Verbosity>(ILogger::Severity::kVERBOSE));
    config->setTextFileName("network.txt");
    config->setFullTextFileName("network_with_weights.txt");
    config->setPrintLayerInfo(true);
    EXPECT_EQ(config->getModelDtype(), nvinfer1::DataType::kHALF);
    EXPECT_STREQ(config->getModelFileName(), "model.onnx");
    EXPECT_EQ(config->getVerbosityLevel(), static_cast<Verbosity>(ILogger::Severity::kVERBOSE));
    EXPECT_STREQ(config->getTextFileName(), "network.txt");
    EXPECT_STREQ(config->getFullTextFileName(), "network_with_weights.txt");
    EXPECT_TRUE(config->getPrintLayerInfo());
}

TEST(OnnxConfig, CopiesTheStringsItIsGivenAndReadsNullAsEmpty)
{
    auto const config = makeConfig();
    ASSERT_NE(config, nullptr);
    char name[] = "first.onnx";
    config->setModelFileName(name);
    std::strcpy(name, "other.onn"); // the caller's buffer changes; the stored name must not
    EXPECT_STREQ(config->getModelFileName(), "first.onnx");
    config->setModelFileName(nullptr);
    config->setTextFileName(nullptr);
    config->setFullTextFileName(nullptr);
    EXPECT_STREQ(config->getModelFileName(), "");
    EXPECT_STREQ(config->getTextFileName(), "");
    EXPECT_STREQ(config->getFullTextFileName(), "");
}

TEST(OnnxConfig, StepsTheVerbosityWithinTheLoggerSeverities)
{
    auto const config = makeConfig();
    ASSERT_NE(config, nullptr);
    config->addVerbosity();
    EXPECT_EQ(config->getVerbosityLevel(), static_cast<Verbosity>(ILogger::Severity::kINFO));
    for (int i = 0; i < 10; ++i)
    {
        config->addVerbosity();
    }
    EXPECT_EQ(config->getVerbosityLevel(), static_cast<Verbosity>(ILogger::Severity::kVERBOSE));
    for (int i = 0; i < 10; ++i)
    {
        config->reduceVerbosity();
    }
    EXPECT_EQ(config->getVerbosityLevel(), static_cast<Verbosity>(ILogger::Severity::kINTERNAL_ERROR));
}

TEST(OnnxConfig, EachCallMakesAnIndependentObject)
{
    auto const first = makeConfig();
    auto const second = makeConfig();
    ASSERT_NE(first, nullptr);
    ASSERT_NE(second, nullptr);
    EXPECT_NE(first.get(), second.get());
    first->setPrintLayerInfo(true);
    EXPECT_FALSE(second->getPrintLayerInfo());
}

} // namespace
} // namespace kiln::test
