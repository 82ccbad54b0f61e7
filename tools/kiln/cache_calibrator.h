// --calib: an INT8 calibrator that gives the builder a calibration cache file and no batches, as trtexec's does.
// The builder takes a cache only for the calibrator's own algorithm, so the calibrator reports the algorithm the
// cache's first line names (TRT-<version>-<algorithm>).
#pragma once

#include <NvInfer.h>

#include <memory>
#include <string>
#include <vector>

namespace kiln::cli
{

class CacheCalibrator final : public nvinfer1::IInt8Calibrator
{
public:
    CacheCalibrator(std::vector<char> cache, nvinfer1::CalibrationAlgoType algorithm)
        : mCache(std::move(cache))
        , mAlgorithm(algorithm)
    {
    }
    nvinfer1::InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return nvinfer1::InterfaceInfo{"IInt8Calibrator", 1, 0};
    }
    int32_t getBatchSize() const noexcept override
    {
        return 1;
    }
    //! No data: the cache holds every scale.
    bool getBatch(void* /*bindings*/[], char const* /*names*/[], int32_t /*nbBindings*/) noexcept override
    {
        return false;
    }
    void const* readCalibrationCache(std::size_t& length) noexcept override
    {
        length = mCache.size();
        return mCache.data();
    }
    void writeCalibrationCache(void const* /*ptr*/, std::size_t /*length*/) noexcept override { }
    nvinfer1::CalibrationAlgoType getAlgorithm() noexcept override
    {
        return mAlgorithm;
    }

private:
    std::vector<char> mCache;
    nvinfer1::CalibrationAlgoType mAlgorithm;
};

//! The calibrator of the cache file at `path`; nullptr with `error` saying why it cannot be read.
std::unique_ptr<CacheCalibrator> loadCalibrationCache(std::string const& path, std::string& error);

} // namespace kiln::cli
