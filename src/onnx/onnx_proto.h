// The ONNX protobuf classes (Debian's libonnx-dev, built with ONNX_NAMESPACE=onnx and ONNX_ML=1).
#pragma once

#include <onnx/onnx_pb.h>
