// Element types as Kiln, Triton's API and Triton's model configuration name them.
#pragma once

#include "kiln_triton/triton_api.h"

#include <NvInferRuntime.h>

#include <cstdint>
#include <string>

namespace kiln::triton
{

//! Triton's type for a Kiln tensor type; TRITONSERVER_TYPE_INVALID for types Triton has no name for (FP8, INT4, FP4,
//! E8M0), which a model served by Triton cannot take or give.
TRITONSERVER_DataType tritonTypeOf(nvinfer1::DataType type);

//! The model configuration's name of a type ("TYPE_FP32", "TYPE_STRING" for BYTES).
char const* configTypeName(TRITONSERVER_DataType type);

//! The type a model configuration names; TRITONSERVER_TYPE_INVALID for a name it does not know.
TRITONSERVER_DataType typeFromConfigName(std::string const& name);

//! The inference protocol's name of a type ("FP32", "BYTES"), for messages.
char const* protocolTypeName(TRITONSERVER_DataType type);

//! Bytes per element; 0 for BYTES (no fixed size) and INVALID.
uint32_t elementBytes(TRITONSERVER_DataType type);

} // namespace kiln::triton
