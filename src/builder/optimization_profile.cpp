#include "builder/optimization_profile.h"

#include "core/dims_text.h"
#include "core/logging.h"

#include <limits>
#include <string>

namespace kiln::builder
{
namespace
{

int32_t selectorIndex(nvinfer1::OptProfileSelector select)
{
    return static_cast<int32_t>(select);
}

bool validSelector(nvinfer1::OptProfileSelector select)
{
    return selectorIndex(select) >= 0 && selectorIndex(select) < 3;
}

} // namespace

bool OptimizationProfile::setDimensions(
    char const* inputName, nvinfer1::OptProfileSelector select, nvinfer1::Dims const& dims) noexcept
{
    if (inputName == nullptr || !validSelector(select))
    {
        logError("IOptimizationProfile::setDimensions: null input name or invalid selector");
        return false;
    }
    if (dims.nbDims < 0 || dims.nbDims > nvinfer1::Dims::MAX_DIMS)
    {
        logError(std::string("IOptimizationProfile::setDimensions: rank of \"") + inputName + "\" is out of range");
        return false;
    }
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (dims.d[i] < 0)
        {
            logError(std::string("IOptimizationProfile::setDimensions: \"") + inputName + "\" dimension "
                + std::to_string(i) + " is " + std::to_string(dims.d[i]) + "; profile dimensions must be >= 0");
            return false;
        }
    }
    mShapes.inputs[inputName][selectorIndex(select)] = dims;
    mShapes.set[inputName][selectorIndex(select)] = true;
    return true;
}

nvinfer1::Dims OptimizationProfile::getDimensions(
    char const* inputName, nvinfer1::OptProfileSelector select) const noexcept
{
    auto it = inputName ? mShapes.inputs.find(inputName) : mShapes.inputs.end();
    if (it == mShapes.inputs.end() || !validSelector(select) || !mShapes.set.at(inputName)[selectorIndex(select)])
    {
        return nvinfer1::Dims{-1, {}};
    }
    return it->second[selectorIndex(select)];
}

bool OptimizationProfile::setShapeValues(
    char const* inputName, nvinfer1::OptProfileSelector select, int32_t const* values, int32_t nbValues) noexcept
{
    if (inputName == nullptr || !validSelector(select) || nbValues < 0 || (nbValues > 0 && values == nullptr))
    {
        logError("IOptimizationProfile::setShapeValues: invalid arguments");
        return false;
    }
    mShapes.shapeValues[inputName][selectorIndex(select)].assign(values, values + nbValues);
    mShapeValuesV2.erase(inputName);
    return true;
}

bool OptimizationProfile::setShapeValuesV2(
    char const* inputName, nvinfer1::OptProfileSelector select, int64_t const* values, int32_t nbValues) noexcept
{
    if (inputName == nullptr || !validSelector(select) || nbValues < 0 || (nbValues > 0 && values == nullptr))
    {
        logError("IOptimizationProfile::setShapeValuesV2: invalid arguments");
        return false;
    }
    std::vector<int32_t> narrowed(static_cast<size_t>(nbValues));
    for (int32_t i = 0; i < nbValues; ++i)
    {
        if (values[i] < std::numeric_limits<int32_t>::min() || values[i] > std::numeric_limits<int32_t>::max())
        {
            logError("IOptimizationProfile::setShapeValuesV2: \"" + std::string(inputName) + "\" value "
                + std::to_string(values[i]) + " does not fit in 32 bits, the range of Kiln's shape-tensor bounds");
            return false;
        }
        narrowed[static_cast<size_t>(i)] = static_cast<int32_t>(values[i]);
    }
    mShapes.shapeValues[inputName][selectorIndex(select)] = std::move(narrowed);
    mShapeValuesV2[inputName][selectorIndex(select)].assign(values, values + nbValues);
    return true;
}

int64_t const* OptimizationProfile::getShapeValuesV2(
    char const* inputName, nvinfer1::OptProfileSelector select) const noexcept
{
    auto it = inputName ? mShapeValuesV2.find(inputName) : mShapeValuesV2.end();
    if (it == mShapeValuesV2.end() || !validSelector(select) || it->second[selectorIndex(select)].empty())
    {
        return nullptr;
    }
    return it->second[selectorIndex(select)].data();
}

int32_t OptimizationProfile::getNbShapeValues(char const* inputName) const noexcept
{
    auto it = inputName ? mShapes.shapeValues.find(inputName) : mShapes.shapeValues.end();
    return it == mShapes.shapeValues.end() ? -1 : static_cast<int32_t>(it->second[0].size());
}

int32_t const* OptimizationProfile::getShapeValues(
    char const* inputName, nvinfer1::OptProfileSelector select) const noexcept
{
    auto it = inputName ? mShapes.shapeValues.find(inputName) : mShapes.shapeValues.end();
    if (it == mShapes.shapeValues.end() || !validSelector(select))
    {
        return nullptr;
    }
    return it->second[selectorIndex(select)].data();
}

std::string ProfileShapes::validationError() const
{
    for (auto const& [name, bounds] : inputs)
    {
        auto const& given = set.at(name);
        if (!given[0] || !given[1] || !given[2])
        {
            return "input \"" + name + "\" needs all of kMIN, kOPT and kMAX";
        }
        nvinfer1::Dims const &min = bounds[0], &opt = bounds[1], &max = bounds[2];
        if (min.nbDims != opt.nbDims || opt.nbDims != max.nbDims)
        {
            return "input \"" + name + "\": kMIN, kOPT and kMAX have different ranks";
        }
        for (int32_t i = 0; i < min.nbDims; ++i)
        {
            if (!(min.d[i] <= opt.d[i] && opt.d[i] <= max.d[i]))
            {
                return "input \"" + name + "\": need kMIN <= kOPT <= kMAX in every dimension, got " + dimsText(min)
                    + ", " + dimsText(opt) + ", " + dimsText(max);
            }
        }
    }
    return {};
}

bool OptimizationProfile::isValid() const noexcept
{
    return mShapes.validationError().empty();
}

} // namespace kiln::builder
