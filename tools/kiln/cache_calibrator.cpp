#include "cache_calibrator.h"

#include <array>
#include <fstream>
#include <iterator>
#include <utility>

namespace kiln::cli
{

std::unique_ptr<CacheCalibrator> loadCalibrationCache(std::string const& path, std::string& error)
{
    std::ifstream file(path, std::ios::binary);
    if (!file)
    {
        error = "--calib: cannot open \"" + path + "\"";
        return nullptr;
    }
    std::vector<char> cache{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
    std::string const text(cache.begin(), cache.end());
    std::string const header = text.substr(0, text.find_first_of("\r\n"));
    // The names TensorRT writes after TRT-<version>-, by CalibrationAlgoType.
    static std::array<std::pair<char const*, nvinfer1::CalibrationAlgoType>, 4> const kNames{{
        {"-LegacyCalibration", nvinfer1::CalibrationAlgoType::kLEGACY_CALIBRATION},
        {"-EntropyCalibration", nvinfer1::CalibrationAlgoType::kENTROPY_CALIBRATION},
        {"-EntropyCalibration2", nvinfer1::CalibrationAlgoType::kENTROPY_CALIBRATION_2},
        {"-MinMaxCalibration", nvinfer1::CalibrationAlgoType::kMINMAX_CALIBRATION},
    }};
    for (auto const& [suffix, algorithm] : kNames)
    {
        std::string const name(suffix);
        bool const endsWith = header.size() > name.size()
            && header.compare(header.size() - name.size(), name.size(), name) == 0;
        if (header.rfind("TRT-", 0) == 0 && endsWith)
        {
            return std::make_unique<CacheCalibrator>(std::move(cache), algorithm);
        }
    }
    error = "--calib: \"" + path + "\" does not start with a calibration cache's header TRT-<version>-<algorithm> "
        + "(EntropyCalibration2, EntropyCalibration, MinMaxCalibration or LegacyCalibration)";
    return nullptr;
}

} // namespace kiln::cli
