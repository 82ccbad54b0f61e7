// The small option objects an engine hands out: IRuntimeConfig (how a context is made) and ISerializationConfig
// (what serializeWithConfig leaves out).
#pragma once

#include <NvInfer.h>

namespace kiln::runtime
{

class RuntimeConfig final : public nvinfer1::IRuntimeConfig
{
public:
    void setExecutionContextAllocationStrategy(nvinfer1::ExecutionContextAllocationStrategy strategy) noexcept override;
    nvinfer1::ExecutionContextAllocationStrategy getExecutionContextAllocationStrategy() const noexcept override
    {
        return mStrategy;
    }

private:
    nvinfer1::ExecutionContextAllocationStrategy mStrategy{nvinfer1::ExecutionContextAllocationStrategy::kSTATIC};
};

class SerializationConfig final : public nvinfer1::ISerializationConfig
{
public:
    bool setFlags(nvinfer1::SerializationFlags serializationFlags) noexcept override;
    nvinfer1::SerializationFlags getFlags() const noexcept override
    {
        return mFlags;
    }
    bool clearFlag(nvinfer1::SerializationFlag serializationFlag) noexcept override;
    bool setFlag(nvinfer1::SerializationFlag serializationFlag) noexcept override;
    bool getFlag(nvinfer1::SerializationFlag serializationFlag) const noexcept override;

private:
    nvinfer1::SerializationFlags mFlags{0};
};

} // namespace kiln::runtime
