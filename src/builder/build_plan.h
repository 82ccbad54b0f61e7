// buildSerializedNetwork's work: from a network and a configuration to plan bytes.
//
// The passes, in order (PlanBuilder in build_plan.cpp, one method each):
//   1. check the network (outputs, names) and resolve the backend;
//   2. infer every tensor's shape symbolically and its type (network/inference.h);
//   3. check the optimization profiles, choose precisions and evaluate every shape at
//      each profile's kMIN, kOPT and kMAX, so a shape error names its layer at build time;
//      then record the plan's tensors and layers, preparing plugin layers (format
//      negotiation, configuration, workspace sizes);
//   3b. with kINT8 and dynamic ranges (set or calibrated: calibration.h), Q/DQ pairs where TensorRT would
//      compute in INT8 (implicit_quantization.h);
//   4. the backend's own passes (backend/backend.h: the CUDA backend fuses epilogues, stores
//      FP16 convolution chains channels-last and times cuDNN algorithms);
//   5. plan activation memory by tensor lifetimes (memory_plan.h);
//   6. write the plan (plan/plan_format.h).
#pragma once

#include "builder/builder_config.h"
#include "network/network.h"

#include <NvInfer.h>

#include <memory>

namespace kiln::builder
{

//! The plan, or nullptr after logging why the build failed. A calibration plan (`calibration`, built by
//! builder/calibration.h) makes every tensor it keeps in memory a debug tensor, and takes no INT8 flag.
std::unique_ptr<nvinfer1::IHostMemory> buildPlan(network::Network& network, BuilderConfig& config,
    nvinfer1::IGpuAllocator* allocator = nullptr, bool calibration = false);

} // namespace kiln::builder
