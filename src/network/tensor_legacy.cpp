// ITensor's calls for INT8 calibration ranges, implicit batch and host locations: TensorRT 10 deprecates them and
// Kiln has nothing behind them. Ranges are kept and given back; the others answer as TensorRT 10 does.
#include "network/tensor.h"

#include "core/logging.h"

#include <cmath>
#include <limits>

namespace kiln::network
{

bool Tensor::setDynamicRange(float min, float max) noexcept
{
    if (!std::isfinite(min) || !std::isfinite(max) || min > max)
    {
        logError("ITensor::setDynamicRange: [" + std::to_string(min) + ", " + std::to_string(max) + "] of \"" + mName
            + "\" is not a finite range with min <= max");
        return false;
    }
    mDynamicRange = std::make_pair(min, max);
    return true;
}

void Tensor::setBroadcastAcrossBatch(bool broadcastAcrossBatch) noexcept
{
    if (broadcastAcrossBatch)
    {
        logWarning("ITensor::setBroadcastAcrossBatch: \"" + mName
            + "\": networks have no implicit batch dimension since TensorRT 10; the call has no effect");
    }
}

bool Tensor::getBroadcastAcrossBatch() const noexcept
{
    return false;
}

nvinfer1::TensorLocation Tensor::getLocation() const noexcept
{
    return nvinfer1::TensorLocation::kDEVICE;
}

void Tensor::setLocation(nvinfer1::TensorLocation location) noexcept
{
    if (location != nvinfer1::TensorLocation::kDEVICE)
    {
        logError("ITensor::setLocation: \"" + mName
            + "\" stays in device memory; host locations served RNNv2, which TensorRT 10 and Kiln do not have");
    }
}

bool Tensor::dynamicRangeIsSet() const noexcept
{
    return mDynamicRange.has_value();
}

void Tensor::resetDynamicRange() noexcept
{
    mDynamicRange.reset();
}

float Tensor::getDynamicRangeMin() const noexcept
{
    return mDynamicRange ? mDynamicRange->first : std::numeric_limits<float>::quiet_NaN();
}

float Tensor::getDynamicRangeMax() const noexcept
{
    return mDynamicRange ? mDynamicRange->second : std::numeric_limits<float>::quiet_NaN();
}

} // namespace kiln::network
