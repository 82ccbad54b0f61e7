// Kiln: the ONNX parser's configuration object (namespace nvonnxparser), declared as TensorRT 10 declares it.
// It only holds settings (the model's file and data type, a verbosity, text dump file names, whether to print
// layer information) for applications and samples that pass them around; Kiln's parser does not read it.
#ifndef NV_OnnxConfig_H
#define NV_OnnxConfig_H

#include "NvInfer.h"

#include <cstdint>

namespace nvonnxparser
{

//! Settings of an ONNX parsing run. Made by createONNXConfig; the caller deletes it.
class IOnnxConfig
{
public:
    virtual ~IOnnxConfig() noexcept = default;

    //! A level of ILogger::Severity as an integer: kINTERNAL_ERROR (0) is the quietest, kVERBOSE (4) the loudest.
    typedef int32_t Verbosity;

    //! The data type the model is meant to run in (kFLOAT by default).
    virtual void setModelDtype(const nvinfer1::DataType) noexcept = 0;
    virtual nvinfer1::DataType getModelDtype() const noexcept = 0;

    //! The model's file name ("" by default); the setter copies the string (nullptr clears it).
    virtual char const* getModelFileName() const noexcept = 0;
    virtual void setModelFileName(char const* onnxFilename) noexcept = 0;

    //! The verbosity: ILogger::Severity::kWARNING by default. addVerbosity and reduceVerbosity step it by one, within
    //! kINTERNAL_ERROR..kVERBOSE; setVerbosityLevel stores the value given.
    virtual Verbosity getVerbosityLevel() const noexcept = 0;
    virtual void addVerbosity() noexcept = 0;
    virtual void reduceVerbosity() noexcept = 0;
    virtual void setVerbosityLevel(Verbosity) noexcept = 0;

    //! The file for a text dump of the network without weights ("" by default); the setter copies the string.
    virtual char const* getTextFileName() const noexcept = 0;
    virtual void setTextFileName(char const* textFileName) noexcept = 0;

    //! The file for a text dump of the network with its weights ("" by default); the setter copies the string.
    virtual char const* getFullTextFileName() const noexcept = 0;
    virtual void setFullTextFileName(char const* fullTextFileName) noexcept = 0;

    //! Whether layer information is to be printed (false by default).
    virtual bool getPrintLayerInfo() const noexcept = 0;
    virtual void setPrintLayerInfo(bool) noexcept = 0;
};

//! A new configuration holding the defaults above (delete it when done), or nullptr when memory runs out.
TENSORRTAPI IOnnxConfig* createONNXConfig();

} // namespace nvonnxparser

#endif // NV_OnnxConfig_H
