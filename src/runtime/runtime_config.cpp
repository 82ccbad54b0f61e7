#include "runtime/runtime_config.h"

#include "core/logging.h"

#include <string>

namespace kiln::runtime
{

namespace
{

bool isSerializationFlag(nvinfer1::SerializationFlag flag)
{
    auto const value = static_cast<int32_t>(flag);
    return value >= 0 && value < nvinfer1::EnumMax<nvinfer1::SerializationFlag>();
}

uint32_t bitOf(nvinfer1::SerializationFlag flag)
{
    return 1U << static_cast<uint32_t>(flag);
}

} // namespace

void RuntimeConfig::setExecutionContextAllocationStrategy(
    nvinfer1::ExecutionContextAllocationStrategy strategy) noexcept
{
    auto const value = static_cast<int32_t>(strategy);
    if (value < 0 || value >= nvinfer1::EnumMax<nvinfer1::ExecutionContextAllocationStrategy>())
    {
        logError("IRuntimeConfig::setExecutionContextAllocationStrategy: " + std::to_string(value)
            + " is not an ExecutionContextAllocationStrategy");
        return;
    }
    mStrategy = strategy;
}

bool SerializationConfig::setFlags(nvinfer1::SerializationFlags serializationFlags) noexcept
{
    if ((serializationFlags >> nvinfer1::EnumMax<nvinfer1::SerializationFlag>()) != 0)
    {
        logError("ISerializationConfig::setFlags: bits beyond SerializationFlag's values are set");
        return false;
    }
    mFlags = serializationFlags;
    return true;
}

bool SerializationConfig::clearFlag(nvinfer1::SerializationFlag serializationFlag) noexcept
{
    if (!isSerializationFlag(serializationFlag))
    {
        logError("ISerializationConfig::clearFlag: not a SerializationFlag");
        return false;
    }
    mFlags &= ~bitOf(serializationFlag);
    return true;
}

bool SerializationConfig::setFlag(nvinfer1::SerializationFlag serializationFlag) noexcept
{
    if (!isSerializationFlag(serializationFlag))
    {
        logError("ISerializationConfig::setFlag: not a SerializationFlag");
        return false;
    }
    mFlags |= bitOf(serializationFlag);
    return true;
}

bool SerializationConfig::getFlag(nvinfer1::SerializationFlag serializationFlag) const noexcept
{
    return isSerializationFlag(serializationFlag) && (mFlags & bitOf(serializationFlag)) != 0;
}

} // namespace kiln::runtime
