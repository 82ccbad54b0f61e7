// Dimensions and shapes as text, in the three spellings Kiln's messages use.
#pragma once

#include "core/tensor_view.h"

#include <NvInferRuntimeBase.h>

#include <string>

namespace kiln
{

//! "(1, 3, 224, 224)": dimensions as the API's messages print them.
std::string dimsText(nvinfer1::Dims const& dims);

//! "[1, 3, 224, 224]": a view's shape, as the kernels' messages print it.
std::string shapeText(Shape const& shape);

//! "1x3x224x224": trtexec's spelling (its --shapes flag, and the keys of timing caches).
std::string dimsSpec(nvinfer1::Dims const& dims);
std::string shapeSpec(Shape const& shape);

} // namespace kiln
