// buildSerializedNetwork's work: from a network and a configuration to plan bytes.
//
// The passes, in order (PlanBuilder in build_plan.cpp, one method each):
//   1. check the network (outputs, names) and resolve the backend;
//   2. infer every tensor's shape symbolically and its type (network/inference.h);
//   3. check the optimization profiles, choose precisions and evaluate every shape at
//      each profile's kMIN, kOPT and kMAX, so a shape error names its layer at build time;
//      then record the plan's tensors and layers, preparing plugin layers (format
//      negotiation, configuration, workspace sizes);
//   4. for CUDA plans: fuse convolution and matrix multiply epilogues, store FP16 convolution
//      chains channels-last, and time cuDNN algorithms (convolution_fusion.h,
//      matrix_multiply_fusion.h, channels_last.h, convolution_tuning.h);
//   5. plan activation memory by tensor lifetimes (memory_plan.h);
//   6. write the plan (plan/plan_format.h).
#pragma once

#include "builder/builder_config.h"
#include "network/network.h"

#include <NvInfer.h>

#include <memory>

namespace kiln::builder
{

//! The plan, or nullptr after logging why the build failed.
std::unique_ptr<nvinfer1::IHostMemory> buildPlan(
    network::Network& network, BuilderConfig& config, nvinfer1::IGpuAllocator* allocator = nullptr);

} // namespace kiln::builder
