// IOptimizationProfile: min/opt/max shapes per network input.
#pragma once

#include <NvInfer.h>

#include <array>
#include <map>
#include <string>
#include <vector>

namespace kiln::builder
{

//! The shapes a profile holds (copyable, unlike the profile object itself).
struct ProfileShapes
{
    //! The dimensions given for every input, indexed by OptProfileSelector.
    using Bounds = std::array<nvinfer1::Dims, 3>;
    std::map<std::string, Bounds> inputs;
    std::map<std::string, std::array<bool, 3>> set;
    std::map<std::string, std::array<std::vector<int32_t>, 3>> shapeValues;

    //! Why the profile is not valid (empty when valid).
    std::string validationError() const;
};

class OptimizationProfile final : public nvinfer1::IOptimizationProfile
{
public:
    bool setDimensions(
        char const* inputName, nvinfer1::OptProfileSelector select, nvinfer1::Dims const& dims) noexcept override;
    nvinfer1::Dims getDimensions(char const* inputName, nvinfer1::OptProfileSelector select) const noexcept override;
    bool setShapeValues(char const* inputName, nvinfer1::OptProfileSelector select, int32_t const* values,
        int32_t nbValues) noexcept override;
    int32_t getNbShapeValues(char const* inputName) const noexcept override;
    int32_t const* getShapeValues(char const* inputName, nvinfer1::OptProfileSelector select) const noexcept override;
    bool setExtraMemoryTarget(float target) noexcept override
    {
        if (!(target >= 0.0F && target <= 1.0F))
        {
            return false;
        }
        mExtraMemoryTarget = target;
        return true;
    }
    float getExtraMemoryTarget() const noexcept override
    {
        return mExtraMemoryTarget;
    }
    bool isValid() const noexcept override;
    bool setShapeValuesV2(char const* inputName, nvinfer1::OptProfileSelector select, int64_t const* values,
        int32_t nbValues) noexcept override;
    int64_t const* getShapeValuesV2(char const* inputName, nvinfer1::OptProfileSelector select) const noexcept override;

    ProfileShapes const& shapes() const
    {
        return mShapes;
    }

private:
    ProfileShapes mShapes;
    //! The int64 values as setShapeValuesV2 gave them (mShapes holds them narrowed, as the plan keeps them).
    std::map<std::string, std::array<std::vector<int64_t>, 3>> mShapeValuesV2;
    float mExtraMemoryTarget{1.0F};
};

} // namespace kiln::builder
