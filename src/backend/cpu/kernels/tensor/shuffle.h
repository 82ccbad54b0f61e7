// IShuffleLayer (ONNX Transpose, Reshape, Flatten, Squeeze, Unsqueeze, DepthToSpace, SpaceToDepth).
//
// first transpose -> reshape -> second transpose. A permutation lists, for each output dim, the input
// dim it takes: out.shape[i] = in.shape[order[i]] (as numpy.transpose and ONNX Transpose). An empty
// permutation is the identity. The builder resolves reshape placeholders with resolveReshapeDimensions;
// the kernel itself sees only the resolved shapes.
#pragma once

#include "core/tensor_view.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace kiln::cpu
{

struct Shuffle
{
    std::vector<int32_t> firstTranspose;
    std::optional<Shape> reshapeDimensions; //!< none: no reshape (TensorRT's "not set")
    bool zeroIsPlaceholder{true};
    std::vector<int32_t> secondTranspose;
};

//! TensorRT's reshape rules: with zeroIsPlaceholder a 0 copies the input extent at the same index; one
//! -1 is inferred from the volume. Throws std::invalid_argument with the reason when that is impossible.
Shape resolveReshapeDimensions(Shape const& input, Shape const& reshapeDimensions, bool zeroIsPlaceholder);

//! Applies `order` to a shape; throws unless it is a permutation of the shape's dims.
Shape transposeShape(Shape const& input, std::vector<int32_t> const& order);

Shape shuffleOutputShape(Shape const& input, Shuffle const& params);

//! Byte copy: every byte-addressable type.
void transpose(ConstTensorView const& input, TensorView const& output, std::vector<int32_t> const& order);

void shuffle(ConstTensorView const& input, TensorView const& output, Shuffle const& params);

} // namespace kiln::cpu
