// ICastLayer (ONNX Cast) and identity, between FP32, FP16, BF16, INT8, UINT8, INT32, INT64 and BOOL.
//
//   float -> float    rounds to nearest even (overflow to FP16 gives infinity)
//   float -> integer  truncates toward zero; NaN gives 0, values beyond the type saturate
//   integer -> integer  two's complement wrap (as numpy and C++ narrowing do)
//   anything -> BOOL  value != 0 (NaN is true);  BOOL -> anything  0 or 1
// The same type on both sides is a plain copy.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/unary.h"

#include <stdexcept>

namespace kiln::cpu
{

//! output.type is the target type; shapes must match.
void cast(ConstTensorView const& input, TensorView const& output);

//! As above, once the output is checked to have the layer's toType.
inline void cast(ConstTensorView const& input, TensorView const& output, network::CastParams const& params)
{
    if (params.toType != output.type)
    {
        throw std::invalid_argument("cast: output type differs from CastParams::toType");
    }
    cast(input, output);
}

} // namespace kiln::cpu
