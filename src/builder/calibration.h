// INT8 calibration, as TensorRT's builder calls an IInt8Calibrator: it asks readCalibrationCache first and takes the
// scales of a cache written for the calibrator's algorithm (by Kiln or by TensorRT: calibration_cache.h); otherwise
// it runs the network in FP32 over the calibrator's batches (getBatch, with memory where the target backend's engines
// read inputs: device memory for CUDA), collects every floating-point tensor's histogram (calibration_histogram.h),
// chooses each range by the calibrator's algorithm and gives the cache to writeCalibrationCache. A legacy calibrator's
// histograms go through readHistogramCache and writeHistogramCache the same way, in a text format of Kiln's own.
//
// The calibration run uses the public API on a plan of the same network built for the CPU backend's reference kernels
// (every layer as written, every tensor given to an IDebugListener after its layer runs), at the calibration profile's
// kOPT shapes (IBuilderConfig::setCalibrationProfile; else the first optimization profile's; else the network's own
// fixed shapes).
#pragma once

#include "backend/backend.h"
#include "builder/builder_config.h"
#include "network/network.h"

#include <string>
#include <unordered_map>

namespace kiln::builder
{

//! The INT8 scale (range / 127) of each tensor the calibrator's cache or run gives one, by name. False after logging
//! why calibration failed.
bool calibrate(network::Network& network, BuilderConfig const& config, backend::Implementation const& target,
    std::unordered_map<std::string, float>& scales);

} // namespace kiln::builder
