// IEngineInspector: an engine's layers as JSON or one line each, with the precision the
// builder chose, the types each layer reads and writes, shapes, and for plugin layers
// the plugin and the library its creator came from.
#pragma once

#include "runtime/engine.h"

#include <NvInfer.h>

#include <string>

namespace kiln::runtime
{

class EngineInspector final : public nvinfer1::IEngineInspector
{
public:
    explicit EngineInspector(Engine const& engine)
        : mEngine(engine)
    {
    }

    bool setExecutionContext(nvinfer1::IExecutionContext const* context) noexcept override;
    nvinfer1::IExecutionContext const* getExecutionContext() const noexcept override
    {
        return mContext;
    }
    char const* getLayerInformation(
        int32_t layerIndex, nvinfer1::LayerInformationFormat format) const noexcept override;
    char const* getEngineInformation(nvinfer1::LayerInformationFormat format) const noexcept override;
    void setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept override
    {
        mRecorder = recorder;
    }
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override
    {
        return mRecorder;
    }

private:
    void reportError(std::string const& message) const;

    Engine const& mEngine;
    nvinfer1::IExecutionContext const* mContext{nullptr};
    nvinfer1::IErrorRecorder* mRecorder{nullptr};
    mutable std::string mText; //!< what the last call returned
};

} // namespace kiln::runtime
