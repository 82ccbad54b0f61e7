// nvonnxparser::createONNXConfig: a configuration object that stores what it is given (NvOnnxConfig.h).
#include "NvOnnxConfig.h"

#include <algorithm>
#include <new>
#include <string>

namespace kiln::onnxparser
{
namespace
{

using Severity = nvinfer1::ILogger::Severity;
using Verbosity = nvonnxparser::IOnnxConfig::Verbosity;

constexpr Verbosity kQuietest = static_cast<Verbosity>(Severity::kINTERNAL_ERROR);
constexpr Verbosity kLoudest = static_cast<Verbosity>(Severity::kVERBOSE);

//! Copies a caller's string; nullptr reads as "". Returns false (leaving `to` as it was) when memory runs out.
bool assign(std::string& to, char const* from) noexcept
{
    try
    {
        to = from == nullptr ? "" : from;
        return true;
    }
    catch (...)
    {
        return false;
    }
}

class OnnxConfig final : public nvonnxparser::IOnnxConfig
{
public:
    void setModelDtype(const nvinfer1::DataType type) noexcept override
    {
        mModelType = type;
    }
    nvinfer1::DataType getModelDtype() const noexcept override
    {
        return mModelType;
    }
    char const* getModelFileName() const noexcept override
    {
        return mModelFile.c_str();
    }
    void setModelFileName(char const* onnxFilename) noexcept override
    {
        assign(mModelFile, onnxFilename);
    }
    Verbosity getVerbosityLevel() const noexcept override
    {
        return mVerbosity;
    }
    void addVerbosity() noexcept override
    {
        mVerbosity = std::clamp(mVerbosity + 1, kQuietest, kLoudest);
    }
    void reduceVerbosity() noexcept override
    {
        mVerbosity = std::clamp(mVerbosity - 1, kQuietest, kLoudest);
    }
    void setVerbosityLevel(Verbosity verbosity) noexcept override
    {
        mVerbosity = verbosity;
    }
    char const* getTextFileName() const noexcept override
    {
        return mTextFile.c_str();
    }
    void setTextFileName(char const* textFileName) noexcept override
    {
        assign(mTextFile, textFileName);
    }
    char const* getFullTextFileName() const noexcept override
    {
        return mFullTextFile.c_str();
    }
    void setFullTextFileName(char const* fullTextFileName) noexcept override
    {
        assign(mFullTextFile, fullTextFileName);
    }
    bool getPrintLayerInfo() const noexcept override
    {
        return mPrintLayerInfo;
    }
    void setPrintLayerInfo(bool print) noexcept override
    {
        mPrintLayerInfo = print;
    }

private:
    nvinfer1::DataType mModelType{nvinfer1::DataType::kFLOAT};
    std::string mModelFile;
    Verbosity mVerbosity{static_cast<Verbosity>(Severity::kWARNING)};
    std::string mTextFile;
    std::string mFullTextFile;
    bool mPrintLayerInfo{false};
};

} // namespace
} // namespace kiln::onnxparser

namespace nvonnxparser
{

TENSORRTAPI IOnnxConfig* createONNXConfig()
{
    return new (std::nothrow) kiln::onnxparser::OnnxConfig();
}

} // namespace nvonnxparser
