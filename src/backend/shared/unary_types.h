// Which types IUnaryLayer's operations take and give, decided once so that both backends refuse the same ones:
// floating-point inputs for every operation but kNOT; INT32, INT64 and INT8 for kABS, kNEG and kSIGN; BOOL for kNOT.
// kISINF, kISNAN and kNOT produce BOOL; the others keep the input's type.
#pragma once

#include <NvInferRuntimeBase.h>
#include <NvInferLayerEnums.h>

namespace kiln::backend
{

//! The output type for an input of `inputType`; throws std::invalid_argument when the operation does not take it.
nvinfer1::DataType unaryOutputType(nvinfer1::UnaryOperation op, nvinfer1::DataType inputType);

} // namespace kiln::backend
