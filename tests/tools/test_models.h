// Small ONNX models for the kiln command's tests, written with the ONNX library's protobuf classes.
#pragma once

#include <string>

namespace kiln::test
{

//! y = relu(x) + relu(x) with x of shape [N, 3] (N dynamic): outputs are easy to work out by hand.
void writeDoubleReluModel(std::string const& path);

//! y = relu(x) + relu(x) with x of shape [2, 3], its names hostile: terminal escape sequences (ESC, the C1 CSI
//! U+009B, a right-to-left override) in the layer and tensor names, and a newline with a forged "&&&& PASSED" line in
//! the output's name.
constexpr char const* kHostileInputName = "x\x1b[31m";
constexpr char const* kHostileOutputName = "y\n&&&& PASSED Kiln.kiln # forged";
void writeHostileNamesModel(std::string const& path);

//! x [2, 3] -> Relu -> y, the Relu named `name` (a fused layer's name can run to thousands of characters).
void writeNamedReluModel(std::string const& path, std::string const& name);

//! y = relu(x) * s with x of shape [N, 3] (N dynamic) and s a 0-D input.
void writeScaledReluModel(std::string const& path);
//! x [N] -> y [1, count]: the positions of x's non-zero elements (ONNX NonZero, cast to FLOAT), a data-dependent shape.
void writeNonZeroModel(std::string const& path);
//! y = Reshape(x, s) with x of shape [6] (FP32) and s an INT64 [2] input: a shape-tensor input.
void writeReshapeByInputModel(std::string const& path);
//! y = Gather(x, i) along axis 0 with x of shape [4, 2] (FP32) and i an INT64 [3] input: an input of a few integers
//! that feeds data only, no shape.
void writeGatherByInputModel(std::string const& path);
//! y = relu(x) - c with x of shape [2, 3] and c a [1, 3] initializer.
void writeReluMinusConstantModel(std::string const& path);

//! x [1, 8] -> Relu "relu_in" -> HalfWrongDoubler "doubler" (the test plugin, wrong in FP16) -> Relu "relu_out" -> y.
void writeWrongPluginModel(std::string const& path);

//! x [2, 2] -> CustomGeluPluginDynamic "gelu" (Kiln's plugin collection; type_id 0, bias [0.25, -0.75]) -> y.
void writeGeluPluginModel(std::string const& path);

//! y = x * W with x of shape [2, 3] and W the [3, 2] initializer "W" {0.5, -0.25, 1, 0.3, -0.75, 0.1}.
void writeMatMulModel(std::string const& path);

} // namespace kiln::test
