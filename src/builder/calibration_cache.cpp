#include "builder/calibration_cache.h"

#include <NvInferVersion.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace kiln::builder
{
namespace
{

struct AlgorithmName
{
    nvinfer1::CalibrationAlgoType algorithm;
    char const* name;
};

constexpr std::array<AlgorithmName, 4> kALGORITHM_NAMES{{
    {nvinfer1::CalibrationAlgoType::kLEGACY_CALIBRATION, "LegacyCalibration"},
    {nvinfer1::CalibrationAlgoType::kENTROPY_CALIBRATION, "EntropyCalibration"},
    {nvinfer1::CalibrationAlgoType::kENTROPY_CALIBRATION_2, "EntropyCalibration2"},
    {nvinfer1::CalibrationAlgoType::kMINMAX_CALIBRATION, "MinMaxCalibration"},
}};

std::string lineError(size_t line, std::string const& what)
{
    return "calibration cache line " + std::to_string(line) + ": " + what;
}

bool isHexDigit(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

//! The header "TRT-<digits>-<name>".
bool parseHeader(std::string const& line, CalibrationTable& table, std::string& error)
{
    std::string const prefix = "TRT-";
    size_t const dash = line.find('-', prefix.size());
    bool const digits = dash != std::string::npos && dash > prefix.size()
        && line.find_first_not_of("0123456789", prefix.size()) == dash;
    if (line.compare(0, prefix.size(), prefix) != 0 || !digits || dash + 1 == line.size())
    {
        error = lineError(1, "\"" + line + "\" is not a header TRT-<version>-<algorithm>");
        return false;
    }
    table.version = line.substr(prefix.size(), dash - prefix.size());
    table.algorithm = line.substr(dash + 1);
    return true;
}

//! One "<name>: <hex>" line.
bool parseScale(std::string const& line, size_t number, CalibrationTable& table, std::string& error)
{
    size_t const separator = line.rfind(": ");
    if (separator == std::string::npos || separator == 0)
    {
        error = lineError(number, "\"" + line + "\" is not \"<tensor name>: <scale in hexadecimal>\"");
        return false;
    }
    std::string const hex = line.substr(separator + 2);
    if (hex.empty() || hex.size() > 8 || !std::all_of(hex.begin(), hex.end(), isHexDigit))
    {
        error = lineError(number, "the scale \"" + hex + "\" is not the hexadecimal of 32 bits");
        return false;
    }
    auto const bits = static_cast<uint32_t>(std::stoul(hex, nullptr, 16));
    float scale = 0.0F;
    std::memcpy(&scale, &bits, sizeof(scale));
    if (!std::isfinite(scale) || scale < 0.0F)
    {
        error = lineError(number, "the scale " + hex + " is " + std::to_string(scale) + ", not a finite scale >= 0");
        return false;
    }
    table.scales.emplace_back(line.substr(0, separator), scale);
    return true;
}

} // namespace

char const* calibrationAlgorithmName(nvinfer1::CalibrationAlgoType algorithm)
{
    for (AlgorithmName const& entry : kALGORITHM_NAMES)
    {
        if (entry.algorithm == algorithm)
        {
            return entry.name;
        }
    }
    return "EntropyCalibration2";
}

std::optional<nvinfer1::CalibrationAlgoType> calibrationAlgorithmOfName(std::string const& name)
{
    for (AlgorithmName const& entry : kALGORITHM_NAMES)
    {
        if (name == entry.name)
        {
            return entry.algorithm;
        }
    }
    return std::nullopt;
}

std::string writeCalibrationCache(
    nvinfer1::CalibrationAlgoType algorithm, std::vector<std::pair<std::string, float>> const& scales)
{
    std::string text = "TRT-" + std::to_string(NV_TENSORRT_VERSION) + "-" + calibrationAlgorithmName(algorithm) + "\n";
    for (auto const& [name, scale] : scales)
    {
        uint32_t bits = 0;
        std::memcpy(&bits, &scale, sizeof(bits));
        std::array<char, 16> hex{};
        std::snprintf(hex.data(), hex.size(), "%x", static_cast<unsigned>(bits));
        text += name + ": " + hex.data() + "\n";
    }
    return text;
}

bool readCalibrationCache(std::string const& text, CalibrationTable& table, std::string& error)
{
    table = CalibrationTable{};
    size_t begin = 0;
    size_t number = 0;
    while (begin < text.size())
    {
        size_t end = text.find('\n', begin);
        end = end == std::string::npos ? text.size() : end;
        std::string line = text.substr(begin, end - begin);
        begin = end + 1;
        ++number;
        if (!line.empty() && line.back() == '\r')
        {
            line.pop_back(); // a cache saved on Windows
        }
        if (number == 1)
        {
            if (!parseHeader(line, table, error))
            {
                return false;
            }
            continue;
        }
        if (line.empty())
        {
            continue;
        }
        if (!parseScale(line, number, table, error))
        {
            return false;
        }
    }
    if (number == 0)
    {
        error = "the calibration cache is empty";
        return false;
    }
    return true;
}

} // namespace kiln::builder
