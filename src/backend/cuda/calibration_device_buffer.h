// The CUDA backend's memory for one calibration input (backend/calibration_buffer.h): device memory from Kiln's
// default allocator, as TensorRT gives calibrators device bindings.
#pragma once

#include "backend/calibration_buffer.h"

#include <memory>
#include <string>

namespace kiln::cuda
{

//! nullptr with `error` set where the device memory cannot be allocated.
std::unique_ptr<backend::CalibrationBuffer> makeCalibrationDeviceBuffer(size_t bytes, std::string& error);

} // namespace kiln::cuda
