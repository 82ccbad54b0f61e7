// TensorRT's calibration cache, as text (the bytes IInt8Calibrator::writeCalibrationCache receives and
// readCalibrationCache gives back):
//
//   TRT-<version>-<algorithm>          e.g. TRT-8401-EntropyCalibration2, TRT-100300-MinMaxCalibration
//   <tensor name>: <scale>             one line per tensor
//
// where <scale> is the hexadecimal of the FP32 scale's bits (range / 127: TensorRT's sampleINT8 README states it as
// abs(max dynamic range) / 127), in lower case without leading zeros ("3c010204" is 1/127, "0" is 0). Tensor names may
// hold ": " themselves (TensorFlow's "input_1:0"), so the scale follows the last one. The version is TensorRT's
// (NV_TENSORRT_VERSION: 100300 for 10.3.0, 8401 for 8.4.1); Kiln writes its own and reads any.
#pragma once

#include <NvInferBuilder.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln::builder
{

struct CalibrationTable
{
    std::string version;   //!< the number after "TRT-"
    std::string algorithm; //!< "EntropyCalibration2", "EntropyCalibration", "MinMaxCalibration", "LegacyCalibration"
    std::vector<std::pair<std::string, float>> scales; //!< by tensor, in the cache's order
};

//! The name a cache gives `algorithm`.
char const* calibrationAlgorithmName(nvinfer1::CalibrationAlgoType algorithm);
//! The algorithm a cache's name stands for; none for a name TensorRT does not write.
std::optional<nvinfer1::CalibrationAlgoType> calibrationAlgorithmOfName(std::string const& name);

//! The cache's text, with Kiln's version on its first line.
std::string writeCalibrationCache(
    nvinfer1::CalibrationAlgoType algorithm, std::vector<std::pair<std::string, float>> const& scales);

//! Parses a cache; false with `error` naming the line (1-based) and what is wrong with it.
bool readCalibrationCache(std::string const& text, CalibrationTable& table, std::string& error);

} // namespace kiln::builder
