// Kiln's plan file: a fixed header, then a checksummed payload.
//
//   offset  size  field
//        0     8  magic "KILNPLAN"
//        8     4  format version (kPlanFormatVersion)
//       12     4  Kiln version that wrote it (KILN_VERSION)
//       16     8  payload size in bytes
//       24     8  FNV-1a 64 checksum of bytes 0-23 and the payload
//       32     -  payload: PlanModel, written field by field (plan_format.cpp)
//
// Reading checks the magic, the version, the size and the checksum before it
// parses anything, and parses with bounds checks, so a truncated, corrupted or
// foreign file gives one clear error.
#pragma once

#include "plan/plan_model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::plan
{

inline constexpr char kPlanMagic[8] = {'K', 'I', 'L', 'N', 'P', 'L', 'A', 'N'};
// Version 2: layers carry their chosen precision and I/O types. Version 3: symbols may be shape-tensor input values.
// Version 4: convolutions carry fused epilogues and a timed cuDNN algorithm. Version 5: tensors may be stored
// channels-last (kHWC), and layers carry the formats they read and write; deconvolutions carry a timed algorithm;
// matrix multiplies carry a fused bias and ReLU. Version 6: each layer kind's parameters are written from its field
// list (network/layer.h), vectors and optional values length-prefixed. Version 7: size tensors (data-dependent
// extents) in the expression table, and symbols of kind kSIZE. Version 8: layers carry the guards they run under
// (conditionals), and conditional outputs. Version 9: a fused epilogue's activation is any activation type. Version 10:
// tensors may be views of another tensor's memory (viewed tensor, element offset and bounds expressions). Version 11:
// tensors carry a debug mark (INetworkDefinition::markDebug, markUnfusedTensorsAsDebugTensors); the plan lists its
// refittable weights. Version 12: plugin layers carry the format and the scale of each tensor (INT8 plugins).
// Version 13: plugin layers carry their chosen tactic and the inputs their outputs alias. Version 14: a fused
// epilogue's activation may be self-gated (x * f(x): SiLU, hard-swish). Version 15: quantized matrix multiplies may
// be FP8, and carry the type they write where they do not quantize. Version 16: a quantized convolution's activation
// may be self-gated. Version 17: an attention layer may round its operands, scores and probabilities as Q -> DQ pairs
// do. Version 18: a fused normalization may read and write INT8 or FP8 codes (its scales and value type). Version 19:
// a point-wise chain's step may be a Q -> DQ pair, and each step carries a value type. Version 20: a fused
// normalization may normalize its sum rounded through codes (their scale and type). Version 21: an attention layer's
// query, keys and values may each be one index along an axis of the tensor it reads (AttentionPick).
inline constexpr uint32_t kPlanFormatVersion = 21;
inline constexpr size_t kPlanHeaderSize = 32;

std::vector<uint8_t> writePlan(PlanModel const& model);

//! False with a message naming what is wrong; model is then unspecified.
bool readPlan(void const* data, size_t size, PlanModel& model, std::string& error);

uint64_t fnv1a64(uint8_t const* data, size_t size, uint64_t hash = 0xcbf29ce484222325ULL);
//! The checksum stored at byte 24: header bytes 0-23, then the payload.
uint64_t planChecksum(uint8_t const* header, uint8_t const* payload, size_t payloadSize);

} // namespace kiln::plan
